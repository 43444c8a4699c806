/**
 * `gate-audit verify-log <file>` checks a hash-chained decision log in a file; with `--store` (or
 * `--store-file`), every writer's chain of a fleet's log in PostgreSQL.
 */
import type { CliCommand } from './command.js';

/** The `verify-log` subcommand. */
export const verifyLog: CliCommand = {
  name: 'verify-log',
  help: [
    '  gate-audit verify-log <file>                  check a hash-chained decision log',
    "  gate-audit verify-log --store <url>           check every writer's chain of a fleet's log in PostgreSQL",
  ],
  textOnly: true,
  run: async (argv, { streams, cwd }) =>
    argv.some((a) => /^--store(-file)?(=|$)/.test(a))
      ? await (await import('./store-commands.js')).verifyStoreLogCommand(argv, streams, cwd)
      : await (await import('./policy-commands.js')).verifyLogCommand(argv, streams, cwd),
};
