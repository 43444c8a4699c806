/**
 * `accept` binds to what it names (issue 37, item 10): an accept entry acknowledges a node that cannot be gated
 * once unwrapped as far as the walker can see: a remote agent, or something opaque all the way down. A wrapper
 * (an `AgentNode` or `MultiAgentNode` subclass, an instance whose methods were wrapped, a custom node or
 * executor holding an agent in a field) around anything gateable is refused with `INVALID_ACCEPT`, before
 * anything changes; the audit refuses it the same way. And an accepted object is `accepted` only at the path
 * its entry names (the node guard cancels it anywhere else).
 */
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Graph, MultiAgentNode, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { audit, denyAll, installMultiagent, isGated, plan } from '../../src/index.js';
import { call, isolateEachTest, nodesOf, recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

/** A tracing wrapper, as an observability library writes one: an AgentNode subclass that records each run. */
class TracedAgentNode extends AgentNode {
  readonly spans: string[] = [];
  override async *handle(...args: Parameters<AgentNode['handle']>): ReturnType<AgentNode['handle']> {
    this.spans.push(`start ${this.id}`);
    return yield* super.handle(...args);
  }
}

/** The same for a nested orchestrator. */
class TracedMultiAgentNode extends MultiAgentNode {
  override async *handle(...args: Parameters<MultiAgentNode['handle']>): ReturnType<MultiAgentNode['handle']> {
    return yield* super.handle(...args);
  }
}

/** A custom node that runs an agent it keeps in a field of its own. */
class Delegating extends Node {
  constructor(
    id: string,
    readonly inner: unknown,
  ) {
    super(id, {});
  }
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): ReturnType<Node['handle']> {
    return { content: [] };
  }
}

/** A plain local agent whose shell tool records each run. */
const shellAgent = (id: string) =>
  scriptedAgent(id, [call('shell', { command: 'rm -rf /home/user' }), say('-')], {
    tools: [recordingTool('shell')],
  });

function refusal(graph: Graph, path: string): string {
  try {
    installMultiagent(graph, { gate: denyAll(), accept: [{ path, reason: 'reviewed: only traces' }] });
  } catch (error) {
    expect((error as { code?: unknown }).code).toBe('INVALID_ACCEPT');
    // Refused before anything changed: no node of the tree is gated.
    expect(audit(graph).nodes.filter((n) => n.status === 'gated')).toEqual([]);
    return (error as Error).message;
  }
  throw new Error('installMultiagent accepted the entry');
}

