/**
 * The guarantees every framework keeps, one suite run against each (Strands and LangGraph): the same promises,
 * built from each framework's real parts. Each case builds a tree whose one tool-running part calls `rm` on `/x`.
 */
import { BeforeToolCallEvent } from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import { AgentNode, Graph } from '@strands-agents/sdk/multiagent';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { RemoteGraph } from '@langchain/langgraph/remote';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent, createMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  audit,
  configureGate,
  type Gate,
  GateConflictError,
  installMultiagent,
  plan,
  UngateableError,
} from '../../src/index.js';
import { settle } from '../helpers/runs.js';
import {
  call,
  isolateEachTest,
  nodesOf,
  ran as strandsRan,
  recordingTool,
  say,
  scriptedAgent,
} from '../helpers/sdk.js';
import { callsOnce, recordingTool as langchainTool } from '../helpers/langgraph.js';
import { applyMutations, installThrough, mutation } from '../../src/enforce/mutations.js';
import type { FrameworkInstaller } from '../../src/frameworks/installer.js';
import { langGraphFramework } from '../../src/frameworks/langgraph/install.js';
import { strandsFramework } from '../../src/frameworks/strands/install.js';

isolateEachTest();

/** What one framework gives the suite. */
interface FrameworkCase {
  readonly name: string;
  /** The framework's adapter behind the seam. */
  readonly installer: FrameworkInstaller<unknown, { gate?: Gate }, never>;
  /** A native tool call of this framework: id, tool name and input. */
  nativeCall(id: string, name: string, input: unknown): unknown;
  /**
   * A tree whose tool-running part calls rm({path: '/x'}) once. With `rewrite`, a part of the app's own that runs
   * after the decision (a Strands hook, a LangChain middleware) changes the call's path to `/etc/passwd`.
   */
  build(options?: { rewrite?: boolean }): {
    root: object;
    run(): Promise<{ failed: boolean; error: string }>;
    ran(): string[];
    /** After install, the host turns every error and refusal into an answer the run goes on with. */
    forgive(): void;
  };
  /** The same, plus a part that cannot be gated (a remote agent or graph). */
  buildWithRemote(): { root: object; remotePath: string };
  /** Replaces the tool-running part of a built tree with an ungated one that calls rm too. */
  swap(root: object): void;
  /** A tree that holds one tool-running part at two places: `first`, and `second` met again. */
  buildShared(): { root: object; first: string; second: string };
}

const strands: FrameworkCase = {
  name: 'strands',
  installer: strandsFramework,
  nativeCall: (toolUseId, name, input) => ({ toolUseId, name, input }),
  build(options) {
    const agent = scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] });
    if (options?.rewrite === true) {
      agent.addHook(BeforeToolCallEvent, (event) => {
        (event.toolUse.input as { path: string }).path = '/etc/passwd';
      });
    }
    const graph = new Graph({ id: 'g', nodes: [agent], edges: [] });
    return {
      forgive: () => {
        // A later hook clears every refusal, and the graph answers a failed node with a result, not a throw.
        agent.addHook(BeforeToolCallEvent, (event) => {
          event.cancel = false;
        });
      },
      root: graph,
      run: async () => {
        const result = await settle(
          graph
            .invoke('go')
            .then((r) =>
              r.status === 'COMPLETED'
                ? undefined
                : Promise.reject(new Error(r.results.map((node) => node.error ?? node.status).join('; '))),
            ),
        );
        return { failed: result !== undefined, error: String(result) };
      },
      ran: () => strandsRan.filter((r) => r.startsWith('rm(')).map(() => 'rm'),
    };
  },
  buildWithRemote() {
    const agent = scriptedAgent('a', [say('done')], { tools: [recordingTool('rm')] });
    const graph = new Graph({
      id: 'g',
      nodes: [agent, new A2AAgent({ id: 'far', url: 'http://127.0.0.1:9/x' })],
      edges: [],
    });
    return { root: graph, remotePath: 'g/far' };
  },
  swap(root) {
    nodesOf(root as Graph).set(
      'a',
      new AgentNode({
        agent: scriptedAgent('a', [call('rm', { path: '/x' }), say('done')], { tools: [recordingTool('rm')] }),
      }),
    );
  },
  buildShared() {
    // One agent used as a tool by two agents of the graph (itself calling an agent that runs rm).
    const inner = scriptedAgent('inner', [say('done')], { tools: [recordingTool('rm')] });
    const helper = scriptedAgent('helper', [say('done')], { tools: [inner] });
    const a = scriptedAgent('a', [say('done')], { tools: [helper] });
    const b = scriptedAgent('b', [say('done')], { tools: [helper] });
    return { root: new Graph({ id: 'g', nodes: [a, b], edges: [] }), first: 'g/a/helper', second: 'g/b/helper' };
  },
};

