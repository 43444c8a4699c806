/**
 * Signed decision logs: each writer (a log file, or one process writing to a PostgreSQL store) holds an
 * Ed25519 private key and signs checkpoints of its own hash chain, every `every` records (at most 100) and
 * when it closes. A checkpoint is a record of the chain itself (`checkpoint: { key, signature, … }`), so
 * removing or moving one breaks the chain like any record; its signature covers the chain up to the record
 * before it (writer, `seq` and `prev`), and in a store also the newest writer registration the writer saw,
 * so a registration deleted later is a break. A verifier holds only the public keys, by key name.
 *
 * Keys are those `gate-audit approvals keygen` makes (a PKCS#8 PEM file, a one-line base64 SPKI public
 * key). The writer's key is readable by the agent that writes the log: its signatures prove that nobody
 * without that key changed the chain (a database administrator, a restored backup), not that the agent did
 * not.
 */
import { type KeyObject, sign, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { canonicalJson } from '../enforce/digest.js';
import { GateAuditError, messageOf } from '../errors.js';
import { quoted, visibleField } from '../escape.js';
import { APPROVER_NAME, ApproverKeysSchema, type Keyring, publicKeyOf, readPrivateKey } from './approval-keys.js';

/** Most records between two checkpoints (and the default). */
export const MAX_CHECKPOINT_EVERY = 100;

/** Domain tag of a checkpoint's signature. */
const CHECKPOINT_DOMAIN = 'gate-audit-log-checkpoint/v1';
/** Domain tag of a writer registration's signature. */
const REGISTRATION_DOMAIN = 'gate-audit-log-writer/v1';

/** How a writer signs its chain. */
export interface LogSigningOptions {
  /** The key's name, as the verifier's keyring lists its public key (default: the key file's name line). */
  readonly name?: string;
  /** The Ed25519 private key: PKCS#8 PEM text or a key object (or give `keyFile`). */
  readonly key?: string | KeyObject;
  /** A file holding the PKCS#8 PEM (as `gate-audit approvals keygen` writes it), read when the log opens. */
  readonly keyFile?: string;
  /** A checkpoint after this many records (1 to 100; default 100), and one at close. */
  readonly every?: number;
}

/** A writer's signing key, ready. */
export interface LogSigner {
  /** The key's name. */
  readonly name: string;
  /** Records between checkpoints. */
  readonly every: number;
  /** Signs a message. */
  sign(message: Buffer): string;
}

function signingError(what: string, fix: string): GateAuditError {
  return new GateAuditError('INVALID_ARGUMENT', `option=<signing> | ${what} | ${fix}`);
}

/**
 * The signer of a `signing` option: the key read (and its file, if named) once.
 *
 * @param options - name, key or key file, checkpoint interval
 * @throws GateAuditError `INVALID_ARGUMENT` when no key or name is given, the key is not Ed25519, or
 *   `every` is not 1 to 100
 */
export function logSignerOf(options: LogSigningOptions): LogSigner {
  if (typeof options !== 'object' || options === null) {
    throw signingError(
      'expected { name, key } or { keyFile }',
      'make a key with gate-audit approvals keygen --name <name>',
    );
  }
  const { key, keyFile, every = MAX_CHECKPOINT_EVERY } = options;
  if (!Number.isInteger(every) || every < 1 || every > MAX_CHECKPOINT_EVERY) {
    throw signingError(
      `every=<${visibleField(String(every))}> is not 1 to ${MAX_CHECKPOINT_EVERY}`,
      'sign at least every 100 records',
    );
  }
  if ((key === undefined) === (keyFile === undefined)) {
    throw signingError(
      'give the private key once, as key or keyFile',
      'e.g. { keyFile: "/etc/gate-audit/writer.pem" }',
    );
  }
  let object: KeyObject;
  let fileName: string | undefined;
  try {
    if (typeof key === 'object') {
      object = key;
      if (object.type !== 'private' || object.asymmetricKeyType !== 'ed25519')
        throw new Error('not an Ed25519 private key');
    } else {
      const text = key ?? readFileSync(resolve(keyFile!), 'utf8');
      const read = readPrivateKey(text);
      object = read.key;
      fileName = read.name;
    }
  } catch (error) {
    throw signingError(`the key cannot be used (${visibleField(messageOf(error))})`, 'give an Ed25519 PKCS#8 PEM');
  }
  const name = options.name ?? fileName;
  if (name === undefined || !APPROVER_NAME.test(name)) {
    throw signingError(
      `name=<${visibleField(String(name))}> is not a key name`,
      'give name: letters, digits and ._@- (the name the verifier lists the public key under)',
    );
  }
  return { name, every, sign: (message) => sign(null, message, object).toString('base64') };
}

/** What a checkpoint's signature covers. */
export interface CheckpointSubject {
  /** The key's name. */
  readonly key: string;
  /** The writer id in a store, `null` in a file. */
  readonly writer: string | null;
  /** The checkpoint's own `seq` (the records before it: 0 … seq − 1). */
  readonly seq: number;
  /** The hash of the record before it. */
  readonly prev: string | null;
  /** In a store: the newest writer registration the writer saw (`seq`, `hash`). */
  readonly registry: { readonly seq: number; readonly hash: string } | null;
}

/**
 * The bytes a checkpoint's signature covers: canonical JSON of the domain tag and each field.
 *
 * @param subject - the checkpoint
 */
export function checkpointMessage(subject: CheckpointSubject): Buffer {
  return Buffer.from(
    canonicalJson([
      CHECKPOINT_DOMAIN,
      subject.key,
      subject.writer,
      subject.seq,
      subject.prev,
      subject.registry === null ? null : [subject.registry.seq, subject.registry.hash],
    ]),
    'utf8',
  );
}

/**
 * The bytes a writer registration's signature covers: the domain tag and the registration's canonical text
 * without its signature.
 *
 * @param unsigned - the registration's canonical JSON text, without `signature`
 */
export function registrationMessage(unsigned: string): Buffer {
  return Buffer.from(canonicalJson([REGISTRATION_DOMAIN, unsigned]), 'utf8');
}

/** The checkpoint field of a record as it is written: key name, signature, and the registry head in a store. */
export interface CheckpointField {
  readonly key: string;
  readonly signature: string;
  readonly registry?: { readonly seq: number; readonly hash: string };
}

/**
 * The checkpoint field of a record, or undefined when the record is not a checkpoint; a malformed one is a
 * string saying what is wrong.
 *
 * @param value - the record's `checkpoint` field
 */
export function checkpointFieldOf(value: unknown): CheckpointField | string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) return 'the checkpoint is not an object';
  const { key, signature, registry } = value as Record<string, unknown>;
  if (typeof key !== 'string' || typeof signature !== 'string') return 'the checkpoint names no key or signature';
  if (registry === undefined) return { key, signature };
  const { seq, hash } = (registry ?? {}) as Record<string, unknown>;
  if (typeof seq !== 'number' || typeof hash !== 'string') return 'the checkpoint names no valid registration';
  return { key, signature, registry: { seq, hash } };
}

