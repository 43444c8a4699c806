/**
 * The process guard on LangGraph.js (`fixtures/guard/langgraph.mjs`, a process of its own: the guard cannot be
 * taken down): a graph starting a root run must carry one of the guard's gates, whether it is ungated, gated by
 * another gate, or a graph of the CommonJS build; so must a graph a gated run starts that is no part of its tree.
 * The same holds for the guard of `gate-audit/langgraph` in an app without the Strands SDK, and that guard, which
 * has no Strands part, refuses a copy of the SDK whole. Copies loaded before the guard, by `require()` of an ES
 * module, or under URLs an app's loader hook gives, are stood on too.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

interface Attempt {
  readonly ok: boolean;
  readonly code?: string;
  readonly failure?: string;
  readonly modelCalls?: number;
  readonly toolsRan?: number;
}

/** Where the guard comes from: the main entry, or `gate-audit/langgraph` where the SDK cannot be resolved. */
const ENTRIES = [
  { entry: 'gate-audit', args: [] },
  {
    entry: 'gate-audit/langgraph',
    args: ['--import', pathToFileURL(join(root, 'test/helpers/no-strands-register.mjs')).href],
  },
] as const;

function run(file: string, args: readonly string[], env: Record<string, string>): string {
  const done = spawnSync(process.execPath, [...args, join(root, file)], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = done.stdout.trim().split('\n').pop() ?? '';
  try {
    JSON.parse(line);
  } catch {
    throw new Error(`the scenario printed no result: ${done.stderr}`);
  }
  return line;
}

describe.each(ENTRIES)('guardProcess of $entry on LangGraph graphs', ({ entry, args }) => {
  const scenario = (env: Record<string, string> = {}): Record<string, Attempt> & { ranTools: string[] } =>
    JSON.parse(run('fixtures/guard/langgraph.mjs', args, { GUARD_ENTRY: entry, ...env })) as Record<string, Attempt> & {
      ranTools: string[];
    };

  describe("when onUngated is 'refuse'", () => {
    let outcome: ReturnType<typeof scenario> = { ranTools: [] } as unknown as ReturnType<typeof scenario>;
    beforeAll(() => {
      outcome = scenario();
    });

    it('refuses an ungated createAgent agent before its model is called, naming it', () => {
      expect(outcome.loose).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(outcome.loose?.failure).toContain(
        `graph "loose" (LangGraph) is unguarded: it carries none of the process guard's gates ("main")`,
      );
    });

    it('refuses an ungated graph started by transform, or piped into a chain (ways that reach no stream)', () => {
      expect(outcome.transform).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(outcome.transform?.failure).toContain(`graph "transformed" (LangGraph) is unguarded`);
      expect(outcome.piped).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
    });

    it("refuses a graph gated by another gate than the guard's", () => {
      expect(outcome.otherGate).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
    });

    it("lets a graph gated by the guard's gate run, and a gated graph's nested graph with it", () => {
      expect(outcome.gated).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.nested).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.ranTools).toEqual(['shell', 'shell']);
    });

    it('refuses an ungated graph of the CommonJS build required after the guard started', () => {
      expect(outcome.cjs).toMatchObject({ ok: false, code: 'GATE_FAILED' });
    });

    it("refuses an agent of no tree that a gated agent's middleware hook invokes, and the gated run with it", () => {
      expect(outcome.hidden).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0, toolsRan: 0 });
      expect(outcome.hidden?.failure).toContain(`graph "shadow" (LangGraph) is unguarded`);
      // A hook that swallows the refusal: the gated run still rejects, and no tool of it ran.
      expect(outcome.hiddenCaught).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0, toolsRan: 0 });
    });
  });

  describe("when onUngated is 'install'", () => {
    it("gates an ungated graph with the guard's first gate and runs it; another gate is still refused", () => {
      const outcome = scenario({ GUARD_ON_UNGATED: 'install' });
      expect(outcome.loose).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.cjs).toMatchObject({ ok: true });
      expect(outcome.transform).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.piped).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.otherGate).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(outcome.otherGate?.failure).toMatch(/could not gate graph "other-gate"/);
      // The agent a gated agent's hook invokes is gated too, and runs.
      expect(outcome.hidden).toMatchObject({ ok: true, modelCalls: 2, toolsRan: 2 });
    });
  });
});

