/**
 * Verifying the decision log of a fleet in PostgreSQL, a page of rows at a time (memory holds one page and
 * the writers' registrations, whatever the number of records):
 *
 * - the registry: each writer registration hashes the one before (a deleted registration breaks the chain)
 *   and, when keys are given, is signed by its writer's key;
 * - each writer's chain: `seq` from 0 without a gap (or from a signed checkpoint a recorded prune left),
 *   each record's hash over its stored text, each `prev` the hash before, each checkpoint's signature
 *   (when keys are given) and the registration it names (so deleting a writer registered before another
 *   writer's checkpoint, even the newest writer, is a break), and its last head row;
 * - anchors kept outside the database: `expectLastHash` per writer and `expectRegistryHead`, which alone
 *   catch a cut tail of the registry or of a writer's chain together with its heads.
 *
 * Every break is reported (the check goes on after one), naming the writer, the `seq` and the row id.
 */
import { sha256Hex } from '../enforce/digest.js';
import type { Keyring } from '../policy/approval-keys.js';
import {
  checkpointFieldOf,
  checkpointMessage,
  registrationMessage,
  signatureProblem,
  type WriterKeysOptions,
  writerKeyringOf,
} from '../policy/decision-log-signing.js';
import { canonicalJson } from '../enforce/digest.js';
import { parseBody } from './postgres-log.js';
import type { PgQueryable } from './postgres-schema.js';

/** One break of the log: where it is and what is wrong. */
export interface LogBreak {
  /** The writer id (the registration's, for a break of the registry). */
  readonly writer: string;
  /** The record's `seq` in the writer's chain (`null` for a registration or a missing head). */
  readonly seq: number | null;
  /** The table row: `gate_audit_decisions.id`, or `gate_audit_writers.seq` for a registration (`null` when gone). */
  readonly rowId: string | null;
  /** What is wrong, as a clause. */
  readonly problem: string;
}

/** What `verifyStoreLog` found for one writer. */
export interface WriterVerification {
  /** The writer id (`host/pid/start/random`). */
  readonly writer: string;
  /** The key its registration names, when signed. */
  readonly key?: string;
  /** How many of its records were read. */
  readonly records: number;
  /** The hash of its last record (`null` when none). */
  readonly lastHash: string | null;
  /** The `seq` of its last checkpoint (it covers the records before it), `null` when none. */
  readonly lastCheckpoint: number | null;
  /** Records after its last checkpoint: not signed. */
  readonly unsigned: number;
  /** The first `seq` left by a prune, when its chain was pruned. */
  readonly prunedBefore?: number;
  /** Its first break, when there is one (all of them are in `breaks`). */
  readonly problem?: string;
  /** Every break of its chain. */
  readonly breaks: readonly LogBreak[];
}

/** What `verifyStoreLog` found. */
export interface StoreLogVerification {
  /** No break anywhere (unsigned records are not a break: see `unsigned`). */
  readonly ok: boolean;
  /** `checked` when keys were given. */
  readonly signatures: 'checked' | 'not checked';
  /** Per writer, in registration order (then any writer with records but no registration). */
  readonly writers: readonly WriterVerification[];
  /** Problems of the registry and of the anchors, as clauses (also in `breaks`). */
  readonly problems: readonly string[];
  /** Every break, of the registry and of every writer. */
  readonly breaks: readonly LogBreak[];
  /** The newest registration: keep its hash elsewhere and pass it as `expectRegistryHead` later. */
  readonly registryHead: { readonly seq: number; readonly hash: string } | null;
  /** Records after the last checkpoint of their writer, all writers together. */
  readonly unsigned: number;
}

/** What `verifyStoreLog` may also check. */
export interface VerifyStoreLogOptions extends WriterKeysOptions {
  /** Writer id → the hex hash its last record must have (kept elsewhere). */
  readonly expectLastHash?: Readonly<Record<string, string>>;
  /**
   * The hash of a registration kept elsewhere (`registryHead.hash` of an earlier check): the registry must
   * still hold it. Only this catches registrations cut from the end of the registry.
   */
  readonly expectRegistryHead?: string;
  /** Rows per query (default 2000). */
  readonly pageSize?: number;
}

interface Registration {
  readonly seq: number;
  readonly hash: string;
  readonly key: string | undefined;
}

