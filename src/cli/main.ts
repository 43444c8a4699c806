/**
 * The `gate-audit` command: a thin shell. The first argument names a subcommand of the table
 * (`commands/index.ts`: `init`, `check-policy`, `merge`, `observed`, `verify-log`, `approvals`, `store`); any
 * other runs the audit (`commands/audit.ts`). Exit codes: 0 every node gated, 1 a coverage finding, 2 usage,
 * config or load error.
 */
import { neutralizedStreams } from './command-output.js';
import type { CliContext, CliStreams } from './commands/command.js';
import { subcommandOf } from './commands/index.js';
import { failed } from './failure.js';
import { Inputs } from './outputs.js';

export type { CliContext, CliStreams } from './commands/command.js';
export { gateAuditVersion as version } from '../report/own-version.js';

/**
 * Runs the command.
 *
 * @param argv - the arguments after the program name
 * @param given - where to write results (stdout) and messages (stderr)
 * @param context - the working directory, the environment, a signal that ends `--watch`
 * @returns the exit code
 */
export async function main(argv: readonly string[], given: CliStreams, context: CliContext = {}): Promise<number> {
  const command = subcommandOf(argv[0]);
  // Every line a command prints passes the final pass against CI workflow commands (see neutralizedStreams).
  const streams = neutralizedStreams(given, { stdout: command?.textOnly === true });
  const cwd = context.cwd ?? process.cwd();
  // Each command's code loads when it runs: only the audit (and check-policy) load the SDK.
  if (command === undefined) return await (await import('./commands/audit.js')).audit(argv, { streams, cwd, context });
  try {
    return await command.run(argv.slice(1), { streams, cwd, context });
  } catch (error) {
    return failed(error, { argv, streams, cwd, debug: argv.includes('--debug'), inputs: new Inputs(), reporters: [] });
  }
}

/** Runs the command on this process's arguments and streams, then exits (a hung factory cannot keep it alive). */
export async function run(): Promise<void> {
  const streams = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin };
  const code = await main(process.argv.slice(2), streams, { env: process.env });
  process.stdout.write('', () => process.exit(code));
}
