/**
 * The SDK check before use: the shape self-check refuses an SDK whose internals gate-audit cannot read,
 * and an SDK outside the tested range (`sdk-version.test.ts`) is warned about once, self-tested, or refused on
 * request. Versions are simulated at the version read (`setSdkVersionReader`), never by changing the installed
 * package. Each test of the block "sdk-check.ts, line by line" fails when the line it names is changed; the
 * self-test child is pointed at small scripts that answer garbage, crash or hang
 * (`selfTestInChild({ entry, timeoutMs })`).
 *
 * Surviving mutants of sdk-check.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `isSelfTestResult`'s `typeof value !== 'object' || value === null` (→ `false`, `&&`, either half): the next
 *   tests are false for a number or string, and `null.ok` throws inside the `try`, the same "could not run".
 * - `here.endsWith('.ts')` (→ `endsWith('')`), `fromSource` (→ `true`) and the `'js'` suffix: in-process tests run
 *   the TypeScript source, where the three agree.
 * - the `stdio` option (→ `[]`, an entry → `''`): spawnSync pipes a missing entry, and a piped stdin with no
 *   `input` is closed at once, as `ignore` would be.
 * - `windowsHide: true` (→ `false`): no effect outside Windows.
 * - the `?? ''` fallbacks of `child.stdout`, `child.stderr`, the last line and `pop()`: with `encoding: 'utf8'`
 *   and piped streams they are strings whenever the child was spawned, and `split` returns an element.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Graph } from '@strands-agents/sdk/multiagent';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  allowAll,
  audit,
  GateAuditError,
  hasNodeGuard,
  install,
  installMultiagent,
  isGated,
  plan,
} from '../../../src/index.js';
import type * as SdkCheckModule from '../../../src/frameworks/strands/sdk-check.js';
import { ensureSdk, selfTestInChild, setSdkCheckForTests } from '../../../src/frameworks/strands/sdk-check.js';
import { SELF_TEST_CHECKS } from '../../../src/frameworks/strands/sdk-self-test.js';
import { mergeGenerators } from '../../../src/report/generator.js';
import { CoverageReportSchema } from '../../../src/report/schema.js';
import type * as SdkVersionModule from '../../../src/frameworks/strands/sdk-version.js';
import { SDK_TESTED, setSdkVersionReader } from '../../../src/frameworks/strands/sdk-version.js';
import { makeSdkProbes } from '../../../src/frameworks/strands/sdk-shape.js';
import { toolCallHooks } from '../../../src/frameworks/strands/sdk-internals.js';
import { cli, root } from '../../helpers/cli.js';
import { scriptedAgent, say } from '../../helpers/sdk.js';

const RANGE = `>=${SDK_TESTED.min} <=${SDK_TESTED.max}`;
const pkg = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as {
  version: string;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

let warnings: string[];
beforeEach(() => {
  warnings = [];
  vi.spyOn(console, 'warn').mockImplementation((line: unknown) => void warnings.push(String(line)));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  setSdkVersionReader();
  setSdkCheckForTests();
  vi.restoreAllMocks();
});

function pretend(version: string): void {
  setSdkVersionReader(() => ({ version, where: '(simulated by the test)' }));
}

const selfTestPasses = (): { ok: true; checks: string[] } => ({ ok: true, checks: ['simulated'] });

function smallGraph(): { graph: Graph; agent: ReturnType<typeof scriptedAgent> } {
  const agent = scriptedAgent('writer', [say('done')]);
  return { graph: new Graph({ id: 'small', nodes: [agent], edges: [], maxSteps: 4 }), agent };
}

/** Probes with one private field renamed, as a future SDK release might. */
function renamedProbes() {
  const probes = makeSdkProbes();
  const registry = (probes.agent as unknown as { _hooksRegistry: Record<string, unknown> })._hooksRegistry;
  registry._callbackMap = registry._callbacks;
  delete registry._callbacks;
  return probes;
}

const sdkWarnings = (): string[] => warnings.filter((w) => w.startsWith('[gate-audit] WARN'));