/** Checks the registry; returns the registrations by writer, and by seq → hash. */
function checkRegistry(
  rows: readonly Record<string, unknown>[],
  keyring: Keyring | undefined,
  breaks: LogBreak[],
): { byWriter: Map<string, Registration>; bySeq: Map<number, string> } {
  const byWriter = new Map<string, Registration>();
  const bySeq = new Map<number, string>();
  let previous: string | null = null;
  for (const [index, row] of rows.entries()) {
    const writer = String(row.writer_id);
    const body = String(row.body);
    const parsed = parseBody(body);
    const rowId = String(row.seq);
    const broken = (problem: string): void => {
      breaks.push({ writer, seq: null, rowId, problem: `writer registration ${index + 1} (${writer}) ${problem}` });
    };
    const key = typeof parsed?.key === 'string' ? parsed.key : undefined;
    if (sha256Hex(body) !== row.hash || parsed?.writer !== writer) {
      broken('was changed: its hash does not match');
    } else if ((parsed.prev ?? null) !== previous || (row.prev ?? null) !== previous) {
      broken('does not chain to the one before: a writer was deleted');
    } else if (keyring !== undefined && key !== undefined) {
      const { signature, ...fields } = parsed;
      const problem =
        typeof signature !== 'string'
          ? 'names a key but carries no signature'
          : signatureProblem(keyring, key, registrationMessage(canonicalJson(fields)), signature);
      if (problem !== undefined) broken(`is not signed by its key: ${problem}`);
    }
    previous = String(row.hash);
    byWriter.set(writer, { seq: Number(row.seq), hash: previous, key });
    bySeq.set(Number(row.seq), previous);
  }
  return { byWriter, bySeq };
}

/**
 * Verifies the decision log in PostgreSQL (see the module comment), streaming each writer's chain a page at
 * a time. Without keys, someone who can rewrite every table and recompute every hash is caught only by the
 * anchors kept elsewhere; with keys, only by those holding a writer's key (or cutting tails).
 *
 * @param source - a `postgresStore`, or `{ pool }`
 * @param options - the writers' public keys, `expectLastHash` per writer, `expectRegistryHead`
 * @throws GateAuditError `INVALID_ARGUMENT` when a key or the keyring file is bad; the driver's error when a
 *   query fails
 */
