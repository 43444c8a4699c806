/**
 * The store subcommands: `gate-audit approvals list|approve|deny --store <url>` answers pending approvals
 * from any process, and `gate-audit verify-log --store <url>` checks every writer's chain of a fleet's
 * decision log. The secret comes from `GATE_AUDIT_APPROVAL_SECRET` or `--secret-file`, never from the
 * arguments (they show in `ps` and in shell history). `pg` is loaded only here, when a store is named.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { InvalidArgumentError } from 'commander';
import { canonicalJson } from '../enforce/digest.js';
import { GateAuditError, messageOf } from '../errors.js';
import { joinPath } from '../paths.js';
import { approvePending, denyPending, type ListedApproval, listPending } from '../policy/approval-store.js';
import type { PostgresStore, postgresStore } from '../stores/postgres.js';
import { visible } from '../text.js';
import type { Streams } from './policy-commands.js';
import { subcommand } from './command-output.js';

/** The environment variable the approval secret is read from. */
export const SECRET_ENV = 'GATE_AUDIT_APPROVAL_SECRET';

type Env = Readonly<Record<string, string | undefined>>;

class StoreCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

async function openStore(url: string): Promise<PostgresStore> {
  let open: typeof postgresStore;
  try {
    ({ postgresStore: open } = await import('../stores/postgres.js'));
  } catch (error) {
    throw new StoreCommandError(
      `store=<postgres> | cannot load the PostgreSQL store (${messageOf(error)}) | npm install pg`,
      2,
    );
  }
  return open({ connectionString: url });
}

