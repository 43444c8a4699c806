/**
 * A node guard's note that an agent will start as its node is taken only by a start in the context the guard
 * ran in. An agent shared by a node and a governed custom node (the pattern that passes its invocationState on)
 * started by the custom node meanwhile runs at the custom node's place, never at the node's: a `paths:` allow of
 * the node's place does not hold for it (found by an attack: `rm /home/user` ran, judged at `sandbox/cleaner`).
 */
import type { Agent } from '@strands-agents/sdk';
import { tool } from '@strands-agents/sdk';
import { Graph, Node, type NodeResultUpdate } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type Gate,
  GOVERNS,
  type GovernanceDeclaration,
  installMultiagent,
  policyGate,
  type ToolCallRequest,
} from '../../src/index.js';
import { call, isolateEachTest, ran, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

/** The README's custom node: it declares its agent and passes the node's invocationState on. */
class ReviewStep extends Node {
  constructor(
    id: string,
    private readonly _agent: Agent,
    private readonly _passes = 1,
  ) {
    super(id, {});
  }
  [GOVERNS](): GovernanceDeclaration {
    return { agents: [this._agent] };
  }
  // eslint-disable-next-line require-yield -- the node answers once, at its end
  async *handle(
    input: unknown,
    _state: unknown,
    options?: { invocationState?: Record<string, unknown> },
  ): AsyncGenerator<never, NodeResultUpdate> {
    let result = await this._agent.invoke(`review: ${String(input)}`, { invocationState: options?.invocationState });
    for (let pass = 1; pass < this._passes; pass += 1) {
      result = await this._agent.invoke('again', { invocationState: options?.invocationState });
    }
    return { content: result.lastMessage.content };
  }
}

/** Allows rm only at sandbox/cleaner (and the waiting tool anywhere); records where each call was judged. */
function sandboxOnly(seen: [string, ToolCallRequest['paths']][]): Gate {
  const policy = policyGate({
    version: 1,
    default: 'deny',
    rules: [
      { id: 'sandbox-rm', tools: ['rm'], paths: ['sandbox/cleaner'], verdict: 'allow' },
      { id: 'hold', tools: ['hold'], verdict: 'allow' },
    ],
  });
  return {
    ...policy,
    decide: (request, context) => {
      seen.push([request.toolName, request.paths]);
      return policy.decide(request, context);
    },
  };
}

describe('run-state: a node start a guard let happen', () => {
  describe('when a fan-out sibling custom node starts the shared agent first', () => {
    it('runs it at the custom node place, where the allow of the node place does not hold', async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const x = scriptedAgent('cleaner', [call('rm', { path: '/home/user' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'sandbox', nodes: [new ReviewStep('review', x), x], edges: [], maxSteps: 5 });
      installMultiagent(graph, { gate: sandboxOnly(seen) });
      await graph.invoke('go').catch(() => undefined);
      expect(ran).toEqual([]);
      expect(seen.some(([, paths]) => paths.some((p) => p.join('/') === 'sandbox/cleaner'))).toBe(false);
    });
  });

  describe('when the node never starts the agent (busy elsewhere, or cancelled after its guard)', () => {
    it("does not hand the node's place to the custom node's next run of the agent", async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const hold = tool({
        name: 'hold',
        description: 'waits',
        inputSchema: z.object({}),
        callback: async () => {
          await new Promise((resolve) => setTimeout(resolve, 50));
          return 'ok';
        },
      });
      const x = scriptedAgent('cleaner', [call('hold'), say('a'), call('rm', { path: '/home/user' }), say('b')], {
        tools: [recordingTool('rm'), hold],
      });
      const graph = new Graph({ id: 'sandbox', nodes: [new ReviewStep('review', x, 2), x], edges: [], maxSteps: 5 });
      installMultiagent(graph, { gate: sandboxOnly(seen) });
      await graph.invoke('go').catch(() => undefined);
      expect(ran).toEqual([]);
    });

    it('a node cancelled by the stream consumer after its guard leaves nothing for the custom node to take', async () => {
      const seen: [string, ToolCallRequest['paths']][] = [];
      const x = scriptedAgent('cleaner', [call('rm', { path: '/home/user' }), say('done')], {
        tools: [recordingTool('rm')],
      });
      const graph = new Graph({ id: 'sandbox', nodes: [x, new ReviewStep('review', x)], edges: [], maxSteps: 5 });
      installMultiagent(graph, { gate: sandboxOnly(seen) });
      const events = graph.stream('go');
      for (let next = await events.next(); next.done !== true; next = await events.next()) {
        const event = next.value as { type?: string; nodeId?: string; cancel?: unknown };
        if (event.type === 'beforeNodeCallEvent' && event.nodeId === 'cleaner') event.cancel = 'the app skips it';
      }
      expect(ran).toEqual([]);
    });
  });
});
