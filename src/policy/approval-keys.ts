/**
 * Approver keys: approvals kept in a store are answered by people holding Ed25519 private keys, and a gate
 * holds only the public keys, by approver name. The agent's process then holds nothing that can mint an
 * approval: a symmetric secret it could read (and hand to a tool) would let it approve its own calls.
 *
 * - A private key is a PKCS#8 PEM file, its first line naming the approver (`# gate-audit approver: alice`,
 *   before the PEM block, which PEM readers skip). `gate-audit approvals keygen --name alice` writes one.
 * - A public key is the base64 text of its DER SubjectPublicKeyInfo (SPKI), one line of 60 characters
 *   (`MCowBQYDK2VwAyEA…`): what `keygen` prints and what a keyring lists.
 * - A gate takes `approvers: { alice: '<public key>' }` or `keyring: '<file>'`, a JSON file
 *   `{ "approvers": { "alice": "<public key>" } }`. A keyring file the running user can write (or replace,
 *   through a writable folder above it) is refused at the first ask or resume, since an agent that can
 *   rewrite the keyring can approve itself after a restart; `allowWritableKeyring: true` accepts it
 *   knowingly. During an audit (`GATE_AUDIT_AUDITING=1`) it is a note on stderr, not a refusal.
 *
 * Key objects are parsed once per key text and cached for the life of the process.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { accessSync, constants, lstatSync, readFileSync, realpathSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { AUDIT_KEYRING_NOTE, isAuditing } from '../auditing.js';
import { GateAuditError, messageOf } from '../errors.js';
import { visibleField } from '../escape.js';

/** What an approver name may be: letters, digits and `._@-`, 1 to 64 characters, not starting with punctuation. */
export const APPROVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/** The first line of a private key file `keygen` writes, before the PEM block: it names the approver. */
const NAME_LINE = /^# gate-audit approver: (\S+)\r?\n/;

const publicKeys = new Map<string, KeyObject>();

/**
 * The key object of a public key (base64 DER SPKI of an Ed25519 key), parsed once and cached.
 *
 * @param text - the public key as `keygen` prints it
 * @throws Error naming what is wrong when it is not the base64 SPKI of an Ed25519 key
 */
export function publicKeyOf(text: string): KeyObject {
  const cached = publicKeys.get(text);
  if (cached !== undefined) return cached;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text)) {
    throw new Error('a public key is the one-line base64 text gate-audit approvals keygen prints');
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.from(text, 'base64'), format: 'der', type: 'spki' });
  } catch (error) {
    throw new Error(`the public key does not parse (${messageOf(error)})`, { cause: error });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`the public key is ${String(key.asymmetricKeyType)}, not ed25519`);
  }
  publicKeys.set(text, key);
  return key;
}

/** The public key text (base64 DER SPKI) of a key object. */
export function publicKeyText(key: KeyObject): string {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  return publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
}

/** A new approver key pair, as `keygen` writes and prints it. */
export interface ApproverKeyPair {
  /** The approver's name (the gate lists the public key under it). */
  readonly name: string;
  /** The private key file's text: the name line, then the PKCS#8 PEM block. Keep it away from the agent. */
  readonly privateKeyPem: string;
  /** The public key (base64 DER SPKI, one line): give it to the gate. */
  readonly publicKey: string;
}

/**
 * Makes an Ed25519 key pair for an approver.
 *
 * @param name - the approver's name (letters, digits, `._@-`)
 * @throws GateAuditError `INVALID_ARGUMENT` when the name is not one
 */
export function generateApproverKey(name: string): ApproverKeyPair {
  checkName(name, 'generateApproverKey');
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' });
  return { name, privateKeyPem: `# gate-audit approver: ${name}\n${String(pem)}`, publicKey: publicKeyText(publicKey) };
}

/** An approver's private key as read from its file. */
export interface ApproverPrivateKey {
  /** The key object (Ed25519). */
  readonly key: KeyObject;
  /** The approver's name from the file's first line, when it has one. */
  readonly name?: string;
}

/**
 * Reads an approver's private key from the text of its file (PKCS#8 PEM, optionally after the name line).
 *
 * @param text - the file's text
 * @throws Error naming what is wrong when it is not an Ed25519 private key
 */