function secretOf(env: Env, secretFile: string | undefined, cwd: string): string {
  if (secretFile !== undefined) {
    try {
      return readFileSync(resolve(cwd, secretFile), 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new StoreCommandError(
        `file=<${visible(secretFile)}> | cannot read the secret file (${messageOf(error)}) | check the path`,
        2,
      );
    }
  }
  const secret = env[SECRET_ENV];
  if (secret === undefined || secret === '') {
    throw new StoreCommandError(
      `env=<${SECRET_ENV}> | the approval secret is not set | export ${SECRET_ENV}, or pass --secret-file <path> (never the secret itself as an argument)`,
      2,
    );
  }
  return secret;
}

/** One approval as lines for the terminal: every value from the store neutralised. */
function approvalLines(listed: ListedApproval): string {
  const { entry, answer, consumedAt } = listed;
  const status = listed.forged
    ? 'FORGED'
    : consumedAt !== undefined
      ? 'used'
      : answer !== undefined
        ? `${answer.decision === 'approve' ? 'approved' : 'denied'} by ${visible(answer.by)}`
        : listed.expired
          ? 'expired'
          : 'pending';
  let input: string;
  try {
    input = canonicalJson(entry.request.input);
  } catch {
    input = '(not plain data)';
  }
  const lines = [
    `${visible(entry.id)}  ${status}`,
    `  gate ${visible(entry.gate)} (${visible(entry.gateId)})${entry.rule === undefined ? '' : `, rule ${visible(entry.rule)}`}`,
    `  reason: ${visible(entry.reason)}`,
    `  agent ${visible(entry.request.agentId)} at ${visible(joinPath(entry.request.path)) || '(no place known)'}: tool ${visible(entry.request.toolName)}, toolUseId ${visible(entry.request.toolUseId)}`,
    `  input: ${visible(input)}`,
    `  input sha256: ${visible(entry.inputDigest)} (the approval token signs this)`,
    `  expires ${new Date(entry.expiresAt).toISOString()}`,
  ];
  if (listed.forged !== undefined) lines.push(`  NOT TRUSTED: ${visible(listed.forged)}`);
  return `${lines.join('\n')}\n`;
}

/**
 * `gate-audit approvals list|approve|deny --store <url>`.
 *
 * @returns the exit code: 0 done, 1 an answer refused (answered already, forged, expired, used), 2 usage,
 *   secret or store error
 */
export async function approvalsCommand(
  argv: readonly string[],
  streams: Streams,
  cwd: string,
  env: Env,
): Promise<number> {
  if (argv.some((a) => a === '--secret' || a.startsWith('--secret='))) {
    streams.stderr.write(
      `gate-audit approvals: option=<--secret> | the secret is never read from the arguments (ps and shell history show them) | export ${SECRET_ENV} or pass --secret-file <path>\n`,
    );
    return 2;
  }
  const command = subcommand('approvals', streams)
    .description('List and answer the pending approvals gates wrote to a store.')
    .argument('<action>', 'list, approve or deny')
    .argument('[id]', 'the pending approval (approve, deny)')
    .requiredOption('--store <url>', 'the PostgreSQL connection string (postgresql://…)')
    .option('--secret-file <path>', `read the approval secret from this file (default: $${SECRET_ENV})`)
    .option('--by <name>', 'who answers (default: the user name)')
    .option('--all', 'list answered and used approvals too')
    .addHelpText(
      'after',
      `\nThe secret is read from $${SECRET_ENV} or --secret-file, never from the arguments.\n` +
        'Exit codes: 0 done · 1 the answer was refused (answered already, forged, expired, used) · 2 usage, secret or store error',
    );
  command.parse([...argv], { from: 'user' });
  const [action, id] = command.args as [string, string | undefined];
  const options = command.opts<{ store: string; secretFile?: string; by?: string; all?: boolean }>();
  if (!['list', 'approve', 'deny'].includes(action)) {
    streams.stderr.write(
      `gate-audit approvals: action=<${visible(action)}> | unknown action | use list, approve <id> or deny <id>\n`,
    );
    return 2;
  }
  if (action !== 'list' && id === undefined) {
    streams.stderr.write(
      `gate-audit approvals: action=<${action}> | the approval id is missing | run approvals list\n`,
    );
    return 2;
  }
  let store: PostgresStore | undefined;
  try {
    const secret = secretOf(env, options.secretFile, cwd);
    store = await openStore(options.store);
    if (action === 'list') {
      const listed = await listPending(store, { secret, all: options.all === true });
      streams.stdout.write(
        listed.length === 0 ? 'gate-audit approvals: nothing pending\n' : listed.map(approvalLines).join('\n'),
      );
      return 0;
    }
    const by = options.by ?? userInfo().username;
    try {
      await (action === 'approve' ? approvePending : denyPending)(store, id!, { secret, by });
    } catch (error) {
      if (error instanceof GateAuditError) {
        streams.stderr.write(`gate-audit approvals: ${error.message}\n`);
        return 1;
      }
      throw error;
    }
    streams.stdout.write(
      `gate-audit approvals: ${visible(id!)} ${action === 'approve' ? 'approved' : 'denied'} by ${visible(by)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof StoreCommandError) {
      streams.stderr.write(`gate-audit approvals: ${error.message}\n`);
      return error.exitCode;
    }
    streams.stderr.write(
      `gate-audit approvals: store=<postgres> | ${visible(messageOf(error))} | check the --store connection string and that the server runs\n`,
    );
    return 2;
  } finally {
    await store?.close().catch(() => undefined);
  }
}

function expectArg(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const cut = value.lastIndexOf('=');
  const writer = value.slice(0, cut);
  const hash = value.slice(cut + 1);
  if (cut <= 0 || !/^[0-9a-f]{64}$/.test(hash)) {
    throw new InvalidArgumentError('expected <writer>=<sha256 hex>, the writer id as verify-log prints it');
  }
  return { ...previous, [writer]: hash };
}

/**
 * `gate-audit verify-log --store <url> [--expect-last-hash <writer>=<hex>...]`.
 *
 * @returns the exit code: 0 every chain intact, 1 a break, 2 usage or store error
 */
export async function verifyStoreLogCommand(argv: readonly string[], streams: Streams): Promise<number> {
  const command = subcommand('verify-log', streams)
    .description("Check a fleet's decision log in PostgreSQL: every writer's chain and the writers' chain.")
    .requiredOption('--store <url>', 'the PostgreSQL connection string (postgresql://…)')
    .option('--expect-last-hash <writer=hex>', "a writer's last hash kept elsewhere (repeat per writer)", expectArg)
    .addHelpText(
      'after',
      '\nExit codes: 0 intact · 1 a record or writer is broken or missing · 2 usage or store error',
    );
  command.parse([...argv], { from: 'user' });
  const options = command.opts<{ store: string; expectLastHash?: Record<string, string> }>();
  let store: PostgresStore | undefined;
  try {
    store = await openStore(options.store);
    const { verifyStoreLog } = await import('../stores/postgres.js');
    const result = await verifyStoreLog(store, { expectLastHash: options.expectLastHash ?? {} });
    const lines = result.writers.map(
      (w) =>
        `  ${visible(w.writer)}: ${w.problem === undefined ? 'OK' : `BROKEN: ${visible(w.problem)}`}, ${w.records} record${w.records === 1 ? '' : 's'} intact, last hash ${w.lastHash ?? '(none)'}`,
    );
    for (const problem of result.problems) lines.push(`  BROKEN: ${visible(problem)}`);
    streams.stdout.write(
      `gate-audit verify-log: store ${result.ok ? 'OK' : 'BROKEN'}, ${result.writers.length} writer${result.writers.length === 1 ? '' : 's'}\n${lines.join('\n')}\n`,
    );
    return result.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof StoreCommandError) {
      streams.stderr.write(`gate-audit verify-log: ${error.message}\n`);
      return error.exitCode;
    }
    streams.stderr.write(
      `gate-audit verify-log: store=<postgres> | ${visible(messageOf(error))} | check the --store connection string and that the server runs\n`,
    );
    return 2;
  } finally {
    await store?.close().catch(() => undefined);
  }
}