export async function verifyStoreLog(
  source: { readonly pool: PgQueryable },
  options: VerifyStoreLogOptions = {},
): Promise<StoreLogVerification> {
  const { pool } = source;
  const keyring = writerKeyringOf(options);
  const pageSize = options.pageSize ?? 2000;
  const problems: string[] = [];
  const breaks: LogBreak[] = [];
  const registered = await pool.query('select seq, writer_id, body, prev, hash from gate_audit_writers order by seq');
  const { byWriter, bySeq } = checkRegistry(registered.rows, keyring, breaks);
  for (const found of breaks) problems.push(found.problem);
  const newest = registered.rows[registered.rows.length - 1];
  const registryHead = newest === undefined ? null : { seq: Number(newest.seq), hash: String(newest.hash) };
  if (options.expectRegistryHead !== undefined && ![...bySeq.values()].includes(options.expectRegistryHead)) {
    const problem = `no writer registration has the expected registry head ${options.expectRegistryHead}: registrations were cut from the end of the registry, or it was rewritten`;
    problems.push(problem);
    breaks.push({ writer: '(registry)', seq: null, rowId: null, problem });
  }
  const lastHeads = await pool.query(
    'select distinct on (writer_id) writer_id, seq, hash from gate_audit_heads order by writer_id, seq desc',
  );
  const heads = new Map<string, { lastSeq: number; lastHash: string }>();
  for (const row of lastHeads.rows)
    heads.set(String(row.writer_id), { lastSeq: Number(row.seq), lastHash: String(row.hash) });
  const pruned = await pool.query('select count(*) as n from gate_audit_prunes');
  const wasPruned = Number(pruned.rows[0]?.n ?? 0) > 0;
  const all = [...byWriter.keys()];
  for (const writer of heads.keys()) if (!byWriter.has(writer)) all.push(writer);
  const unheaded = await pool.query(
    'select distinct d.writer_id from gate_audit_decisions d where not exists (select 1 from gate_audit_heads h where h.writer_id = d.writer_id)',
  );
  for (const row of unheaded.rows) if (!all.includes(String(row.writer_id))) all.push(String(row.writer_id));

  const writers: WriterVerification[] = [];
  let unsignedTotal = 0;
  for (const writer of all) {
    const registration = byWriter.get(writer);
    const own: LogBreak[] = [];
    const broken = (seq: number | null, rowId: string | null, problem: string): void => {
      own.push({ writer, seq, rowId, problem });
    };
    let expected = 0;
    let prev: string | null = null;
    let records = 0;
    let lastSeq = -1;
    let lastCheckpoint: number | null = null;
    let unsigned = 0;
    let prunedBefore: number | undefined;
    let after = -1;
    for (;;) {
      const { rows } = await pool.query(
        'select id, seq, body, hash from gate_audit_decisions where writer_id = $1 and seq > $2 order by seq limit $3',
        [writer, after, pageSize],
      );
      for (const row of rows) {
        const body = String(row.body);
        const parsed = parseBody(body);
        const seq = Number(row.seq);
        const rowId = String(row.id);
        after = seq;
        const checkpoint = checkpointFieldOf(parsed?.checkpoint);
        let problem: string | undefined;
        if (records === 0 && seq > 0 && wasPruned && checkpoint !== undefined && typeof checkpoint !== 'string') {
          // A prune left this signed checkpoint as the chain's first record.
          prunedBefore = seq;
          expected = seq;
          prev = typeof parsed?.prev === 'string' ? parsed.prev : null;
        }
        if (seq !== expected || parsed?.seq !== seq) {
          problem =
            seq > expected
              ? `record ${expected} is missing (the next is ${seq})`
              : `record ${seq} is inserted or repeated (expected ${expected})`;
        } else if (sha256Hex(body) !== row.hash || parsed.writer !== writer) {
          problem = `record ${seq} was changed: its hash does not match its content`;
        } else if ((parsed.prev ?? null) !== prev) {
          problem = `record ${seq} does not chain to record ${seq - 1}`;
        } else if (typeof checkpoint === 'string') {
          problem = `record ${seq} is a malformed checkpoint: ${checkpoint}`;
        } else if (checkpoint !== undefined) {
          if (checkpoint.registry !== undefined && bySeq.get(checkpoint.registry.seq) !== checkpoint.registry.hash) {
            problem = `checkpoint ${seq} names writer registration seq ${checkpoint.registry.seq}, which is missing or changed: a writer was deleted from the registry`;
          } else if (keyring !== undefined) {
            const signed =
              registration?.key !== undefined && registration.key !== checkpoint.key
                ? `it is signed with the key "${checkpoint.key}", but the writer registered with "${registration.key}"`
                : signatureProblem(
                    keyring,
                    checkpoint.key,
                    checkpointMessage({
                      key: checkpoint.key,
                      writer,
                      seq,
                      prev,
                      registry: checkpoint.registry ?? null,
                    }),
                    checkpoint.signature,
                  );
            if (signed !== undefined) problem = `checkpoint ${seq} does not verify: ${signed}`;
          }
        }
        if (problem !== undefined) broken(seq, rowId, problem);
        if (checkpoint !== undefined && typeof checkpoint !== 'string' && problem === undefined) {
          lastCheckpoint = seq;
          unsigned = 0;
        } else if (checkpoint === undefined) {
          unsigned += 1;
        }
        // Go on from this row whatever it holds, so every later break is found too.
        expected = seq + 1;
        prev = String(row.hash);
        lastSeq = seq;
        records += 1;
      }
      if (rows.length < pageSize) break;
    }
    const head = heads.get(writer);
    if (registration === undefined) broken(null, null, 'the writer is not registered in gate_audit_writers');
    else if (head === undefined && records === 0) {
      broken(
        null,
        null,
        'the writer is registered but has no records: they were deleted (a writer registers in the transaction of its first records)',
      );
    } else if (head === undefined || head.lastSeq !== lastSeq || head.lastHash !== prev) {
      const said = head === undefined ? 0 : head.lastSeq + 1;
      broken(
        head?.lastSeq ?? null,
        null,
        said > lastSeq + 1
          ? `the heads table says ${said} record(s), ${lastSeq + 1} found: records were deleted or the tail was cut`
          : `the heads table says ${said} record(s) ending in another hash, ${lastSeq + 1} found`,
      );
    }
    const expectedHash = options.expectLastHash?.[writer];
    if (expectedHash !== undefined && expectedHash !== prev) {
      broken(
        lastSeq < 0 ? null : lastSeq,
        null,
        `the last hash is ${prev ?? 'none'}, expected ${expectedHash}: the tail was cut or rewritten`,
      );
    }
    unsignedTotal += unsigned;
    breaks.push(...own);
    writers.push({
      writer,
      ...(registration?.key === undefined ? {} : { key: registration.key }),
      records,
      lastHash: prev,
      lastCheckpoint,
      unsigned,
      ...(prunedBefore === undefined ? {} : { prunedBefore }),
      ...(own[0] === undefined ? {} : { problem: own[0].problem }),
      breaks: own,
    });
  }
  for (const writer of Object.keys(options.expectLastHash ?? {})) {
    if (!all.includes(writer)) {
      const problem = `writer ${writer} (from --expect-last-hash) has no records`;
      problems.push(problem);
      breaks.push({ writer, seq: null, rowId: null, problem });
    }
  }
  return {
    ok: breaks.length === 0,
    signatures: keyring === undefined ? 'not checked' : 'checked',
    writers,
    problems,
    breaks,
    registryHead,
    unsigned: unsignedTotal,
  };
}