export function readPrivateKey(text: string): ApproverPrivateKey {
  let key: KeyObject;
  try {
    key = createPrivateKey(text);
  } catch (error) {
    throw new Error(`it is not a PKCS#8 PEM private key (${messageOf(error)})`, { cause: error });
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`it is a ${String(key.asymmetricKeyType)} key, not ed25519`);
  }
  const name = NAME_LINE.exec(text)?.[1];
  return { key, ...(name === undefined ? {} : { name }) };
}

function checkName(name: unknown, subject: string): asserts name is string {
  if (typeof name !== 'string' || !APPROVER_NAME.test(name)) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `${subject}=<${visibleField(String(name))}> | not an approver name | use letters, digits and ._@- (at most 64), e.g. alice`,
    );
  }
}

/** Public keys by approver name, as a gate's `approvers` option and a keyring file's `approvers` hold them. */
export const ApproverKeysSchema = z.record(z.string(), z.string()).superRefine((record, ctx) => {
  for (const [name, text] of Object.entries(record)) {
    if (!APPROVER_NAME.test(name)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: 'not an approver name (letters, digits, ._@-; at most 64)',
      });
    }
    try {
      publicKeyOf(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: [name], message: messageOf(error) });
    }
  }
});

/** A keyring file: `{ "approvers": { "<name>": "<public key>" } }` (an unknown key is an error). */
export const KeyringFileSchema = z.strictObject({ approvers: ApproverKeysSchema });

/** Zod's issues as one line: `approvers.alice: what is wrong; …`. */
function issuesLine(error: z.ZodError, prefix: string): string {
  return error.issues
    .map(
      (issue) =>
        `${[prefix, ...issue.path.map(String)].filter((p) => p !== '').join('.') || '(top)'}: ${issue.message}`,
    )
    .join('; ');
}

/** The approvers a gate trusts: public keys by name, where they came from. */
export interface Keyring {
  /** Where the keys came from (`approvers option` or the keyring file's path), for messages. */
  readonly source: string;
  /** The key an approver name is listed with, or undefined when the name is not listed. */
  publicKey(name: string): KeyObject | undefined;
}

function keyringOf(approvers: Readonly<Record<string, string>>, source: string): Keyring {
  const keys = new Map<string, KeyObject>();
  for (const [name, text] of Object.entries(approvers)) keys.set(name, publicKeyOf(text));
  return { source, publicKey: (name) => keys.get(name) };
}

/** Whether the running user can write `path`, through its access bits (root can write anything). */
function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function ownedByMe(stats: Stats): boolean {
  return typeof process.geteuid === 'function' && stats.uid === process.geteuid();
}

/**
 * Why the running user could change what `file` holds, or undefined when it cannot: the file is writable,
 * or a folder above it (by its name as given, or its real path) lets this user rename the entry below it
 * away and put another in its place (a sticky folder, like /tmp, lets only an entry's or the folder's owner).
 *
 * @param file - an absolute path
 */
export function writableProblem(file: string): string | undefined {
  const chains = new Set([file]);
  try {
    chains.add(realpathSync(file));
  } catch {
    // unreadable: reading the keyring reports it
  }
  for (const start of chains) {
    if (canWrite(start)) return `${start} is writable by this user`;
    let entry = start;
    for (let dir = dirname(start); ; dir = dirname(dir)) {
      let dirStats: Stats;
      let entryStats: Stats;
      try {
        dirStats = lstatSync(dir);
        entryStats = lstatSync(entry);
      } catch {
        break;
      }
      const sticky = (dirStats.mode & 0o1000) !== 0;
      if (canWrite(dir) && (!sticky || ownedByMe(dirStats) || ownedByMe(entryStats))) {
        return `the folder ${dir} is writable by this user (${entry} can be replaced)`;
      }
      if (dir === dirname(dir)) break;
      entry = dir;
    }
  }
  return undefined;
}

/** Where a gate takes its approvers from (see the module comment). */
export interface ApproverKeysOptions {
  /** Public keys by approver name (base64 DER SPKI, as `keygen` prints them). */
  readonly approvers?: Readonly<Record<string, string>>;
  /** A keyring file, `{ "approvers": { "<name>": "<public key>" } }`, read at the first ask or resume. */
  readonly keyring?: string;
  /**
   * Accept a keyring file the running user can write (default `false`: refused, since an agent that can
   * rewrite it can approve itself after a restart).
   */
  readonly allowWritableKeyring?: boolean;
}

