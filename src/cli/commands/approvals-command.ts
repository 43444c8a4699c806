/**
 * `gate-audit approvals keygen|list|show|approve|deny|watch`: make an approver's key pair, and list, inspect,
 * answer and follow the pending approvals gates wrote to a store, from any process. An answer is signed with
 * the approver's private key (`--key`, a file `keygen` wrote); the gate accepts it only when the key's
 * public half is listed under that approver's name. Nothing secret is read from the arguments or the
 * environment: the key is a file, the store's password is in `PGPASSWORD`, `~/.pgpass` or `--store-file`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { GateAuditError, messageOf } from '../../errors.js';
import { approvePending, checkStored, denyPending, type ListedApproval } from '../../policy/approval-answer.js';
import { generateApproverKey, type Keyring, readKeyringFile } from '../../policy/approval-keys.js';
import type { PostgresStore } from '../../stores/postgres.js';
import { visible, visibleField } from '../../escape.js';
import { approvalLines } from '../approvals-lines.js';
import { subcommand } from '../command-output.js';
import type { Streams } from './policy-commands.js';
import {
  openStore,
  StoreCommandError,
  type StoreFlags,
  storeFailure,
  storeUrlOf,
  withStoreOptions,
} from './store-commands.js';

const ACTIONS = ['keygen', 'list', 'show', 'approve', 'deny', 'watch'] as const;
type Action = (typeof ACTIONS)[number];

interface Flags extends StoreFlags {
  key?: string;
  approver?: string;
  keyring?: string;
  all?: boolean;
  name?: string;
  out?: string;
}

/** What the approvals command may read from its surroundings. */
export interface ApprovalsContext {
  /** Stops `watch` (the process's SIGINT and SIGTERM do too). */
  readonly signal?: AbortSignal;
}

/** Flags of the secret era, each with what replaced it. */
const REMOVED: Readonly<Record<string, string>> = {
  '--secret':
    "approvals in a store are answered with an approver's private key, never a shared secret | make one with gate-audit approvals keygen --name <you> and pass --key <file>",
  '--secret-file':
    "approvals in a store are answered with an approver's private key, never a shared secret | make one with gate-audit approvals keygen --name <you> and pass --key <file>",
  '--by':
    "the approver's name is the one its key is listed under | keygen writes it into the key file; --approver <name> names a key without it",
};

function removedFlag(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    const flag = arg.split('=')[0]!;
    if (REMOVED[flag] !== undefined) return `option=<${flag}> | ${REMOVED[flag]}`;
  }
  return undefined;
}

function keyringOf(flags: Flags): Keyring | undefined {
  return flags.keyring === undefined ? undefined : readKeyringFile(flags.keyring);
}

