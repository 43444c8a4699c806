/**
 * Before gate-audit reads or changes SDK objects: is this an SDK it can read, was it tested on it, and
 * if not, does it still behave as gate-audit's guarantees need? Done once per process, at the first
 * `install`, `installMultiagent`, `audit` or `plan` (and first thing in the CLI).
 *
 * - The shape self-check (`sdk-shape.ts`) always runs: a field gate-audit reads that is missing or
 *   of another type refuses with `SDK_SHAPE`.
 * - Outside the tested range: one `[gate-audit] WARN` line, then the behavioural self-test
 *   (`sdk-self-test.ts`, in a child process so `install` stays synchronous); a failure refuses with
 *   `SDK_BEHAVIOUR`. With `requireTestedSdk` an untested version refuses with `SDK_UNTESTED` instead.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GateAuditError } from '../../errors.js';
import { isTestedSdk, SDK_TESTED, sdkVersion, testedRange } from './sdk-version.js';
import { checkSdkShape, makeSdkProbes, type SdkProbes, type ShapeProblem } from './sdk-shape.js';
import { log } from '../../enforce/log.js';

/** The SDK this process runs, as gate-audit judged it. */
export interface SdkStatus {
  /** The SDK's version (`unknown` when it could not be read). */
  readonly version: string;
  /** Where it was read from. */
  readonly where: string;
  /** Whether the version lies in the tested range. */
  readonly tested: boolean;
  /** The tested range, e.g. `>=1.11.2 <=1.19.0`. */
  readonly range: string;
}

/** What the behavioural self-test (`sdk-self-test.ts`) found. */
export type SelfTestResult =
  | { readonly ok: true; readonly checks: readonly string[] }
  | { readonly ok: false; readonly check: string; readonly detail: string };

/** What the check may be told. */
export interface SdkCheckOptions {
  /** Refuse (`SDK_UNTESTED`) when the SDK version lies outside the tested range. */
  readonly requireTested?: boolean;
}

let probeFactory: () => SdkProbes = makeSdkProbes;
let selfTestRunner: () => SelfTestResult = selfTestInChild;
let shape: { problem: ShapeProblem | undefined } | undefined;
let behaviour: SelfTestResult | undefined;
let warned = false;
let insideSelfTest = false;

/** The SDK's version and whether it was tested (no check is run). */
export function sdkStatus(): SdkStatus {
  const { version, where } = sdkVersion();
  return { version, where, tested: isTestedSdk(version), range: testedRange() };
}

function refuseShape(status: SdkStatus, problem: ShapeProblem): never {
  throw new GateAuditError(
    'SDK_SHAPE',
    `sdk=<${status.version}>, object=<${problem.owner}>, field=<${problem.field}> | ` +
      `gate-audit cannot read this @strands-agents/sdk: expected ${problem.expected}, found ${problem.found}; ` +
      `nothing was changed | use @strands-agents/sdk ${status.range} (tested), or a gate-audit release that supports ${status.version}`,
  );
}

/**
 * Checks the loaded SDK once per process and throws when gate-audit must not use it.
 *
 * @param options - `{ requireTested }`
 * @returns the SDK's status
 * @throws GateAuditError `SDK_SHAPE`, `SDK_UNTESTED` or `SDK_BEHAVIOUR`
 */