/**
 * The approvers of a gate, checked now (an option) or at first use (a keyring file): a function giving the
 * keyring, read once and cached.
 *
 * @param options - `approvers` or `keyring`, and `allowWritableKeyring`
 * @param subject - the option's name for messages (`approvals`)
 * @throws GateAuditError `INVALID_ARGUMENT` when neither or both are given, or a name or key is bad; the
 *   returned function throws `KEYRING` when the file is writable, unreadable or malformed
 */
export function approverKeys(options: ApproverKeysOptions, subject: string): () => Keyring {
  const { approvers, keyring, allowWritableKeyring = false } = options;
  if ((approvers === undefined) === (keyring === undefined)) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `option=<${subject}> | a store needs the approvers' public keys | give approvers: { alice: '<public key>' } or keyring: '<file>' (gate-audit approvals keygen prints a public key)`,
    );
  }
  if (typeof allowWritableKeyring !== 'boolean') {
    throw new GateAuditError('INVALID_ARGUMENT', `option=<${subject}.allowWritableKeyring> | expected true or false`);
  }
  if (approvers !== undefined) {
    const parsed = ApproverKeysSchema.safeParse(approvers);
    if (!parsed.success) {
      throw new GateAuditError(
        'INVALID_ARGUMENT',
        `option=<${subject}.approvers> | ${visibleField(issuesLine(parsed.error, ''))} | list each approver as name: '<public key>'`,
      );
    }
    const ring = keyringOf(parsed.data, `${subject}.approvers`);
    return () => ring;
  }
  if (typeof keyring !== 'string' || keyring === '') {
    throw new GateAuditError('INVALID_ARGUMENT', `option=<${subject}.keyring> | expected the path of a keyring file`);
  }
  const file = resolve(keyring);
  if (allowWritableKeyring && isAuditing()) {
    // The audit reports the option (a note in the report), whether or not the file is writable now.
    const note: unknown = Object.getOwnPropertyDescriptor(globalThis, AUDIT_KEYRING_NOTE)?.value;
    if (typeof note === 'function') (note as (file: string) => void)(file);
  }
  let loaded: Keyring | undefined;
  return () => {
    loaded ??= loadKeyring(file, allowWritableKeyring);
    return loaded;
  };
}

/**
 * Reads a keyring file as it is (no check of who can write it: for an approver checking answers, not for a
 * gate trusting them).
 *
 * @param file - the keyring file
 * @throws GateAuditError `KEYRING` when it cannot be read or is malformed
 */
export function readKeyringFile(file: string): Keyring {
  return loadKeyring(resolve(file), true);
}

function loadKeyring(file: string, allowWritable: boolean): Keyring {
  const problem = allowWritable ? undefined : writableProblem(file);
  if (problem !== undefined) {
    if (!isAuditing()) {
      throw new GateAuditError(
        'KEYRING',
        `keyring=<${visibleField(file)}> | ${visibleField(problem)}: an agent running as this user could add its own key and approve itself | make it and its folders writable only by another user (chown root, chmod 644), or pass allowWritableKeyring: true knowingly`,
      );
    }
    process.stderr.write(
      `gate-audit: note: keyring=<${visibleField(file)}> | ${visibleField(problem)} | refused outside an audit (allowWritableKeyring: true accepts it)\n`,
    );
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new GateAuditError(
      'KEYRING',
      `keyring=<${visibleField(file)}> | cannot read the keyring (${visibleField(messageOf(error))}) | check the path`,
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new GateAuditError(
      'KEYRING',
      `keyring=<${visibleField(file)}> | not JSON (${visibleField(messageOf(error))}) | write { "approvers": { "alice": "<public key>" } }`,
      { cause: error },
    );
  }
  const parsed = KeyringFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new GateAuditError(
      'KEYRING',
      `keyring=<${visibleField(file)}> | ${visibleField(issuesLine(parsed.error, ''))} | write { "approvers": { "alice": "<public key>" } }`,
    );
  }
  return keyringOf(parsed.data.approvers, file);
}