const langgraph: FrameworkCase = {
  name: 'langgraph',
  installer: langGraphFramework,
  nativeCall: (id, name, args) => ({ id, name, args, type: 'tool_call' }),
  build(options) {
    const ran: string[] = [];
    const rewrite = createMiddleware({
      name: 'rewrite',
      wrapToolCall: (request, handler) =>
        handler({ ...request, toolCall: { ...request.toolCall, args: { path: '/etc/passwd' } } }),
    });
    const agent = createAgent({
      model: callsOnce('rm', { path: '/x' }),
      tools: [langchainTool('rm', ran)],
      middleware: options?.rewrite === true ? [rewrite] : [],
      name: 'a',
    });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('a', agent.graph)
      .addEdge(START, 'a')
      .addEdge('a', END)
      .compile({ name: 'g' });
    return {
      root: graph,
      run: async () => {
        const result = await settle(graph.invoke({ messages: [{ role: 'user', content: 'go' }] }));
        return { failed: result !== undefined, error: String(result) };
      },
      ran: () => ran.map(() => 'rm'),
      forgive: () => {
        // The tool node turns every error into a tool message, and the run goes on.
        (agent.graph.nodes.tools!.bound as unknown as { handleToolErrors: unknown }).handleToolErrors = true;
      },
    };
  },
  buildWithRemote() {
    const agent = createAgent({ model: callsOnce('rm', { path: '/x' }), tools: [langchainTool('rm', [])], name: 'a' });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('a', agent.graph)
      .addNode('far', new RemoteGraph({ graphId: 'far', url: 'http://127.0.0.1:9' }))
      .addEdge(START, 'a')
      .addEdge('a', 'far')
      .addEdge('far', END)
      .compile({ name: 'g' });
    return { root: graph, remotePath: 'g/far' };
  },
  swap(root) {
    const node = (root as { nodes: Record<string, { bound: unknown }> }).nodes.a!;
    const ran: string[] = [];
    Object.defineProperty(node, 'bound', {
      value: new ToolNode([langchainTool('rm', ran)]),
      writable: true,
      configurable: true,
    });
  },
  buildShared() {
    // One compiled agent graph run by two nodes of the graph.
    const agent = createAgent({ model: callsOnce('rm', { path: '/x' }), tools: [langchainTool('rm', [])], name: 'a' });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('x', agent.graph)
      .addNode('y', agent.graph)
      .addEdge(START, 'x')
      .addEdge('x', 'y')
      .addEdge('y', END)
      .compile({ name: 'g' });
    return { root: graph, first: 'g/x', second: 'g/y' };
  },
};

const throwing: Gate = {
  name: 'throwing',
  decide: () => {
    throw new Error('policy store down');
  },
};