describe('guardProcess of gate-audit/langgraph', () => {
  describe('when the Strands SDK is installed', () => {
    type Outcome = Record<string, Attempt & { message?: string }> & { ran: string[] };
    const outcome = (env: Record<string, string>): Outcome =>
      JSON.parse(run('fixtures/guard/strands-without-stand.mjs', [], env)) as Outcome;
    const refusal =
      /^an agent or orchestrator of @strands-agents\/sdk \(.*\) is about to run, and the process guard has no Strands part to judge it .* \| start the guard with guardProcess from 'gate-audit'/;

    it.each([
      ['imported or required after it started', {}],
      ['imported before it started', { STRANDS_BEFORE: '1' }],
    ])('refuses the SDK whole, %s: no agent or orchestrator of it calls its model or runs a tool', (_when, env) => {
      const seen = outcome(env);
      expect(seen.start).toMatchObject({ ok: true });
      // Loading it is not refused (a copy refused at its import could still be taken from a cache): running it is.
      expect(seen.required).toMatchObject({ ok: true });
      expect(seen.agent).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(seen.agent?.failure).toMatch(refusal);
      expect(seen.swarm).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(seen.shadowed).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(seen.ran).toEqual([]);
      // The refusal is fixed in place, and the main entry imported afterwards cannot lift it.
      expect(seen.restore).toMatchObject({ ok: false, name: 'TypeError' });
      expect(seen.mainEntry).toMatchObject({ ok: false, code: 'SDK_SHAPE' });
      expect(seen.mainEntry?.message).toMatch(/its invokeCallbacks/);
      expect(seen.afterMain).toMatchObject({ ok: false, code: 'GATE_FAILED' });
    });
  });

  describe('when a Strands copy had its runs fixed in place before it', () => {
    it('does not start (SDK_SHAPE, naming the member): it could not refuse those runs', () => {
      const seen = JSON.parse(run('fixtures/guard/strands-without-stand.mjs', [], { FIXED_RUNS: '1' })) as Record<
        string,
        Attempt & { message?: string }
      >;
      expect(seen.start).toMatchObject({ ok: false, code: 'SDK_SHAPE' });
      expect(seen.start?.message).toMatch(/its Agent\.stream was fixed in place, so its runs cannot be refused/);
    });
  });
});

describe.each(ENTRIES)('guardProcess of $entry', ({ entry, args }) => {
  describe('when LangGraph was imported before it', () => {
    const outcome = (env: Record<string, string>): Record<string, Attempt & { message?: string }> & { ran: string[] } =>
      JSON.parse(run('fixtures/guard/langgraph-before.mjs', args, { GUARD_ENTRY: entry, ...env })) as Record<
        string,
        Attempt & { message?: string }
      > & { ran: string[] };

    it('stands on the ES module build imported first (a static import): an ungated graph of it is refused', () => {
      const esm = outcome({});
      expect(esm.start).toMatchObject({ ok: true });
      expect(esm.loose).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      expect(esm.ran).toEqual([]);
    });

    it('without an inspector to list what was imported, stands on every copy on disk', () => {
      const envs: Record<string, string>[] = [{ NO_INSPECTOR: '1' }, { NO_INSPECTOR: '1', LANGGRAPH_CJS: '1' }];
      for (const env of envs) {
        const blind = outcome(env);
        expect(blind.start).toMatchObject({ ok: true });
        expect(blind.loose).toMatchObject({ ok: false, code: 'GATE_FAILED' });
        expect(blind.ran).toEqual([]);
      }
    });

    it('stands on the CommonJS build required first (found in require.cache): an ungated graph of it is refused', () => {
      const cjs = outcome({ LANGGRAPH_CJS: '1' });
      expect(cjs.start).toMatchObject({ ok: true });
      expect(cjs.loose).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      expect(cjs.ran).toEqual([]);
    });
  });
});

describe.each(['gate-audit/langgraph', 'gate-audit'])('guardProcess of %s', (entry) => {
  describe('when copies are reached past its loader hooks', () => {
    type Outcome = Record<string, Attempt> & { ran: string[] };
    const outcome = (env: Record<string, string>): Outcome =>
      JSON.parse(run('fixtures/guard/langgraph-loaded.mjs', [], { GUARD_ENTRY: entry, ...env })) as Outcome;

    it("stands on LangGraph's ES module build loaded by require() (its modules pass no loader hook)", () => {
      const required = outcome({});
      expect(required.loose).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      expect(required.ran).toEqual([]);
    });

    it("recognises copies an app's loader hook serves under other URLs (an empty segment, another scheme)", () => {
      const odd = outcome({ ODD_URLS: '1' });
      expect(odd.loose).toMatchObject({ ok: false, code: 'GATE_FAILED' });
      expect(odd.strands).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      // A copy refused whole runs nothing even where an instance's registry gets a dispatch of its own.
      expect(odd.shadowed).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(odd.ran).toEqual([]);
    });
  });
});