export function ensureSdk(options: SdkCheckOptions = {}): SdkStatus {
  const status = sdkStatus();
  if (shape === undefined) {
    let problem: ShapeProblem | undefined;
    try {
      problem = checkSdkShape(probeFactory());
    } catch (error) {
      problem = {
        owner: 'probe objects',
        field: '(construction)',
        expected: 'probe objects built without error',
        found: `an error: ${String(error instanceof Error ? error.message : error).split('\n')[0]}`,
      };
    }
    shape = { problem };
  }
  if (shape.problem !== undefined) refuseShape(status, shape.problem);
  if (status.tested || insideSelfTest) return status;
  if (options.requireTested === true) {
    throw new GateAuditError(
      'SDK_UNTESTED',
      `sdk=<${status.version}>, tested=<${status.range}> | @strands-agents/sdk ${status.version} is outside the range ` +
        'gate-audit was tested on and a tested SDK is required; nothing was changed | ' +
        `install @strands-agents/sdk ${status.range}, or drop --require-tested-sdk / requireTestedSdk to run after a behavioural self-test`,
    );
  }
  if (!warned) {
    warned = true;
    log(
      'warn',
      { sdk: status.version, tested: `${SDK_TESTED.min} to ${SDK_TESTED.max}` },
      `@strands-agents/sdk ${status.version} is outside the range gate-audit was tested on; ` +
        'its behaviour is checked once before use | install a tested version, or pass --require-tested-sdk ' +
        '(requireTestedSdk: true) to refuse untested versions',
    );
  }
  behaviour ??= selfTestRunner();
  if (!behaviour.ok) {
    throw new GateAuditError(
      'SDK_BEHAVIOUR',
      `sdk=<${status.version}>, check=<${behaviour.check}> | the behavioural self-test failed on this ` +
        `@strands-agents/sdk (${behaviour.detail}); nothing was changed | use @strands-agents/sdk ${status.range} (tested)`,
    );
  }
  return status;
}

/**
 * Marks this process as the self-test's own: its installs skip the warning and the self-test (no recursion).
 */
export function markSelfTestProcess(): void {
  insideSelfTest = true;
}

/**
 * For tests only: replaces the probes or the self-test, and forgets what was checked (the check runs again).
 *
 * @param overrides - a probe factory (e.g. with a field renamed) and/or a self-test result
 */
export function setSdkCheckForTests(
  overrides: { probes?: () => SdkProbes; selfTest?: () => SelfTestResult } = {},
): void {
  probeFactory = overrides.probes ?? makeSdkProbes;
  selfTestRunner = overrides.selfTest ?? selfTestInChild;
  shape = undefined;
  behaviour = undefined;
  warned = false;
}

function isSelfTestResult(value: unknown): value is SelfTestResult {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  if (v.ok === true) return Array.isArray(v.checks);
  return v.ok === false && typeof v.check === 'string' && typeof v.detail === 'string';
}

/** Where the child runs from and how long it may take (tests point it at a misbehaving script). */
export interface SelfTestChildOptions {
  /** The script the child runs (default: `sdk-self-test-main` next to this module). */
  readonly entry?: string;
  /** How long the child may run (default: 120 000 ms). */
  readonly timeoutMs?: number;
}

/**
 * Runs the behavioural self-test in a child process on the same SDK copy, synchronously; any doubt (the child
 * cannot start, crashes, times out or answers garbage) is a failure.
 *
 * @param options - another entry script or timeout (for tests)
 */
export function selfTestInChild(options: SelfTestChildOptions = {}): SelfTestResult {
  const here = fileURLToPath(import.meta.url);
  const fromSource = here.endsWith('.ts');
  const entry = options.entry ?? join(dirname(here), `sdk-self-test-main.${fromSource ? 'ts' : 'js'}`);
  const args = [entry];
  if (fromSource) {
    // Only when gate-audit runs from its TypeScript sources (its own tests): run them through jiti's CLI.
    const jiti = dirname(createRequire(import.meta.url).resolve('jiti/package.json'));
    args.unshift(join(jiti, 'lib/jiti-cli.mjs'));
  }
  const child = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: options.timeoutMs ?? 120_000,
    windowsHide: true,
  });
  const lines = (child.stdout ?? '').trim().split('\n');
  try {
    const result: unknown = JSON.parse(lines[lines.length - 1] ?? '');
    if (isSelfTestResult(result)) return result;
  } catch {
    // reported below
  }
  const why =
    child.error !== undefined
      ? child.error.message
      : `exit ${String(child.status ?? child.signal)}: ${(child.stderr ?? '').trim().split('\n').pop() ?? ''}`;
  return { ok: false, check: 'the self-test runs', detail: `it could not run (${why})` };
}
