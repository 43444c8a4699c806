/**
 * The process guard on LangGraph.js (`fixtures/guard/langgraph.mjs`, a process of its own: the guard cannot be
 * taken down): a graph starting a root run must carry one of the guard's gates, whether it is ungated, gated by
 * another gate, or a graph of the CommonJS build; a graph run inside a gated run is the gated graph's business.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';

interface Attempt {
  readonly ok: boolean;
  readonly code?: string;
  readonly failure?: string;
  readonly modelCalls?: number;
}

function scenario(env: Record<string, string> = {}): Record<string, Attempt> & { ranTools: string[] } {
  const run = spawnSync(process.execPath, [join(root, 'fixtures/guard/langgraph.mjs')], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = run.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as Record<string, Attempt> & { ranTools: string[] };
  } catch {
    throw new Error(`the scenario printed no result: ${run.stderr}`);
  }
}

describe('guardProcess on LangGraph graphs', () => {
  describe("with onUngated: 'refuse'", () => {
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
  });

  describe("with onUngated: 'install'", () => {
    it("gates an ungated graph with the guard's first gate and runs it; another gate is still refused", () => {
      const outcome = scenario({ GUARD_ON_UNGATED: 'install' });
      expect(outcome.loose).toMatchObject({ ok: true, modelCalls: 2 });
      expect(outcome.cjs).toMatchObject({ ok: true });
      expect(outcome.otherGate).toMatchObject({ ok: false, code: 'GATE_FAILED', modelCalls: 0 });
      expect(outcome.otherGate?.failure).toMatch(/could not gate graph "other-gate"/);
    });
  });
});
