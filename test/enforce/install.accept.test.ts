/**
 * Accepted nodes: a remote or opaque node acknowledged with a reason is installed around, never gated, and
 * only the executor found at install is let through.
 */
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Edge, Graph, Node, Swarm } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { allowAll, audit, installMultiagent, isGated, plan, UngateableError } from '../../src/index.js';
import {
  call,
  isolateEachTest,
  nodesOf,
  ran,
  recordingTool,
  runOrchestrator,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';

isolateEachTest();

/** An opaque custom node: it runs nothing gate-audit can see, and records that it ran. */
class Opaque extends Node {
  constructor(id: string) {
    super(id, {});
  }
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): ReturnType<Node['handle']> {
    ran.push(`opaque:${this.id}`);
    return { content: [] };
  }
}

function app() {
  const writer = scriptedAgent('writer', [call('ls'), say('-')], { tools: [recordingTool('ls')] });
  const opaque = new Opaque('legacy');
  const graph = new Graph({ id: 'app', nodes: [writer, opaque], edges: [['writer', 'legacy']], maxSteps: 5 });
  return { writer, opaque, graph };
}

describe('installMultiagent({ accept })', () => {
  describe('when an opaque or remote node is accepted', () => {
    it('gates the agents around the accepted opaque node, lets that node run, and reports it accepted', async () => {
      const { writer, graph } = app();
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(UngateableError);
      installMultiagent(graph, {
        gate: allowAll(),
        accept: [{ path: 'app/legacy', reason: 'reviewed: runs no tools' }],
      });
      expect(isGated(writer)).toBe(true);
      const report = audit(graph);
      const legacy = report.nodes.find((n) => n.id === 'legacy')!;
      expect(legacy).toMatchObject({ status: 'accepted', problem: 'custom-node' });
      expect(legacy.reason).toMatch(/^accepted: reviewed: runs no tools \(it is a custom node/);
      expect(report.summary).toMatchObject({ accepted: 1, coverage: 1 });
      const { status } = await runOrchestrator(graph);
      expect(status).toBe('COMPLETED');
      expect(ran).toEqual(['ls({})@writer', 'opaque:legacy']);
    });

    it('cancels another object swapped in later at the accepted path', async () => {
      const { graph } = app();
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'app/legacy', reason: 'reviewed' }] });
      const swapped = new Opaque('legacy');
      nodesOf(graph).set('legacy', swapped);
      // An edge's ends are read-only after install: the edge object is swapped instead.
      const edges = graph.edges as unknown as Edge[];
      edges[0] = new Edge({ source: edges[0]!.source, target: swapped });
      const { cancelled } = await runOrchestrator(graph);
      expect(ran).toEqual(['ls({})@writer']);
      expect(cancelled.legacy).toMatch(/is not the object accepted at install/);
    });

    it('accepts a remote node too, and plan() shows the tree as it would be', () => {
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), remote], edges: [] });
      const accept = [{ path: 'g/remote', reason: 'gated on its own server' }];
      expect(plan(graph, { accept }).nodes.find((n) => n.id === 'remote')?.status).toBe('accepted');
      installMultiagent(graph, { gate: allowAll(), accept });
      expect(audit(graph).nodes.find((n) => n.id === 'remote')?.status).toBe('accepted');
    });
  });

  describe('when an accept entry is invalid', () => {
    const invalid: [string, (g: Graph) => { path: string; reason: string }[], RegExp][] = [
      ['an entry that matches nothing', () => [{ path: 'app/gone', reason: 'x' }], /matches no node of the tree/],
      [
        'an entry on a local agent',
        () => [{ path: 'app/writer', reason: 'x' }],
        /can be gated, so it needs no acknowledgement/,
      ],
      ['an entry without a reason', () => [{ path: 'app/legacy', reason: ' ' }], /needs a path and a reason/],
      [
        'an entry on a node whose key is not its id',
        (g) => {
          nodesOf(g).set('other', new AgentNode({ agent: scriptedAgent('legacy2', [say('x')]) }));
          return [{ path: 'app', reason: 'x' }];
        },
        /cannot be accepted/,
      ],
    ];
    for (const [what, entries, message] of invalid) {
      it(`refuses ${what} (INVALID_ACCEPT), changing nothing`, () => {
        const { writer, graph } = app();
        expect(() => installMultiagent(graph, { gate: allowAll(), accept: entries(graph) })).toThrow(
          expect.objectContaining({ code: 'INVALID_ACCEPT', message: expect.stringMatching(message) as string }),
        );
        expect(isGated(writer)).toBe(false);
      });
    }

    it('lists every invalid entry in one error', () => {
      const { graph } = app();
      expect(() =>
        installMultiagent(graph, {
          gate: allowAll(),
          accept: [
            { path: 'app/gone', reason: 'x' },
            { path: 'app/writer', reason: 'x' },
          ],
        }),
      ).toThrow(/accept=<2 problems>/);
    });
  });
});

