/**
 * The store subcommands and what every command that takes a store shares: `gate-audit store migrate`
 * creates or upgrades the PostgreSQL schema (as an admin role), and `gate-audit verify-log --store` checks
 * every writer's chain of a fleet's decision log. A store is named by `--store <url>` or `--store-file
 * <file>` (a file holding the connection string); a URL with a password in it is refused, since arguments
 * show in `ps` and in shell history: the password goes in `PGPASSWORD`, `~/.pgpass` or the store file.
 * `pg` is loaded only here, when a store is named.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { GateAuditError, messageOf } from '../../errors.js';
import type { PostgresStore, postgresStore } from '../../stores/postgres.js';
import { visible, visibleField } from '../../escape.js';
import { subcommand } from '../command-output.js';
import { type Streams, signedText, writerKeyArg } from './policy-commands.js';

/** A problem a store command reports with its exit code (1 refused or broken, 2 usage or store). */
export class StoreCommandError extends Error {
  /**
   * @param message - the line, without the command's name
   * @param exitCode - 1 or 2
   */
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'StoreCommandError';
  }
}

/** Whether a connection string carries a password (`user:pw@`, `?password=`, or `password=` in key=value form). */
export function hasPassword(connection: string): boolean {
  try {
    const url = new URL(connection);
    if (url.password !== '') return true;
    for (const key of url.searchParams.keys()) if (key.toLowerCase() === 'password') return true;
    return false;
  } catch {
    return /(^|[\s?&;])password\s*=/i.test(connection);
  }
}

/** The options every command that takes a store has. */
export interface StoreFlags {
  readonly store?: string;
  readonly storeFile?: string;
}

/**
 * Adds `--store <url>` and `--store-file <file>` to a command.
 *
 * @param command - the command
 */
export function withStoreOptions(command: Command): Command {
  return command
    .option('--store <url>', 'the PostgreSQL connection string, without a password (postgresql://user@host/db)')
    .option('--store-file <file>', 'a file holding the connection string (it may hold the password)');
}

/**
 * The connection string a command was given: `--store` (refused when it holds a password) or the text of
 * `--store-file`.
 *
 * @param flags - the parsed options
 * @param cwd - where a relative `--store-file` is
 * @throws StoreCommandError (exit 2) when neither or both are given, the URL holds a password, or the file
 *   cannot be read
 */
export function storeUrlOf(flags: StoreFlags, cwd: string): string {
  if ((flags.store === undefined) === (flags.storeFile === undefined)) {
    throw new StoreCommandError(
      'option=<--store> | name the store once | pass --store <url> (the password in PGPASSWORD or ~/.pgpass) or --store-file <file>',
      2,
    );
  }
  if (flags.store !== undefined) {
    if (hasPassword(flags.store)) {
      throw new StoreCommandError(
        'option=<--store> | the connection string holds a password, and arguments show in ps and in shell history | drop it from the URL and set PGPASSWORD (or the other PG* variables, or ~/.pgpass), or put the whole string in a file readable only by you and pass --store-file <file>',
        2,
      );
    }
    return flags.store;
  }
  const file = flags.storeFile!;
  try {
    return readFileSync(resolve(cwd, file), 'utf8').trim();
  } catch (error) {
    throw new StoreCommandError(
      `file=<${visibleField(file)}> | cannot read the store file (${visibleField(messageOf(error))}) | check the path`,
      2,
    );
  }
}

/**
 * Opens a PostgreSQL store (loading `pg` now).
 *
 * @param url - the connection string
 * @throws StoreCommandError (exit 2) when `pg` cannot be loaded
 */
export async function openStore(url: string): Promise<PostgresStore> {
  let open: typeof postgresStore;
  try {
    ({ postgresStore: open } = await import('../../stores/postgres.js'));
  } catch (error) {
    throw new StoreCommandError(
      `store=<postgres> | cannot load the PostgreSQL store (${visibleField(messageOf(error))}) | npm install pg`,
      2,
    );
  }
  return open({ connectionString: url, poolSize: 2 });
}

/**
 * Writes what a store command failed with and gives its exit code: its own errors with theirs, a schema
 * error and any other failure (a connection, a permission) as a store error (2).
 *
 * @param name - the command (`approvals`, `verify-log`, `store migrate`)
 * @param error - what it threw
 * @param streams - where to write
 */