/**
 * Why a signature cannot be trusted, or undefined when the key is listed and the signature is by it over
 * the message.
 *
 * @param keyring - the verifier's public keys
 * @param name - the key name the record gives
 * @param message - what was signed
 * @param signature - base64
 */
export function signatureProblem(
  keyring: Keyring,
  name: string,
  message: Buffer,
  signature: string,
): string | undefined {
  const key = keyring.publicKey(name);
  if (key === undefined) return `its key ${quoted(name)} is not listed in ${quoted(keyring.source)}`;
  if (!/^[A-Za-z0-9+/]{86}==$/.test(signature) || !verify(null, message, key, Buffer.from(signature, 'base64'))) {
    return `its signature is not by the key ${quoted(name)} over its content`;
  }
  return undefined;
}

/** A writers' keyring file: `{ "writers": { "<name>": "<public key>" } }`. */
export const WriterKeyringFileSchema = z.strictObject({ writers: ApproverKeysSchema });

/** Where a verifier takes the writers' public keys from. */
export interface WriterKeysOptions {
  /** Public keys by key name (base64 SPKI, as `gate-audit approvals keygen` prints them). */
  readonly keys?: Readonly<Record<string, string>>;
  /** A keyring file, `{ "writers": { "<name>": "<public key>" } }`. */
  readonly keyring?: string;
}

/**
 * The writers' keyring of a verification, or undefined when no key is given (signatures are then not
 * checked).
 *
 * @param options - `keys` and/or `keyring`
 * @throws GateAuditError `INVALID_ARGUMENT` when a key or the keyring file is bad
 */
export function writerKeyringOf(options: WriterKeysOptions): Keyring | undefined {
  const keys = new Map<string, KeyObject>();
  const sources: string[] = [];
  const add = (record: unknown, source: string): void => {
    const parsed = ApproverKeysSchema.safeParse(record);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.')}: ${i.message}`).join('; ');
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `keys=<${visibleField(source)}> | ${visibleField(issues)} | list each writer key as name: '<public key>'`,
      );
    }
    for (const [name, text] of Object.entries(parsed.data)) keys.set(name, publicKeyOf(text));
    sources.push(source);
  };
  if (options.keys !== undefined) add(options.keys, 'keys');
  if (options.keyring !== undefined) {
    const file = resolve(options.keyring);
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `keyring=<${visibleField(file)}> | cannot read it (${visibleField(messageOf(error))}) | write { "writers": { "<name>": "<public key>" } }`,
        { cause: error },
      );
    }
    const parsed = WriterKeyringFileSchema.safeParse(json);
    if (!parsed.success) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `keyring=<${visibleField(file)}> | not a writers' keyring | write { "writers": { "<name>": "<public key>" } }`,
      );
    }
    add(parsed.data.writers, file);
  }
  if (sources.length === 0) return undefined;
  return { source: sources.join(' and '), publicKey: (name) => keys.get(name) };
}

/**
 * A `--key <name>=<public key>` argument as a name and key, or undefined when it is not one (the key is
 * checked when the keyring is built).
 *
 * @param value - the argument
 */
export function parseKeyArgument(value: string): readonly [string, string] | undefined {
  const cut = value.indexOf('=');
  if (cut <= 0) return undefined;
  const name = value.slice(0, cut);
  const key = value.slice(cut + 1);
  return APPROVER_NAME.test(name) && key !== '' ? [name, key] : undefined;
}