describe('classify, with accept entries', () => {
  describe('when an accept entry names a wrapper around something gateable', () => {
    it('refuses a tracing AgentNode subclass around a plain agent, naming what is behind it', () => {
      const writer = shellAgent('writer');
      const graph = new Graph({ id: 'app', nodes: [new TracedAgentNode({ agent: writer })], edges: [] });
      expect(refusal(graph, 'app/writer')).toMatch(
        /^accept=<app\/writer> \| is a TracedAgentNode around a local Agent \("writer"\) that can be gated: accept would let its tools run ungated \| put the Agent in the tree itself \(a plain AgentNode\)/,
      );
      expect(isGated(writer)).toBe(false);
      // The audit refuses the entry the same way, rather than reporting a tool-less accepted row.
      expect(() => audit(graph, { accept: [{ path: 'app/writer', reason: 'x' }] })).toThrow(
        expect.objectContaining({ code: 'INVALID_ACCEPT' }),
      );
      expect(() => plan(graph, { accept: [{ path: 'app/writer', reason: 'x' }] })).toThrow(
        expect.objectContaining({ code: 'INVALID_ACCEPT' }),
      );
    });

    it('refuses an AgentNode whose handle was wrapped on the instance', () => {
      const node = new AgentNode({ agent: shellAgent('writer') });
      const original = node.handle.bind(node);
      node.handle = (...args) => original(...args);
      const graph = new Graph({ id: 'app', nodes: [node], edges: [] });
      expect(refusal(graph, 'app/writer')).toMatch(/around a local Agent \("writer"\) that can be gated/);
    });

    it('refuses a MultiAgentNode subclass around a plain Swarm', () => {
      const swarm = new Swarm({ id: 'team', nodes: [shellAgent('a'), shellAgent('b')] });
      const graph = new Graph({
        id: 'app',
        nodes: [shellAgent('lead'), new TracedMultiAgentNode({ orchestrator: swarm })],
        edges: [],
      });
      expect(refusal(graph, 'app/team')).toMatch(
        /around a local Swarm \("team"\) that can be gated: accept would let its tools run ungated \| put the Swarm in the tree itself \(a plain MultiAgentNode\)/,
      );
    });

    it('refuses a custom node that keeps a plain agent in a field, and a wrapper of a wrapper', () => {
      const direct = new Graph({ id: 'app', nodes: [new Delegating('legacy', shellAgent('inner'))], edges: [] });
      expect(refusal(direct, 'app/legacy')).toMatch(/around a local Agent \("inner"\) that can be gated/);
      const deep = new Graph({
        id: 'app',
        nodes: [new Delegating('legacy', { tracer: new TracedAgentNode({ agent: shellAgent('inner') }) })],
        edges: [],
      });
      expect(refusal(deep, 'app/legacy')).toMatch(/around a local Agent \("inner"\) that can be gated/);
    });

    it('refuses a wrapper around an agent that cannot be gated for another reason than being remote or opaque', () => {
      const agent = shellAgent('writer');
      Object.defineProperty(agent, 'invoke', { value: () => Promise.resolve(undefined), configurable: true });
      const graph = new Graph({ id: 'app', nodes: [new TracedAgentNode({ agent })], edges: [] });
      // The agent's own problem and fix are named, not the "can be gated" advice of a plain agent.
      expect(refusal(graph, 'app/writer')).toBe(
        'accept=<app/writer> | is a TracedAgentNode around a local Agent ("writer") that is an Agent whose "invoke" was ' +
          'replaced on the instance (an own property or class field), so its hooks may never run, so accept would let ' +
          'a local Agent run ungated | do not set invoke on the instance; wrap behaviour in hooks or middleware instead',
      );
    });
  });

  describe('when an accept entry names a wrapper around what cannot be gated', () => {
    it('accepts a tracing AgentNode around a remote agent, and a custom node holding nothing gateable', () => {
      const remote = new A2AAgent({ id: 'partner', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({
        id: 'app',
        nodes: [shellAgent('writer'), new TracedAgentNode({ agent: remote }), new Delegating('legacy', { url: 'x' })],
        edges: [],
      });
      const accept = [
        { path: 'app/partner', reason: 'gated on its own server' },
        { path: 'app/legacy', reason: 'reviewed: runs no tools' },
      ];
      installMultiagent(graph, { gate: denyAll(), accept });
      const rows = audit(graph).nodes.map((n) => `${n.id}:${n.status}`);
      expect(rows).toEqual(['app:gated', 'writer:gated', 'partner:accepted', 'legacy:accepted']);
    });
  });

  describe('when an accepted object sits at another path', () => {
    it('is accepted only at the path its entry names: the same object at another id is not accepted there', () => {
      const legacy = new Delegating('legacy', { url: 'x' });
      const graph = new Graph({ id: 'app', nodes: [shellAgent('writer'), legacy], edges: [] });
      installMultiagent(graph, { gate: denyAll(), accept: [{ path: 'app/legacy', reason: 'reviewed' }] });
      nodesOf(graph).set('copy', legacy);
      const rows = audit(graph).nodes.map((n) => `${n.path.join('/')}:${n.status}`);
      expect(rows).toContain('app/legacy:accepted');
      expect(rows).not.toContain('app/copy:accepted');
    });
  });
});
