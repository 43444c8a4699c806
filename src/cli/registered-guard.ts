/**
 * Starting the process guard from the project's configuration: `processGuard` names its gates (a module whose
 * export `gates`, or default export, is a gate or a list of gates) or a policy file, relative to the config
 * file. Used by `gate-audit/register` (`register.ts`) and by the audit child before an entry runs, when the
 * configuration has `processGuard`.
 *
 * The gates module is imported natively, in the app's own module graph, so the gate objects the app installs
 * are the guard's very objects (a gate without an `id` is known by its object).
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GateAuditError, messageOf } from '../errors.js';
import { isGate, type Gate } from '../enforce/gate.js';
import { prepareProcessGuard, type ProcessGuardOptions, startProcessGuard } from '../enforce/process-guard.js';
import { loadPolicy } from '../policy/load.js';
import { policyGate } from '../policy/policy-gate.js';
import { strandsSdkInstalled } from '../frameworks/strands/sdk-package.js';
import { loadConfig } from './config.js';

async function gatesOf(file: string, shown: string): Promise<Gate[]> {
  let namespace: Record<string, unknown>;
  try {
    namespace = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (error) {
    throw new GateAuditError(
      'LOAD_FAILED',
      `gates=<${shown}> | could not be imported: ${messageOf(error)} | give a JavaScript module, or start node with a TypeScript loader before gate-audit/register (--import tsx --import gate-audit/register)`,
    );
  }
  const value = Object.hasOwn(namespace, 'gates') ? namespace.gates : namespace.default;
  const list = Array.isArray(value) ? (value as unknown[]) : [value];
  if (list.length === 0 || !list.every(isGate)) {
    throw new GateAuditError(
      'INVALID_ARGUMENT',
      `gates=<${shown}> | its export "gates" (or default export) is not a gate or a list of gates | export the gates the process runs under`,
    );
  }
  return list;
}

/**
 * Reads `processGuard` from the configuration found from `cwd` upwards, imports its gates and starts the guard
 * (`by: 'register'`). The audit child calls it before an entry runs when the configuration has `processGuard`,
 * as production's `--import gate-audit/register` would.
 *
 * @param cwd - where the configuration is looked for
 * @param file - the configuration file, when one was named (the CLI's `--config`)
 * @throws GateAuditError naming the file and the fix when anything is missing or wrong
 */
export async function startRegisteredGuard(cwd: string, file?: string): Promise<void> {
  prepareProcessGuard();
  // The Strands SDK's stand joins when the SDK is installed; without it a copy of the SDK is refused, never run.
  if (strandsSdkInstalled()) await import('../frameworks/strands/process-guard.js');
  const loaded = await loadConfig({
    cwd,
    ...(file === undefined ? {} : { file }),
    timeoutMs: 30_000,
    noise: (chunk) => void process.stderr.write(chunk),
  });
  if (loaded.file === undefined) {
    throw new GateAuditError(
      'USAGE',
      `config=<${cwd}> | no gate-audit configuration from here upwards, so there is no process guard to start | add "processGuard": { "policy": "policy.yaml" } to gate-audit.config.json`,
    );
  }
  const guard = loaded.config.processGuard;
  const shownConfig = loaded.shown ?? loaded.file;
  if (guard === undefined) {
    throw new GateAuditError(
      'USAGE',
      `config=<${shownConfig}> | has no processGuard, so there is no process guard to start | add "processGuard": { "gates": "./gates.js" } or { "policy": "policy.yaml" }`,
    );
  }
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(loaded.dir, path));
  const shown = (path: string): string => relative(cwd, at(path)) || path;
  const gates =
    guard.gates !== undefined
      ? await gatesOf(at(guard.gates), shown(guard.gates))
      : [policyGate(loadPolicy(at(guard.policy as string)))];
  const options: ProcessGuardOptions = {
    gates,
    ...(guard.onUngated === undefined ? {} : { onUngated: guard.onUngated }),
    ...(guard.accept === undefined ? {} : { accept: guard.accept }),
  };
  startProcessGuard(options, 'register');
}
