/**
 * A governed custom executor's run is stepped in the run context whatever iterator its `stream` returns: the
 * SDK's `AgentNode` calls only `next`, so an executor returning a plain object with `next` ran its steps outside
 * the context, and its agent did not join the root run (found by an attack: `ls` ran after a fan-out sibling's
 * gate failure had stopped the run, while the audit said attested).
 */
import type { Agent, AgentResult } from '@strands-agents/sdk';
import { AgentNode, Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { GOVERNS, type GovernanceDeclaration, installMultiagent } from '../../src/index.js';
import { deferred } from '../helpers/deferred.js';
import {
  call,
  isolateEachTest,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
  throwsOnRm,
  waitTool,
} from '../helpers/sdk.js';

isolateEachTest();

/** A custom executor whose stream hands back a plain async iterator: `next` only, or `next` and `return`. */
class Team {
  readonly id = 'team';
  constructor(
    readonly agent: Agent,
    private readonly _withReturn: boolean,
  ) {}
  [GOVERNS](): GovernanceDeclaration {
    return { agents: [this.agent] };
  }
  stream(input: unknown): AsyncIterator<unknown, AgentResult> {
    let done = false;
    const agent = this.agent;
    const iterator: AsyncIterator<unknown, AgentResult> = {
      async next() {
        if (done) throw new Error('over');
        done = true;
        // Its agent runs with a fresh invocationState, as the README warns against.
        const result = await agent.invoke(String(input));
        return { done: true, value: result };
      },
    };
    if (this._withReturn) iterator.return = async (value) => ({ done: true, value: value as AgentResult });
    return iterator;
  }
}

describe('node-run: a governed custom executor whose stream is not an async generator', () => {
  for (const withReturn of [false, true]) {
    describe(`when the iterator has next${withReturn ? ' and return' : ' only'}`, () => {
      it("a fan-out sibling's gate failure stops the executor's agent", async () => {
        const failed = deferred();
        const inner = scriptedAgent('inner', [call('hold'), call('ls'), say('done')], {
          tools: [waitTool(failed.promise, undefined, 'hold'), recordingTool('ls')],
        });
        const sibling = scriptedAgent('sibling', [call('rm', { path: '/x' }), say('x')], {
          tools: [recordingTool('rm')],
        });
        const team = new Team(inner, withReturn);
        const graph = new Graph({
          id: 'g',
          nodes: [new AgentNode({ agent: team as never }), sibling],
          edges: [],
          maxSteps: 5,
        });
        installMultiagent(graph, { gate: throwsOnRm(failed.resolve) });
        await runOrchestrator(graph);
        expect(ran).toEqual(['hold@inner']);
      });
    });
  }
});