describe.each([strands, langgraph])('the framework seam, for $name', (framework) => {
  describe('when the gate throws', () => {
    it('fail closed: a gate that throws stops the run and the tool never runs', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, { gate: throwing });
      expect((await built.run()).failed).toBe(true);
      expect(built.ran()).toEqual([]);
    });

    it('fail closed whatever the host does with errors: a host that answers them and clears refusals still stops', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, { gate: throwing });
      built.forgive();
      const { failed, error } = await built.run();
      expect(failed).toBe(true);
      expect(error).toMatch(/policy store down/);
      expect(built.ran()).toEqual([]);
    });
  });

  describe('when the arguments change after the decision', () => {
    it('what runs is what was judged: arguments changed after the decision refuse the call and stop the run', async () => {
      const built = framework.build({ rewrite: true });
      const judged: unknown[] = [];
      installMultiagent(built.root as Graph, {
        gate: {
          name: 'no-passwd',
          decide: (request) => {
            judged.push(request.input);
            return (request.input as { path?: unknown }).path === '/etc/passwd'
              ? { verdict: 'deny', reason: 'off limits' }
              : { verdict: 'allow' };
          },
        },
      });
      expect((await built.run()).failed).toBe(true);
      // The gate judged the model's call, once; the rewritten call never ran.
      expect(judged).toEqual([{ path: '/x' }]);
      expect(built.ran()).toEqual([]);
    });
  });

  describe('when the gate denies or allows', () => {
    it('a deny refuses the call and the tool never runs', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, {
        gate: { name: 'no-rm', decide: () => ({ verdict: 'deny', reason: 'no rm' }) },
      });
      await built.run();
      expect(built.ran()).toEqual([]);
    });

    it('an allow runs the tool once', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, { gate: allowAll() });
      expect((await built.run()).failed).toBe(false);
      expect(built.ran()).toEqual(['rm']);
    });
  });

  describe('when the tree holds a part that cannot be gated', () => {
    it('refuses before mutating: a part that cannot be gated is named, and nothing is gated', () => {
      const { root, remotePath } = framework.buildWithRemote();
      expect(() => installMultiagent(root as Graph, { gate: allowAll() })).toThrow(UngateableError);
      expect(audit(root).nodes.filter((n) => n.status === 'gated')).toEqual([]);
      expect(plan(root, { gate: allowAll() }).refusals.map((r) => r.path.join('/'))).toContain(remotePath);
      // Accepted, the rest is gated.
      installMultiagent(root as Graph, {
        gate: allowAll(),
        accept: [{ path: remotePath, reason: 'gated on its own server' }],
      });
      expect(audit(root).nodes.find((n) => n.path.join('/') === remotePath)?.status).toBe('accepted');
    });
  });

  describe('when a tree is installed twice', () => {
    it('install is idempotent: a second install with the same gate adds nothing', () => {
      const { root } = framework.build();
      const gate = allowAll();
      expect(installMultiagent(root as Graph, { gate }).length).toBeGreaterThan(0);
      expect(installMultiagent(root as Graph, { gate })).toEqual([]);
    });

    it('one gate per tree: another gate is refused, naming the part that carries the first', () => {
      const { root } = framework.build();
      installMultiagent(root as Graph, { gate: allowAll() });
      expect(() =>
        installMultiagent(root as Graph, { gate: { name: 'other', decide: () => ({ verdict: 'allow' }) } }),
      ).toThrow(GateConflictError);
    });
  });

  describe('when a part is swapped in after install', () => {
    it('the node guard stops a part swapped in after install before it runs', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, { gate: allowAll() });
      framework.swap(built.root);
      await built.run();
      expect(built.ran()).toEqual([]);
      expect(strandsRan).toEqual([]);
    });
  });

  describe('when the tree is audited, planned and installed', () => {
    it('audit statuses: ungated before install, gated after', () => {
      const { root } = framework.build();
      expect(audit(root).summary.ungated).toBeGreaterThan(0);
      installMultiagent(root as Graph, { gate: allowAll() });
      const after = audit(root);
      expect(after.summary.ungated).toBe(0);
      expect(after.summary.coverage).toBe(1);
    });

    it('one installer: the plan changes nothing, a mutation failing midway undoes the rest, and the plan applied gates', () => {
      const { root } = framework.build();
      const before = audit(root).summary;
      const planned = framework.installer.plan(root, { gate: allowAll() });
      expect(planned.mutations.length).toBeGreaterThan(0);
      expect(planned.mutations.every((m) => m.check() === undefined)).toBe(true);
      expect(audit(root).summary).toEqual(before);
      const failing = mutation(
        'a failing change',
        [],
        () => undefined,
        () => {
          throw new Error('disk full');
        },
      );
      expect(() => applyMutations([...planned.mutations, failing], planned.subject)).toThrow(
        /^.*\| install failed midway \(a failing change\) and was rolled back: disk full$/,
      );
      expect(audit(root).summary).toEqual(before);
      expect(installThrough(framework.installer, root, { gate: allowAll() }).length).toBeGreaterThan(0);
      expect(audit(root).summary.ungated).toBe(0);
    });
  });

  describe('when a part sits at two places', () => {
    it('one walk and one report: a part at two places is walked once, and its second row names its first', () => {
      const { root, first, second } = framework.buildShared();
      const rowAt = (path: string): ReturnType<typeof audit>['nodes'][number] | undefined =>
        audit(root).nodes.find((n) => n.path.join('/') === path);
      const below = (path: string): string[] =>
        audit(root)
          .nodes.filter((n) => n.path.join('/').startsWith(`${path}/`))
          .map((n) => n.path.join('/'));
      expect(rowAt(first)?.sameAs).toBeUndefined();
      expect(rowAt(second)?.sameAs?.join('/')).toBe(first);
      expect(rowAt(second)?.reason).toMatch(new RegExp(`^same object as ${first.split('/').join(' › ')}: `));
      // What sits under it is walked at its first place only.
      expect(below(first).length).toBeGreaterThan(0);
      expect(below(second)).toEqual([]);
      installMultiagent(root as Graph, { gate: allowAll() });
      expect([rowAt(first)?.status, rowAt(second)?.status]).toEqual(['gated', 'gated']);
    });
  });

  describe("when the gate's answer goes through the one decision pipeline", () => {
    // One decision pipeline: each answer of the gate is asked, read, settled and recorded by the same steps in both
    // frameworks, so a record says the same thing whichever framework made the call.
    // Named with %s, not $what: vitest shortens an interpolated value past 40 characters, and Stryker picks the tests to
    // run for a mutant by their full names.
    it.each(
      [
        {
          what: 'an allow runs the call',
          gate: { decide: () => ({ verdict: 'allow' }) },
          failed: false,
          ran: ['rm'],
          record: { event: 'allow', verdict: 'allow' },
        },
        {
          what: 'a deny refuses it, naming the rule',
          gate: { decide: () => ({ verdict: 'deny', reason: 'no rm', rule: 'no-rm' }) },
          failed: false,
          ran: [],
          record: { event: 'deny', verdict: 'deny', reason: 'no rm', rule: 'no-rm' },
        },
        {
          what: 'an answer that is not a decision fails the run',
          gate: { decide: (): unknown => 42 },
          failed: true,
          ran: [],
          record: {
            event: 'error',
            verdict: 'deny',
            reason: 'gate "g" answered garbage: decision is number, not an object',
          },
        },
        {
          what: 'a decide that throws fails the run',
          gate: {
            decide: (): never => {
              throw new Error('store down');
            },
          },
          failed: true,
          ran: [],
          record: { event: 'error', verdict: 'deny', reason: 'gate "g" threw: store down' },
        },
        {
          what: 'an ask without an approval path is a deny',
          gate: { decide: () => ({ verdict: 'ask', reason: 'risky' }) },
          failed: false,
          ran: [],
          record: {
            event: 'deny',
            verdict: 'deny',
            reason: 'approval required (risky) but no approval path is configured',
          },
        },
        {
          what: 'an ask granted in-process runs the call, naming who granted it',
          gate: {
            decide: () => ({ verdict: 'ask', reason: 'risky' }),
            approval: { via: 'callback', ask: () => ({ granted: true, approverId: 'bob' }) },
          },
          failed: false,
          ran: ['rm'],
          record: { event: 'approval-granted', verdict: 'allow', reason: 'risky', approverId: 'bob' },
        },
        {
          what: 'an approval outcome whose getter throws is a refusal',
          gate: {
            decide: () => ({ verdict: 'ask', reason: 'risky' }),
            approval: {
              via: 'callback',
              ask: () => ({
                get granted(): never {
                  throw new Error('boom');
                },
              }),
            },
          },
          failed: false,
          ran: [],
          record: {
            event: 'approval-refused',
            verdict: 'deny',
            reason: 'approval refused (reading the approval outcome threw: boom)',
          },
        },
      ].map((c) => [c.what, c] as const),
    )('one decision: %s, recorded in the same words', async (_what, { gate, failed, ran, record }) => {
      const records: Record<string, unknown>[] = [];
      const built = framework.build();
      installMultiagent(built.root as Graph, {
        gate: { name: 'g', id: 'g', ...gate, record: (r) => void records.push({ ...r }) } as Gate,
      });
      expect((await built.run()).failed).toBe(failed);
      expect(built.ran()).toEqual(ran);
      expect(
        records.map((r) => ({
          event: r.event,
          verdict: r.verdict,
          ...(r.reason === undefined ? {} : { reason: r.reason }),
          ...(r.rule === undefined ? {} : { rule: r.rule }),
          ...(r.approverId === undefined ? {} : { approverId: r.approverId }),
        })),
      ).toEqual([record]);
      // Every record names the call it is about and how long its decision took.
      expect(records[0]).toMatchObject({ toolName: 'rm', input: { path: '/x' }, gateId: 'g' });
      expect(records[0]?.durationMs).toBeGreaterThanOrEqual(0);
      expect(records[0]?.durationMs).toBeLessThan(60_000);
    });

    it('one decision: a record that fails stops the run, and the allowed call never runs', async () => {
      const built = framework.build();
      installMultiagent(built.root as Graph, {
        gate: {
          name: 'g',
          decide: () => ({ verdict: 'allow' }),
          record: () => {
            throw new Error('log down');
          },
        },
      });
      const run = await built.run();
      expect(run.failed).toBe(true);
      expect(run.error).toMatch(/gate "g" could not record the decision: log down/);
      expect(built.ran()).toEqual([]);
    });

    it('one decision: an in-process approver is shown the call and the ask', async () => {
      const shown: unknown[][] = [];
      const built = framework.build();
      installMultiagent(built.root as Graph, {
        gate: {
          name: 'g',
          decide: () => ({ verdict: 'ask', reason: 'risky', rule: 'r1' }),
          approval: { via: 'callback', ask: (...args: unknown[]) => (shown.push(args), { granted: true }) },
        },
      });
      await built.run();
      expect(shown).toEqual([
        [
          expect.objectContaining({ toolName: 'rm', input: { path: '/x' }, framework: framework.name }),
          { verdict: 'ask', reason: 'risky', rule: 'r1' },
        ],
      ]);
      expect(built.ran()).toEqual(['rm']);
    });

    it('one decision: a configured gate unset after install fails the run in the same words', async () => {
      const built = framework.build();
      configureGate(allowAll());
      try {
        installMultiagent(built.root as Graph);
        configureGate(undefined);
        const run = await built.run();
        expect(run.failed).toBe(true);
        expect(run.error).toMatch(/no gate is configured any more \(configureGate\(undefined\) was called\)/);
        expect(built.ran()).toEqual([]);
      } finally {
        configureGate(undefined);
      }
    });
  });

  describe('when a report is written', () => {
    it('one report: every row names its framework, in the report and in its JSON', () => {
      const { root } = framework.build();
      const report = audit(root);
      expect(report.nodes.length).toBeGreaterThan(0);
      expect(new Set(report.nodes.map((n) => n.framework))).toEqual(new Set([framework.name]));
      const json = JSON.parse(JSON.stringify(report)) as { nodes: { framework?: string }[] };
      expect(json.nodes.every((n) => n.framework === framework.name)).toBe(true);
    });
  });

  describe('when a native call is read', () => {
    it('one request: a native call reads as the same ToolCallRequest, naming its framework', () => {
      const input = Object.freeze({ path: '/x' });
      const place = {
        agentId: 'a',
        agentName: 'a',
        path: ['g', 'a'],
        paths: [['g', 'a']],
        toolKind: 'function' as const,
      };
      expect(framework.installer.toRequest(framework.nativeCall('t1', 'rm', input) as never, place)).toEqual({
        toolUseId: 't1',
        toolName: 'rm',
        input,
        ...place,
        framework: framework.name,
      });
    });
  });
});