describe('accept entries, line by line (install.ts acceptedEntries / acceptedByOrchestrator)', () => {
  const refusal = (graph: Graph, accept: unknown): string => {
    try {
      installMultiagent(graph, { gate: allowAll(), accept: accept as never });
    } catch (e) {
      expect((e as { code?: unknown }).code).toBe('INVALID_ACCEPT');
      return (e as Error).message;
    }
    throw new Error('installMultiagent accepted the entries');
  };

  describe('when an entry is malformed or names no node that can be accepted', () => {
    it('refuses an entry that is not an object, or whose path or reason is not a string, as needing both', () => {
      for (const entry of [
        null,
        'app/legacy',
        { path: 5, reason: 'x' },
        { reason: 'x' },
        { path: 'app/legacy', reason: 5 },
      ]) {
        const { writer, graph } = app();
        expect(refusal(graph, [entry])).toMatch(
          /^accept=<(undefined|app\/legacy)> \| an accept entry needs a path and a reason$/,
        );
        expect(isGated(writer)).toBe(false);
      }
    });

    it('says the one problem on its own, and several as a list', () => {
      expect(refusal(app().graph, [{ path: 'app/gone', reason: 'x' }])).toBe(
        'accept=<app/gone> | matches no node of the tree | fix the path (ids escaped, joined with "/") or remove the stale entry',
      );
      expect(
        refusal(app().graph, [
          { path: 'app/gone', reason: 'x' },
          { path: 'app/writer', reason: 'x' },
        ]),
      ).toBe(
        'accept=<2 problems> | invalid accept entries\n' +
          '  - accept=<app/gone> | matches no node of the tree | fix the path (ids escaped, joined with "/") or remove the stale entry\n' +
          '  - accept=<app/writer> | is a agent that can be gated, so it needs no acknowledgement | remove the entry; installMultiagent gates it',
      );
    });

    it('refuses to accept a remote agent used as a tool: it is not a node of an orchestrator', () => {
      const helper = scriptedAgent('helper', [say('x')]);
      const tool = helper.asTool();
      (tool as unknown as { _agent: unknown })._agent = new A2AAgent({ id: 'far', url: 'http://127.0.0.1:9/x' });
      const holder = scriptedAgent('holder', [say('x')], { tools: [tool] });
      const graph = new Graph({ id: 'g', nodes: [holder], edges: [] });
      expect(refusal(graph, [{ path: 'g/holder/helper', reason: 'x' }])).toMatch(
        /^accept=<g\/holder\/helper> \| is not a node of an orchestrator \(only remote or opaque nodes can be accepted\) \| /,
      );
      expect(isGated(holder)).toBe(false);
    });
  });

  describe('when entries name opaque executors or a nested remote node', () => {
    it('accepts opaque executors behind an AgentNode and a MultiAgentNode, and the audit shows both accepted', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [
          scriptedAgent('a', [say('x')]),
          { orchestrator: { id: 'cma', invoke: () => undefined, stream: () => undefined } } as never,
          { id: 'plain', invoke: () => undefined, stream: () => undefined } as never,
        ],
        edges: [],
      });
      expect(() => installMultiagent(graph, { gate: allowAll() })).toThrow(UngateableError);
      installMultiagent(graph, {
        gate: allowAll(),
        accept: [
          { path: 'g/cma', reason: 'reviewed' },
          { path: 'g/plain', reason: 'reviewed' },
        ],
      });
      const nodes = audit(graph).nodes;
      expect(nodes.filter((n) => n.id === 'cma' || n.id === 'plain').map((n) => `${n.id}:${n.status}`)).toEqual([
        'cma:accepted',
        'plain:accepted',
      ]);
    });

    it('accepts a remote node nested in a swarm by its full path', () => {
      const inner = new Swarm({
        id: 'inner',
        nodes: [scriptedAgent('in1', [say('x')]), new A2AAgent({ id: 'deep', url: 'http://127.0.0.1:9/x' })],
      });
      const graph = new Graph({ id: 'g', nodes: [scriptedAgent('a', [say('x')]), inner], edges: [] });
      installMultiagent(graph, { gate: allowAll(), accept: [{ path: 'g/inner/deep', reason: 'gated on its server' }] });
      expect(audit(graph).nodes.find((n) => n.id === 'deep')?.status).toBe('accepted');
    });
  });
});
