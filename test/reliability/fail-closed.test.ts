/**
 * The fail-closed matrix: every way the gate can fail, in every place an agent can sit. In every cell the
 * tool body never runs; a gate error (as opposed to a refusal) also stops the run.
 *
 * The single-agent cases of some failures are pinned in `test/enforce/agent-gate.test.ts`; this matrix
 * crosses them with the executors and the multi-agent places.
 */
import { writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Agent } from '@strands-agents/sdk';
import { Graph, Swarm } from '@strands-agents/sdk/multiagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  configureGate,
  type Decision,
  type Gate,
  GateFailedError,
  GatePlugin,
  type InstallOptions,
  install,
  installMultiagent,
  loadPolicy,
  NoGateError,
  PolicyError,
  type PolicyInput,
  policyGate,
} from '../../src/index.js';
import {
  call,
  handoff,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { watchToolResults } from '../helpers/reliability.js';

type Scripted = ReturnType<typeof scriptedAgent>;

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../.generated/fail-closed');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
isolateEachTest();

/** A gate that allows everything but `rm`, where `fail` decides instead. */
function failingOnRm(name: string, fail: () => unknown): Gate {
  return {
    name,
    decide: (request) => (request.toolName === 'rm' ? (fail() as Decision) : { verdict: 'allow' }),
  };
}

const askForRm: PolicyInput = {
  version: 1,
  default: 'allow',
  rules: [{ id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' }],
};

interface Failure {
  /** Builds the failing gate and the install options. */
  readonly options: () => InstallOptions;
  /** `ERROR`: a gate failure, the run stops. `BLOCKED`: a refusal, the model is told and may go on. */
  readonly kind: 'ERROR' | 'BLOCKED';
  readonly message: RegExp;
}

const failures: Record<string, Failure> = {
  'the gate throws': {
    options: () => ({
      gate: failingOnRm('throws', () => {
        throw new Error('gate crashed');
      }),
    }),
    kind: 'ERROR',
    message: /gate "throws" threw: gate crashed/,
  },
  'the gate rejects': {
    options: () => ({ gate: failingOnRm('rejects', () => Promise.reject(new Error('policy service down'))) }),
    kind: 'ERROR',
    message: /gate "rejects" threw: policy service down/,
  },
  'the gate hangs past the timeout': {
    options: () => ({ gate: failingOnRm('hangs', () => new Promise(() => undefined)), timeoutMs: 40 }),
    kind: 'ERROR',
    message: /gate "hangs" did not decide within 40 ms/,
  },
  'the gate allows, but only after the timeout': {
    options: () => ({
      gate: failingOnRm('late', () => new Promise((resolve) => setTimeout(() => resolve({ verdict: 'allow' }), 120))),
      timeoutMs: 30,
    }),
    kind: 'ERROR',
    message: /gate "late" did not decide within 30 ms/,
  },
  'the gate returns garbage': {
    options: () => ({ gate: failingOnRm('garbage', () => ({ verdict: 'yes please' })) }),
    kind: 'ERROR',
    message: /gate "garbage" answered garbage: decision verdict is "yes please"/,
  },
  'the gate returns a promise of garbage': {
    options: () => ({ gate: failingOnRm('garbage-later', () => Promise.resolve(42)) }),
    kind: 'ERROR',
    message: /answered garbage: decision is number, not an object/,
  },
  'the approver throws': {
    options: () => ({
      gate: policyGate(askForRm, {
        approver: () => {
          throw new Error('pager exploded');
        },
      }),
    }),
    kind: 'BLOCKED',
    message: /approval refused \(the approver failed: pager exploded\)/,
  },
  'the decision log destination fails': {
    options: () => ({
      gate: policyGate(askForRm, {
        approver: () => Promise.resolve(true),
        log: {
          destination: {
            // Fails on the record of the rm call (an agent-as-tool's wrapper call is logged first, fine).
            write: (line: string) => {
              if (line.includes('"toolName":"rm"')) throw new Error('disk gone');
            },
          },
        },
      }),
    }),
    kind: 'ERROR',
    message: /could not record the decision: the decision log failed: disk gone/,
  },
};

const rmTwice = [call('rm', { path: '/1' }), call('rm', { path: '/2' }), say('done')];

interface Place {
  /**
   * Builds the tree with the agent that calls `rm`, gated with `options`, and runs it; returns that agent and
   * whether the whole run failed (an agent invoked alone rejects with `GateFailedError`; an orchestrator
   * reports `FAILED`).
   */
  run(options: InstallOptions): Promise<{ agent: Scripted; failed: boolean }>;
}

/** Invokes an agent on its own: a run stopped by a gate failure rejects with `GateFailedError`, nothing else. */
async function invokeAlone(agent: Scripted): Promise<boolean> {
  try {
    await agent.invoke('go');
    return false;
  } catch (error) {
    expect(error).toBeInstanceOf(GateFailedError);
    return true;
  }
}

const resultsOf = new WeakMap<Agent, string[]>();
/** The agent that calls `rm`, with its tool results watched. */
// Not rmAgent of helpers/sdk.ts: its turns (rm twice by default) and config are chosen, and its results watched.
function rmAgent(id: string, turns = rmTwice, config: Parameters<typeof scriptedAgent>[2] = {}): Scripted {
  const agent = scriptedAgent(id, turns, { tools: [recordingTool('rm')], ...config });
  resultsOf.set(agent, watchToolResults(agent));
  return agent;
}

const places: Record<string, Place> = {
  'a single agent (sequential executor)': {
    async run(options) {
      const agent = rmAgent('solo', rmTwice, { toolExecutor: 'sequential' });
      install(agent, options);
      return { agent, failed: await invokeAlone(agent) };
    },
  },
  'a single agent (concurrent executor)': {
    async run(options) {
      const agent = rmAgent('solo', rmTwice, { toolExecutor: 'concurrent' });
      install(agent, options);
      return { agent, failed: await invokeAlone(agent) };
    },
  },
  'an agent built with GatePlugin': {
    async run(options) {
      const agent = rmAgent('plugged', rmTwice, { plugins: [new GatePlugin(options)] });
      return { agent, failed: await invokeAlone(agent) };
    },
  },
  'a graph node': {
    async run(options) {
      const agent = rmAgent('worker');
      const graph = new Graph({
        id: 'g',
        nodes: [scriptedAgent('first', [say('hi')]), agent],
        edges: [['first', 'worker']],
      });
      installMultiagent(graph, options);
      const { status } = await runOrchestrator(graph);
      return { agent, failed: status === 'FAILED' };
    },
  },
  'a swarm node': {
    async run(options) {
      const agent = rmAgent('member', [
        call('rm', { path: '/1' }),
        call('rm', { path: '/2' }),
        handoff(undefined, 'done'),
        say('-'),
      ]);
      const swarm = new Swarm({ id: 's', nodes: [agent], maxSteps: 4 });
      installMultiagent(swarm, options);
      const { status } = await runOrchestrator(swarm);
      return { agent, failed: status === 'FAILED' };
    },
  },
  'an agent used as a tool inside a nested graph': {
    async run(options) {
      const inner = rmAgent('helper');
      const outer = scriptedAgent('lead', [call('helper', { input: 'clean up' }), say('done')], { tools: [inner] });
      const nested = new Graph({ id: 'inner', nodes: [outer], edges: [] });
      const root = new Graph({ id: 'root', nodes: [nested], edges: [] });
      installMultiagent(root, options);
      const { status } = await runOrchestrator(root);
      return { agent: inner, failed: status === 'FAILED' };
    },
  },
};

describe('fail closed', () => {
  for (const [failureName, failure] of Object.entries(failures)) {
    describe(`when ${failureName}`, () => {
      for (const [placeName, place] of Object.entries(places)) {
        it(`in ${placeName}: the tool never runs${failure.kind === 'ERROR' ? ' and the run stops' : ''}`, async () => {
          const { agent, failed } = await place.run(failure.options());
          expect(ran).toEqual([]);
          // A gate failure stops the whole run: the agent's invocation, and any orchestrator around it, fails.
          expect(failed).toBe(failure.kind === 'ERROR');
          const results = resultsOf.get(agent) ?? [];
          expect(results[0]).toMatch(new RegExp(`^error:\\[gate\\] ${failure.kind}: `));
          expect(results[0]).toMatch(failure.message);
          if (failure.kind === 'ERROR') {
            // Stopped: no later tool call was made and the model was not asked again.
            expect(results).toHaveLength(1);
            expect(agent.model.calls).toBe(1);
          } else {
            // A refusal is not an error: the model is told, goes on, and its second rm is refused too.
            expect(results[1]).toMatch(/^error:\[gate\] BLOCKED: /);
          }
        });
      }
    });
  }

  describe('when the gate allows only after the timeout', () => {
    it('ignores a late allow: the refused call does not run when the gate finally answers', async () => {
      await places['a single agent (sequential executor)']!.run(
        failures['the gate allows, but only after the timeout']!.options(),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ran).toEqual([]);
    });
  });
  describe('when timeoutMs is left out or is not a positive number', () => {
    it('keeps InstallOptions without timeoutMs working and rejects a timeout that is not a positive number', () => {
      const gate: Gate = { name: 'ok', decide: () => ({ verdict: 'allow' }) };
      expect(() => install(scriptedAgent('x', [say('x')]), { gate })).not.toThrow();
      for (const timeoutMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY, '10' as unknown as number]) {
        expect(() => install(scriptedAgent('y', [say('x')]), { gate, timeoutMs })).toThrow(
          /timeoutMs must be a positive/,
        );
      }
    });
  });
  describe('when the policy file is invalid', () => {
    const files: Record<string, string | Buffer> = {
      'broken YAML': 'version: 1\nrules: [ {id: a, tools: [rm]\n',
      'an unknown verdict': 'version: 1\nrules:\n  - id: a\n    tools: [rm]\n    verdict: perhaps\n',
      'binary garbage': Buffer.from([0x00, 0xff, 0xfe, 0x7f, 0x00, 0x13, 0x37, 0xc3, 0x28, 0x0a, 0x00]),
      'an empty file': '',
    };
    for (const [what, content] of Object.entries(files)) {
      it(`(${what}) no gate exists, so GatePlugin refuses to run the agent and installMultiagent refuses the tree`, async () => {
        const file = join(scratch, `${what.replaceAll(' ', '-')}.yaml`);
        writeFileSync(file, content);
        // The app's startup: load the policy, then configure it. The load throws, so nothing is configured.
        expect(() => configureGate(policyGate(loadPolicy(file)))).toThrow(PolicyError);
        const agent = scriptedAgent('plugged', rmTwice, { tools: [recordingTool('rm')], plugins: [new GatePlugin()] });
        await expect(agent.invoke('go')).rejects.toThrow(NoGateError);
        const graph = new Graph({
          id: 'g',
          nodes: [scriptedAgent('w', rmTwice, { tools: [recordingTool('rm')] })],
          edges: [],
        });
        expect(() => installMultiagent(graph)).toThrow(NoGateError);
        expect(ran).toEqual([]);
      });
    }
  });
});
