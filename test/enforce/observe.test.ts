/**
 * The decision observer (`src/enforce/observe.ts`, what `gate-audit/otel` plugs into): it is told of every tool
 * decision with what decided it, and it can never change one, whatever it throws. The node-cancel side is pinned
 * in node-guard.test.ts ("the gate's record, the observer and stderr each get the cancel").
 *
 * Surviving mutants of observe.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `current === undefined` (→ `false`) in `observeTool` and `observeNode`: without an observer, reading
 *   `current.tool` throws before `make()` runs, and the `catch` swallows it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DecisionObserver,
  type NodeCancel,
  observeAllowedRun,
  setDecisionObserver,
  type ToolDecision,
} from '../../src/enforce/observe.js';
import { type Gate, GateFailedError, install } from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent, toolResults } from '../helpers/sdk.js';

isolateEachTest();
afterEach(() => setDecisionObserver(undefined));

const lsOnly: Gate = {
  name: 'ls-only',
  decide: (r) =>
    r.toolName === 'ls' ? { verdict: 'allow', rule: 'ls-ok' } : { verdict: 'deny', reason: 'only ls', rule: 'no-rm' },
};

function twoCalls(): ReturnType<typeof scriptedAgent> {
  return scriptedAgent('a', [call('ls', {}, 'u1'), call('rm', {}, 'u2'), say('done')], {
    tools: [recordingTool('ls'), recordingTool('rm')],
  });
}

describe('setDecisionObserver (the decision observer)', () => {
  describe('when the gate decides a call', () => {
    it('is told of each tool decision: the agent, the tool, the gate, the verdict and the rule or reason', async () => {
      const seen: Omit<ToolDecision, 'agent'>[] = [];
      const agents: unknown[] = [];
      const agent = twoCalls();
      setDecisionObserver({
        tool: ({ agent: who, ...rest }) => {
          agents.push(who);
          seen.push(rest);
        },
        node: () => undefined,
      });
      install(agent, { gate: lsOnly });
      await agent.invoke('go');
      expect(agents).toEqual([agent, agent]);
      expect(seen).toEqual([
        { agentId: 'a', toolName: 'ls', toolUseId: 'u1', gate: 'ls-only', verdict: 'allow', rule: 'ls-ok' },
        {
          agentId: 'a',
          toolName: 'rm',
          toolUseId: 'u2',
          gate: 'ls-only',
          verdict: 'deny',
          rule: 'no-rm',
          reason: 'only ls',
        },
      ]);
    });
  });

  describe('when the gate throws', () => {
    it('observes the gate error as error', async () => {
      const seen: ToolDecision[] = [];
      setDecisionObserver({ tool: (d) => void seen.push(d), node: () => undefined });
      const agent = twoCalls();
      install(agent, {
        gate: {
          name: 'broken',
          decide: () => {
            throw new Error('down');
          },
        },
      });
      await expect(agent.invoke('go')).rejects.toBeInstanceOf(GateFailedError);
      expect(seen.map((d) => [d.toolName, d.verdict])).toEqual([['ls', 'error']]);
    });
  });

  describe('when the observer throws on every call', () => {
    it('changes no decision', async () => {
      const told: string[] = [];
      setDecisionObserver({
        tool: (d) => {
          told.push(`${d.toolName}:${d.verdict}`);
          throw new Error('observer down');
        },
        node: (c: NodeCancel) => {
          throw new Error(`observer down ${c.nodeId}`);
        },
      });
      const agent = twoCalls();
      install(agent, { gate: lsOnly });
      const result = await agent.invoke('go');
      expect(result.stopReason).toBe('endTurn');
      expect(told).toEqual(['ls:allow', 'rm:deny']);
      expect(ran).toEqual(['ls({})@a']);
      expect(toolResults(agent)).toEqual(['success:ok ls', expect.stringMatching(/^error:\[gate\] BLOCKED: only ls/)]);
    });
  });

  describe('when the observer was removed', () => {
    it('is told nothing more', async () => {
      const seen: ToolDecision[] = [];
      setDecisionObserver({ tool: (d) => void seen.push(d), node: () => undefined });
      setDecisionObserver(undefined);
      const agent = twoCalls();
      install(agent, { gate: lsOnly });
      await agent.invoke('go');
      expect(seen).toEqual([]);
      expect(ran).toEqual(['ls({})@a']);
    });
  });
});

describe('observeAllowedRun', () => {
  const decision: ToolDecision = {
    framework: 'langgraph',
    agentId: 'a',
    toolName: 't',
    toolUseId: 'c',
    verdict: 'allow',
  };
  const told: ToolDecision[] = [];
  const observing = (allowedRun: DecisionObserver['allowedRun']): void =>
    setDecisionObserver({
      tool: (d) => void told.push(d),
      node: () => undefined,
      ...(allowedRun === undefined ? {} : { allowedRun }),
    });

  describe('when the observer runs the call it is given, or has no allowedRun', () => {
    it('runs the call once, inside the observer, and gives its result (an observer without allowedRun just runs it)', () => {
      let runs = 0;
      const seen: ToolDecision[] = [];
      expect(
        observeAllowedRun(
          () => decision,
          () => (runs += 1),
        ),
      ).toBe(1);
      observing(undefined);
      expect(
        observeAllowedRun(
          () => decision,
          () => (runs += 1),
        ),
      ).toBe(2);
      observing((d, run) => {
        seen.push(d);
        return run();
      });
      expect(
        observeAllowedRun(
          () => decision,
          () => (runs += 1),
        ),
      ).toBe(3);
      expect(seen).toEqual([decision]);
      // The observer is told of each allowed call once, whether it runs calls or not.
      expect(told).toEqual([decision, decision]);
    });
  });

  describe('when the observer throws, skips the call or runs it twice, or the decision throws', () => {
    it('can never change the call', () => {
      let runs = 0;
      const run = (): number => (runs += 1);
      observing(() => {
        throw new Error('observer broke');
      });
      expect(observeAllowedRun(() => decision, run)).toBe(1);
      observing(() => 'forged' as never);
      expect(observeAllowedRun(() => decision, run)).toBe(2);
      observing((_d, inner) => {
        inner();
        return inner();
      });
      expect(() => observeAllowedRun(() => decision, run)).toThrow(/ran an allowed call twice/);
      expect(runs).toBe(3);
      observing((_d, inner) => inner());
      expect(
        observeAllowedRun(() => {
          throw new Error('no decision');
        }, run),
      ).toBe(4);
      // The call's own error is the call's: it is not run again.
      expect(() =>
        observeAllowedRun(
          () => decision,
          () => {
            runs += 1;
            throw new Error('tool failed');
          },
        ),
      ).toThrow('tool failed');
      expect(runs).toBe(5);
    });
  });
});