describe('ensureSdk (at the first install, audit or plan)', () => {
  describe('when the SDK version is inside the tested range', () => {
    it('installs with no warning and no self-test', () => {
      pretend(SDK_TESTED.max);
      setSdkCheckForTests({
        selfTest: () => {
          throw new Error('the self-test must not run inside the range');
        },
      });
      installMultiagent(smallGraph().graph, { gate: allowAll(), requireTestedSdk: true });
      expect(sdkWarnings()).toEqual([]);
    });
  });

  describe('when the SDK version is outside the tested range (simulated at the version read)', () => {
    it('prints one WARN line naming the version and the range, at the first install or audit only', () => {
      pretend('1.25.0');
      setSdkCheckForTests({ selfTest: selfTestPasses });
      const { graph } = smallGraph();
      audit(graph);
      installMultiagent(graph, { gate: allowAll() });
      install(scriptedAgent('lone', [say('hi')]), { gate: allowAll() });
      plan(smallGraph().graph);
      expect(sdkWarnings()).toHaveLength(1);
      expect(sdkWarnings()[0]).toContain('sdk=<1.25.0>');
      expect(sdkWarnings()[0]).toContain(`tested=<${SDK_TESTED.min} to ${SDK_TESTED.max}>`);
    });

    it('warns for an older version too', () => {
      pretend('1.10.0');
      setSdkCheckForTests({ selfTest: selfTestPasses });
      installMultiagent(smallGraph().graph, { gate: allowAll() });
      expect(sdkWarnings()[0]).toContain('sdk=<1.10.0>');
    });

    it('with requireTestedSdk: true, installMultiagent refuses with SDK_UNTESTED and changes nothing', () => {
      pretend('1.25.0');
      const { graph, agent } = smallGraph();
      const hooks = toolCallHooks(agent)?.length;
      const error = (() => {
        try {
          installMultiagent(graph, { gate: allowAll(), requireTestedSdk: true });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(GateAuditError);
      expect((error as GateAuditError).code).toBe('SDK_UNTESTED');
      expect((error as Error).message).toContain('sdk=<1.25.0>');
      expect((error as Error).message).toContain(RANGE);
      expect(isGated(agent)).toBe(false);
      expect(hasNodeGuard(graph)).toBe(false);
      expect(toolCallHooks(agent)?.length).toBe(hooks);
    });

    it('with requireTestedSdk: true, install refuses a single agent the same way', () => {
      pretend('1.25.0');
      const agent = scriptedAgent('lone', [say('hi')]);
      expect(() => install(agent, { gate: allowAll(), requireTestedSdk: true })).toThrow(
        expect.objectContaining({ code: 'SDK_UNTESTED' }),
      );
      expect(isGated(agent)).toBe(false);
    });

    it('refuses with SDK_BEHAVIOUR, naming the failed check, when the behavioural self-test fails', () => {
      pretend('1.25.0');
      setSdkCheckForTests({
        selfTest: () => ({
          ok: false,
          check: "a denied tool's body does not run",
          detail: 'the denied tool ran 1 time(s)',
        }),
      });
      const { graph, agent } = smallGraph();
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(
        expect.objectContaining({ code: 'SDK_BEHAVIOUR' }),
      );
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(/check=<a denied tool's body/);
      expect(isGated(agent)).toBe(false);
      expect(hasNodeGuard(graph)).toBe(false);
      expect(() => audit(graph)).toThrow(expect.objectContaining({ code: 'SDK_BEHAVIOUR' }));
    });

    it('runs the real self-test (in a child process) once per process, and it passes on this SDK', () => {
      pretend('1.25.0');
      const results: unknown[] = [];
      setSdkCheckForTests({
        selfTest: () => {
          const result = selfTestInChild();
          results.push(result);
          return result;
        },
      });
      const { graph, agent } = smallGraph();
      installMultiagent(graph, { gate: allowAll() });
      installMultiagent(smallGraph().graph, { gate: allowAll() });
      expect(results).toEqual([{ ok: true, checks: [...SELF_TEST_CHECKS] }]);
      expect(isGated(agent)).toBe(true);
    }, 60_000);
  });

  describe('when the SDK internals changed shape (a probe with a private field renamed)', () => {
    it('installMultiagent refuses with SDK_SHAPE naming the field, the object and the version, and changes nothing', () => {
      setSdkCheckForTests({ probes: renamedProbes });
      const { graph, agent } = smallGraph();
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (e) {
        error = e;
      }
      expect((error as GateAuditError).code).toBe('SDK_SHAPE');
      expect((error as Error).message).toMatch(
        /^sdk=<1\.\d+\.\d+>, object=<Agent>, field=<_hooksRegistry\._callbacks> \| .*nothing was changed \| use @strands-agents\/sdk >=/,
      );
      expect((error as Error).message).not.toContain('\n');
      expect(isGated(agent)).toBe(false);
      expect(hasNodeGuard(graph)).toBe(false);
    });

    it('install refuses too, and audit never reports a gated row', () => {
      setSdkCheckForTests({ probes: renamedProbes });
      const agent = scriptedAgent('lone', [say('hi')]);
      expect(() => install(agent, { gate: allowAll() })).toThrow(expect.objectContaining({ code: 'SDK_SHAPE' }));
      expect(() => audit(smallGraph().graph)).toThrow(expect.objectContaining({ code: 'SDK_SHAPE' }));
    });

    it('probes that cannot even be built refuse as well', () => {
      setSdkCheckForTests({
        probes: () => {
          throw new Error('constructor changed');
        },
      });
      expect(() => installMultiagent(smallGraph().graph, { gate: allowAll() })).toThrow(
        expect.objectContaining({ code: 'SDK_SHAPE' }),
      );
      expect(() => audit(smallGraph().graph)).toThrow(/constructor changed/);
    });
  });
});

describe('gate-audit (the CLI)', () => {
  describe('when the SDK is refused or untested', () => {
    it('exits 2 with the same SDK_SHAPE line, naming the field, before loading any module', async () => {
      setSdkCheckForTests({ probes: renamedProbes });
      const { code, out, err } = await cli('fixtures/graphs/gated-app.ts');
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(/^gate-audit: sdk=<[^>]+>, object=<Agent>, field=<_hooksRegistry\._callbacks> \| .+\n$/);
    });

    it('--require-tested-sdk on an untested version exits 2 with SDK_UNTESTED; without it the audit runs after one WARN', async () => {
      pretend('1.25.0');
      setSdkCheckForTests({ selfTest: selfTestPasses });
      const refused = await cli('--require-tested-sdk', 'fixtures/graphs/gated-app.ts');
      expect(refused.code).toBe(2);
      expect(refused.err).toContain('sdk=<1.25.0>, tested=<');
      expect(refused.err).toContain('outside the range gate-audit was tested on');
      const ran = await cli('--format', 'json', 'fixtures/graphs/gated-app.ts');
      expect(ran.code).toBe(0);
      expect(sdkWarnings()).toHaveLength(1);
      const report = CoverageReportSchema.parse(JSON.parse(ran.out));
      expect(report.generator).toEqual({ name: 'gate-audit', version: pkg.version, sdk: '1.25.0', sdkTested: false });
    });
  });

  describe('when asked for its version or a bundle report', () => {
    it('--version prints gate-audit, the SDK found and where, and the tested range', async () => {
      const { code, out } = await cli('--version');
      expect(code).toBe(0);
      const lines = out.trim().split('\n');
      expect(lines[0]).toBe(`gate-audit ${pkg.version}`);
      expect(lines[1]).toMatch(
        /^@strands-agents\/sdk 1\.\d+\.\d+ \(.*node_modules\/@strands-agents\/sdk\/package\.json\): inside the tested range$/,
      );
      expect(lines[2]).toBe(`tested range: @strands-agents/sdk ${RANGE}`);
      // Then each LangGraph.js package installed (all three are, here), with its own tested range.
      expect(lines.slice(3)).toEqual([
        expect.stringMatching(/^@langchain\/langgraph \d+\.\d+\.\d+: inside the tested range \(>=\S+ <=\S+\)$/),
        expect.stringMatching(/^langchain \d+\.\d+\.\d+: inside the tested range \(>=\S+ <=\S+\)$/),
        expect.stringMatching(/^@langchain\/core \d+\.\d+\.\d+: inside the tested range \(>=\S+ <=\S+\)$/),
      ]);
      pretend('1.25.0');
      expect((await cli('--version')).out).toContain('@strands-agents/sdk 1.25.0 ((simulated by the test)): OUTSIDE');
    });

    it('a bundle report carries one generator, tested only when every part was', async () => {
      const { out } = await cli('--format', 'json', 'fixtures/graphs/gated-app.ts', 'fixtures/graphs/mixed-graph.ts');
      const report = CoverageReportSchema.parse(JSON.parse(out));
      expect(report.root.kind).toBe('bundle');
      expect(report.generator).toMatchObject({ name: 'gate-audit', version: pkg.version, sdkTested: true });
    });
  });
});

describe('the generator of a report', () => {
  describe('when audit and plan write a report', () => {
    it('is in every report audit and plan write', () => {
      const generator = audit(smallGraph().graph).generator;
      expect(generator).toMatchObject({ name: 'gate-audit', version: pkg.version, sdkTested: true });
      expect(plan(smallGraph().graph).generator).toEqual(generator);
    });
  });

  describe('when reports are merged', () => {
    it('of a merged report is sdkTested only when every part is', () => {
      const tested = { name: 'gate-audit' as const, version: '0.1.0', sdk: '1.19.0', sdkTested: true };
      expect(mergeGenerators([tested, tested])).toEqual(tested);
      expect(mergeGenerators([tested, { ...tested, sdk: '1.25.0', sdkTested: false }])).toEqual({
        ...tested,
        sdk: '1.19.0, 1.25.0',
        sdkTested: false,
      });
      expect(mergeGenerators([tested, undefined]).sdkTested).toBe(false);
      expect(mergeGenerators([]).sdkTested).toBe(false);
    });
  });
});

describe('sdk-check.ts, line by line', () => {
  describe('when the check runs in this process', () => {
    it('checks the shape once per process: later installs and audits do not build the probes again', () => {
      let built = 0;
      setSdkCheckForTests({
        probes: () => {
          built += 1;
          return makeSdkProbes();
        },
      });
      installMultiagent(smallGraph().graph, { gate: allowAll() });
      install(scriptedAgent('lone', [say('hi')]), { gate: allowAll() });
      audit(smallGraph().graph);
      expect(built).toBe(1);
    });

    it('probes that cannot be built are named as such in the SDK_SHAPE line', () => {
      setSdkCheckForTests({
        probes: () => {
          throw new Error('constructor changed\nsecond line');
        },
      });
      expect(() => ensureSdk()).toThrow(
        /object=<probe objects>, field=<\(construction\)> \| .*expected probe objects built without error, found an error: constructor changed; nothing was changed/,
      );
    });

    it('every refusal and the warning say how to get past them', () => {
      pretend('1.25.0');
      expect(() => ensureSdk({ requireTested: true })).toThrow(
        `install @strands-agents/sdk ${RANGE}, or drop --require-tested-sdk / requireTestedSdk to run after a behavioural self-test`,
      );
      setSdkCheckForTests({ selfTest: () => ({ ok: false, check: 'hooks', detail: 'the hooks ran as first' }) });
      expect(() => ensureSdk()).toThrow(
        `sdk=<1.25.0>, check=<hooks> | the behavioural self-test failed on this @strands-agents/sdk (the hooks ran as first); nothing was changed | use @strands-agents/sdk ${RANGE} (tested)`,
      );
      expect(sdkWarnings()).toEqual([
        `[gate-audit] WARN sdk=<1.25.0>, tested=<${SDK_TESTED.min} to ${SDK_TESTED.max}> | @strands-agents/sdk 1.25.0 is outside the range gate-audit was tested on; its behaviour is checked once before use | install a tested version, or pass --require-tested-sdk (requireTestedSdk: true) to refuse untested versions`,
      ]);
    });
  });

  describe('when in a fresh copy of the module (a new process, as far as its state goes)', () => {
    // The copies imported here (one marked as the self-test's process) must not be the ones later test files
    // import when they share this module cache (vitest.mutation.config.ts runs files with `isolate: false`).
    afterEach(() => vi.resetModules());

    async function freshModules(): Promise<{
      check: typeof SdkCheckModule;
      version: typeof SdkVersionModule;
    }> {
      vi.resetModules();
      const check = await import('../../../src/frameworks/strands/sdk-check.js');
      const version = await import('../../../src/frameworks/strands/sdk-version.js');
      return { check, version };
    }

    it('the first use of an untested SDK warns, without anything reset before', async () => {
      const { check, version } = await freshModules();
      version.setSdkVersionReader(() => ({ version: '1.25.0', where: '(simulated by the test)' }));
      // The real self-test, in a child process (it passes on this SDK): nothing is replaced, nothing reset.
      expect(check.ensureSdk().tested).toBe(false);
      expect(check.ensureSdk().tested).toBe(false);
      expect(sdkWarnings()).toHaveLength(1);
      expect(sdkWarnings()[0]).toContain('sdk=<1.25.0>');
    }, 60_000);

    it("the self-test's own process neither warns nor self-tests nor refuses an untested SDK", async () => {
      const { check, version } = await freshModules();
      version.setSdkVersionReader(() => ({ version: '1.25.0', where: '(simulated by the test)' }));
      check.setSdkCheckForTests({
        selfTest: () => {
          throw new Error('the self-test must not run inside the self-test');
        },
      });
      check.markSelfTestProcess();
      expect(check.ensureSdk({ requireTested: true })).toMatchObject({ version: '1.25.0', tested: false });
      expect(sdkWarnings()).toEqual([]);
    });
  });

  describe('when the self-test child answers (any doubt is a failure)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gate-audit-self-test-'));
    function child(name: string, body: string, timeoutMs?: number): ReturnType<typeof selfTestInChild> {
      const entry = join(dir, `${name}.mjs`);
      writeFileSync(entry, body);
      return selfTestInChild({ entry, ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    }
    const couldNotRun = (why: string) => ({
      ok: false,
      check: 'the self-test runs',
      detail: `it could not run (${why})`,
    });

    it("takes the child's last line when it is a well-formed result, passed or failed", () => {
      expect(
        child('passes', `console.log('a log line'); console.log(JSON.stringify({ ok: true, checks: ['x'] }));`),
      ).toEqual({ ok: true, checks: ['x'] });
      expect(
        child('fails', `console.log(JSON.stringify({ ok: false, check: 'hooks', detail: 'ran as first' }));`),
      ).toEqual({ ok: false, check: 'hooks', detail: 'ran as first' });
    });

    it('an answer that is not a result (no checks, a truthy ok, a check that is not text, null, a number) fails', () => {
      const answers = [
        { ok: true },
        { ok: 'yes', checks: [] },
        // Shaped like a failure but with a truthy ok: it must not pass for a passed self-test.
        { ok: 'yes', check: 'c', detail: 'd' },
        { ok: false, check: 1, detail: 'd' },
        { ok: false, check: 'c' },
        null,
        7,
      ];
      const body = `const answers = ${JSON.stringify(answers)}; console.log(JSON.stringify(answers[Number(process.argv.at(-1))]));`;
      writeFileSync(join(dir, 'answers.mjs'), body);
      for (const [i] of answers.entries()) {
        const entry = join(dir, `answer-${i}.mjs`);
        writeFileSync(entry, `process.argv.push('${i}'); await import(${JSON.stringify(join(dir, 'answers.mjs'))});`);
        expect(selfTestInChild({ entry }), JSON.stringify(answers[i])).toEqual(couldNotRun('exit 0: '));
      }
    });

    it('a child that crashes is named with its exit code and the last line of its stderr', () => {
      expect(child('crash', `process.stderr.write('first\\nboom\\n'); process.exit(3);`)).toEqual(
        couldNotRun('exit 3: boom'),
      );
      expect(child('killed', `process.kill(process.pid, 'SIGKILL');`)).toEqual(couldNotRun('exit SIGKILL: '));
    });

    it('a child that does not answer in time fails with the spawn error', () => {
      const result = child('hangs', 'setInterval(() => undefined, 1000);', 300);
      expect(result).toMatchObject({ ok: false, check: 'the self-test runs' });
      expect((result as { detail: string }).detail).toMatch(/^it could not run \(spawnSync .* ETIMEDOUT\)$/);
    });

    it('installs on an untested SDK whose self-test child answers garbage are refused with SDK_BEHAVIOUR', () => {
      pretend('1.25.0');
      const entry = join(dir, 'garbage.mjs');
      writeFileSync(entry, `console.log('{"ok": "sure"}');`);
      setSdkCheckForTests({ selfTest: () => selfTestInChild({ entry }) });
      const { graph, agent } = smallGraph();
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(
        expect.objectContaining({ code: 'SDK_BEHAVIOUR' }),
      );
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(/check=<the self-test runs>/);
      expect(isGated(agent)).toBe(false);
    });
  });
});