function keygen(flags: Flags, streams: Streams, cwd: string): number {
  if (flags.name === undefined) {
    throw new StoreCommandError('action=<keygen> | the approver name is missing | pass --name <you>', 2);
  }
  const pair = generateApproverKey(flags.name);
  const shown = flags.out ?? `${flags.name}.pem`;
  try {
    // wx: never overwrite a key (someone's only copy); 0600: readable by its owner only.
    writeFileSync(resolve(cwd, shown), pair.privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const exists = (error as { code?: unknown })?.code === 'EEXIST';
    throw new StoreCommandError(
      exists
        ? `file=<${visibleField(shown)}> | a file is there already, and a key is never overwritten | pass --out <another file>, or move it away first`
        : `file=<${visibleField(shown)}> | cannot write the key (${visibleField(messageOf(error))}) | check the folder`,
      exists ? 1 : 2,
    );
  }
  streams.stderr.write(
    `gate-audit approvals: wrote the private key of ${visible(pair.name)} to ${visible(shown)} (PKCS#8 PEM, mode 0600): keep it where no agent runs\n` +
      "gate-audit approvals: the gate's keyring lists this public key (base64 SPKI):\n",
  );
  streams.stdout.write(`${JSON.stringify({ [pair.name]: pair.publicKey })}\n`);
  return 0;
}

async function show(store: PostgresStore, id: string, flags: Flags, streams: Streams): Promise<number> {
  const stored = await store.getPending(id);
  if (stored === undefined) {
    throw new StoreCommandError(`approval=<${visibleField(id)}> | no such pending approval | run approvals list`, 1);
  }
  const keyring = keyringOf(flags);
  const listed = checkStored(stored, keyring);
  streams.stdout.write(approvalLines(listed, true, keyring?.source));
  return listed.problem !== undefined || listed.answerProblem !== undefined ? 1 : 0;
}

async function list(store: PostgresStore, flags: Flags, streams: Streams): Promise<number> {
  const keyring = keyringOf(flags);
  const listed: ListedApproval[] = (await store.listPending({ all: flags.all === true })).map((row) =>
    checkStored(row, keyring),
  );
  streams.stdout.write(
    listed.length === 0
      ? 'gate-audit approvals: nothing pending\n'
      : listed.map((row) => approvalLines(row, false, keyring?.source)).join('\n'),
  );
  return listed.some((row) => row.problem !== undefined || row.answerProblem !== undefined) ? 1 : 0;
}

async function answer(
  store: PostgresStore,
  action: 'approve' | 'deny',
  id: string,
  flags: Flags,
  streams: Streams,
  cwd: string,
): Promise<number> {
  if (flags.key === undefined) {
    throw new StoreCommandError(
      `action=<${action}> | the approver's private key is missing | pass --key <file> (gate-audit approvals keygen --name <you> makes one)`,
      2,
    );
  }
  let privateKey: string;
  try {
    privateKey = readFileSync(resolve(cwd, flags.key), 'utf8');
  } catch (error) {
    throw new StoreCommandError(
      `file=<${visibleField(flags.key)}> | cannot read the private key (${visibleField(messageOf(error))}) | check the path`,
      2,
    );
  }
  let signed: Awaited<ReturnType<typeof approvePending>>;
  try {
    signed = await (action === 'approve' ? approvePending : denyPending)(store, id, {
      privateKey,
      ...(flags.approver === undefined ? {} : { approverId: flags.approver }),
    });
  } catch (error) {
    // A refusal (unknown, malformed, answered, used, expired) is 1; a bad key or name is usage (2).
    if (error instanceof GateAuditError && error.code === 'INVALID_ARGUMENT') {
      throw new StoreCommandError(error.message, error.message.startsWith('option=<') ? 2 : 1);
    }
    throw error;
  }
  streams.stdout.write(
    `gate-audit approvals: ${visible(id)} ${action === 'approve' ? 'approved' : 'denied'} by ${visible(signed.approverId)}\n`,
  );
  return 0;
}

async function watch(store: PostgresStore, flags: Flags, streams: Streams, context: ApprovalsContext): Promise<number> {
  const keyring = keyringOf(flags);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  context.signal?.addEventListener('abort', onSignal, { once: true });
  if (context.signal?.aborted === true) stop.abort();
  try {
    streams.stderr.write('gate-audit approvals: watching for pending approvals (Ctrl-C stops)\n');
    await store.watchPending(
      (row) => {
        streams.stdout.write(`${approvalLines(checkStored(row, keyring), false, keyring?.source)}\n`);
      },
      {
        signal: stop.signal,
        onProblem: (message) =>
          streams.stderr.write(
            `gate-audit approvals watch: store=<postgres> | ${visible(message)} | reconnecting, then listing again\n`,
          ),
      },
    );
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    context.signal?.removeEventListener('abort', onSignal);
  }
}

/**
 * `gate-audit approvals keygen|list|show|approve|deny|watch`.
 *
 * @param argv - the arguments after `approvals`
 * @param streams - where to write
 * @param cwd - where relative files are
 * @param context - the signal that stops `watch`
 * @returns the exit code: 0 done, 1 refused (answered already, used, expired, superseded, malformed, a key
 *   file there already) or a break found (`list`/`show`: a row or a signature that does not verify), 2
 *   usage, key, keyring or store error (`STORE_SCHEMA` included)
 */
export async function approvalsCommand(
  argv: readonly string[],
  streams: Streams,
  cwd: string,
  context: ApprovalsContext = {},
): Promise<number> {
  const removed = removedFlag(argv);
  if (removed !== undefined) {
    streams.stderr.write(`gate-audit approvals: ${removed}\n`);
    return 2;
  }
  const command = withStoreOptions(
    subcommand('approvals', streams).description(
      'Make an approver key, and list, show, answer and watch the pending approvals gates wrote to a store.',
    ),
  )
    .argument('<action>', ACTIONS.join(', '))
    .argument('[id]', 'the pending approval (show, approve, deny)')
    .option('--key <file>', "the approver's private key (approve, deny): the file keygen wrote")
    .option('--approver <name>', 'the name the key is listed under, for a key file that does not name it')
    .option('--keyring <file>', "check answers' signatures against this keyring (list, show, watch)")
    .option('--all', 'list answered and used approvals too')
    .option('--name <name>', "the approver's name (keygen)")
    .option('--out <file>', 'where keygen writes the private key (default: <name>.pem; never overwritten)')
    .addHelpText(
      'after',
      '\nkeygen writes a PKCS#8 PEM private key (mode 0600) and prints its public key, the base64 SPKI a gate lists:\n' +
        "  approvals: { store, approvers: { alice: '<public key>' } } or keyring: '<file>'.\n" +
        'A password in --store is refused (ps and shell history show arguments): use PGPASSWORD, ~/.pgpass or --store-file.\n' +
        'Exit codes: 0 done · 1 refused or a break found · 2 usage, key or store error (STORE_SCHEMA included)',
    );
  command.parse([...argv], { from: 'user' });
  const [given, id] = command.args as [string, string | undefined];
  const flags = command.opts<Flags>();
  if (!(ACTIONS as readonly string[]).includes(given)) {
    streams.stderr.write(
      `gate-audit approvals: action=<${visibleField(given)}> | unknown action | use ${ACTIONS.join(', ')}\n`,
    );
    return 2;
  }
  const action = given as Action;
  if ((action === 'show' || action === 'approve' || action === 'deny') && id === undefined) {
    streams.stderr.write(
      `gate-audit approvals: action=<${action}> | the approval id is missing | run approvals list\n`,
    );
    return 2;
  }
  let store: PostgresStore | undefined;
  try {
    if (action === 'keygen') return keygen(flags, streams, cwd);
    store = await openStore(storeUrlOf(flags, cwd));
    await store.checkSchema();
    if (action === 'list') return await list(store, flags, streams);
    if (action === 'show') return await show(store, id!, flags, streams);
    if (action === 'watch') return await watch(store, flags, streams, context);
    return await answer(store, action, id!, flags, streams, cwd);
  } catch (error) {
    return storeFailure('approvals', error, streams);
  } finally {
    await store?.close().catch(() => undefined);
  }
}