export function storeFailure(name: string, error: unknown, streams: Streams): number {
  if (error instanceof StoreCommandError) {
    streams.stderr.write(`gate-audit ${name}: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof GateAuditError) {
    streams.stderr.write(`gate-audit ${name}: ${error.message}\n`);
    return 2;
  }
  streams.stderr.write(
    `gate-audit ${name}: store=<postgres> | ${visible(messageOf(error))} | check the store's connection string, the role's privileges and that the server runs\n`,
  );
  return 2;
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
 * @param argv - the arguments after `verify-log`
 * @param streams - where to write
 * @param cwd - where a relative `--store-file` is
 * @returns the exit code: 0 every chain intact, 1 a break, 2 usage or store error
 */
export async function verifyStoreLogCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  const command = withStoreOptions(
    subcommand('verify-log', streams).description(
      "Check a fleet's decision log in PostgreSQL: every writer's chain and the writers' chain.",
    ),
  )
    .option('--expect-last-hash <writer=hex>', "a writer's last hash kept elsewhere (repeat per writer)", expectArg)
    .option(
      '--expect-registry-head <hex>',
      'a registry head kept elsewhere (verify-log prints it): catches registrations cut from the end',
      registryHeadArg,
    )
    .option(
      '--key <name=public key>',
      'a writer key to check registrations and checkpoints with (repeatable)',
      writerKeyArg,
    )
    .option('--keyring <file>', 'a writers\' keyring file: { "writers": { "<name>": "<public key>" } }')
    .option('--require-signed', "exit 1 when records after a writer's last signed checkpoint are unsigned")
    .addHelpText(
      'after',
      '\nExit codes: 0 intact · 1 a record or writer is broken or missing (or, with --require-signed, unsigned) · 2 usage or store error',
    );
  command.parse([...argv], { from: 'user' });
  const options = command.opts<
    StoreFlags & {
      expectLastHash?: Record<string, string>;
      expectRegistryHead?: string;
      key?: Record<string, string>;
      keyring?: string;
      requireSigned?: boolean;
    }
  >();
  if (options.requireSigned === true && options.key === undefined && options.keyring === undefined) {
    streams.stderr.write(
      'gate-audit verify-log: option=<--require-signed> | no key to check signatures with | pass --key <name>=<public key> or --keyring <file>\n',
    );
    return 2;
  }
  let store: PostgresStore | undefined;
  try {
    store = await openStore(storeUrlOf(options, cwd));
    await store.checkSchema();
    const { verifyStoreLog } = await import('../../stores/postgres.js');
    const result = await verifyStoreLog(store, {
      expectLastHash: options.expectLastHash ?? {},
      ...(options.expectRegistryHead === undefined ? {} : { expectRegistryHead: options.expectRegistryHead }),
      ...(options.key === undefined ? {} : { keys: options.key }),
      ...(options.keyring === undefined ? {} : { keyring: resolve(cwd, options.keyring) }),
    });
    const lines: string[] = [];
    for (const w of result.writers) {
      lines.push(
        `  ${visible(w.writer)}: ${w.problem === undefined ? 'OK' : `BROKEN: ${visible(w.problem)}`}, ${w.records} record${w.records === 1 ? '' : 's'} intact, last hash ${w.lastHash ?? '(none)'}` +
          `${w.prunedBefore === undefined ? '' : `, pruned before seq ${w.prunedBefore}`}` +
          signedText({
            signatures: result.signatures,
            lastCheckpoint: w.lastCheckpoint,
            ...(w.key === undefined ? {} : { lastCheckpointKey: w.key }),
            unsigned: w.unsigned,
          }),
      );
    }
    for (const broken of result.breaks) {
      lines.push(
        `  break: writer=<${visible(broken.writer)}>, seq=<${broken.seq ?? '-'}>, row=<${broken.rowId ?? '-'}> | ${visible(broken.problem)}`,
      );
    }
    for (const problem of result.problems) lines.push(`  BROKEN: ${visible(problem)}`);
    const registry =
      result.registryHead === null
        ? ''
        : `, registry head ${result.registryHead.hash} (seq ${result.registryHead.seq})`;
    streams.stdout.write(
      `gate-audit verify-log: store ${result.ok ? 'OK' : 'BROKEN'}, ${result.writers.length} writer${result.writers.length === 1 ? '' : 's'}${registry}\n${lines.join('\n')}\n`,
    );
    if (!result.ok) return 1;
    if (result.signatures === 'checked' && result.unsigned > 0) {
      streams.stderr.write(
        `gate-audit verify-log: warning: store=<postgres> | ${result.unsigned} record${result.unsigned === 1 ? '' : 's'} after the last signed checkpoint of ${result.unsigned === 1 ? 'its writer is' : 'their writers are'} unsigned (a writer that did not close) | ${options.requireSigned === true ? 'refused: --require-signed' : 'pass --require-signed to fail on them'}\n`,
      );
      if (options.requireSigned === true) return 1;
    }
    return 0;
  } catch (error) {
    return storeFailure('verify-log', error, streams);
  } finally {
    await store?.close().catch(() => undefined);
  }
}

function registryHeadArg(value: string): string {
  if (!/^[0-9a-f]{64}$/.test(value))
    throw new InvalidArgumentError('expected the 64 hex digits verify-log printed after "registry head"');
  return value;
}

function beforeArg(value: string): Date {
  const time = new Date(value);
  if (Number.isNaN(time.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new InvalidArgumentError('expected an ISO time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z');
  }
  return time;
}

/**
 * `gate-audit store migrate --store <url>`: creates or upgrades the schema, as an admin role.
 * `gate-audit store grants --runtime-role <role> --approver-role <role>`: prints the GRANT statements.
 *
 * @param argv - the arguments after `store`
 * @param streams - where to write
 * @param cwd - where a relative `--store-file` is
 * @returns the exit code: 0 done, 2 usage or store error (a schema newer than this gate-audit included)
 */
export async function storeCommand(argv: readonly string[], streams: Streams, cwd: string): Promise<number> {
  const command = withStoreOptions(
    subcommand('store', streams).description(
      'Create or upgrade the PostgreSQL schema of approvals and the decision log (run it as an admin role), or print the grants of the roles gates and approvers use.',
    ),
  )
    .argument('<action>', 'migrate, grants or prune')
    .option(
      '--before <time>',
      'prune: remove records and answered or expired approvals older than this (ISO time)',
      beforeArg,
    )
    .option('--runtime-role <role>', "grants: the gates' role (SELECT, and INSERT on what gates append)")
    .option('--approver-role <role>', "grants: the approvers' role (SELECT, and INSERT on the answers)")
    .addHelpText(
      'after',
      '\nGates and approvers never create or alter tables: run migrate once per upgrade, as a role that may,\n' +
        'then run the statements grants prints as that role (e.g. gate-audit store grants … | psql).\n' +
        'Exit codes: 0 done · 2 usage or store error (a schema newer than this gate-audit: STORE_SCHEMA)',
    );
  command.parse([...argv], { from: 'user' });
  const [action] = command.args as [string];
  const roles = command.opts<{ runtimeRole?: string; approverRole?: string }>();
  if (action === 'grants') {
    if (roles.runtimeRole === undefined && roles.approverRole === undefined) {
      streams.stderr.write(
        'gate-audit store: action=<grants> | no role named | pass --runtime-role <role> and/or --approver-role <role>\n',
      );
      return 2;
    }
    const { grantStatements } = await import('../../stores/postgres-schema.js');
    const statements = grantStatements({
      ...(roles.runtimeRole === undefined ? {} : { runtime: roles.runtimeRole }),
      ...(roles.approverRole === undefined ? {} : { approver: roles.approverRole }),
    });
    streams.stdout.write(`${statements.join('\n')}\n`);
    return 0;
  }
  if (action === 'prune') return pruneCommand(command.opts<StoreFlags & { before?: Date }>(), streams, cwd);
  if (action !== 'migrate') {
    streams.stderr.write(
      `gate-audit store: action=<${visibleField(action)}> | unknown action | use migrate, grants or prune\n`,
    );
    return 2;
  }
  let store: PostgresStore | undefined;
  try {
    store = await openStore(storeUrlOf(command.opts<StoreFlags>(), cwd));
    const result = await store.migrate();
    streams.stdout.write(
      result.applied.length === 0
        ? `gate-audit store: the schema is at version ${result.to} already\n`
        : `gate-audit store: schema version ${result.from} → ${result.to}\n${result.applied.map((m) => `  applied ${m}\n`).join('')}`,
    );
    return 0;
  } catch (error) {
    return storeFailure('store migrate', error, streams);
  } finally {
    await store?.close().catch(() => undefined);
  }
}

/** `gate-audit store prune --before <time>`: as an admin role. */
async function pruneCommand(options: StoreFlags & { before?: Date }, streams: Streams, cwd: string): Promise<number> {
  if (options.before === undefined) {
    streams.stderr.write('gate-audit store: action=<prune> | no time given | pass --before <ISO time>\n');
    return 2;
  }
  let store: PostgresStore | undefined;
  try {
    store = await openStore(storeUrlOf(options, cwd));
    const result = await store.prune(options.before);
    streams.stdout.write(
      `gate-audit store: pruned before ${options.before.toISOString()}: ${result.records} record${result.records === 1 ? '' : 's'} of ${result.writers} writer${result.writers === 1 ? '' : 's'} (each chain now starts at a signed checkpoint), ${result.approvals} approval${result.approvals === 1 ? '' : 's'}\n`,
    );
    return 0;
  } catch (error) {
    return storeFailure('store prune', error, streams);
  } finally {
    await store?.close().catch(() => undefined);
  }
}
