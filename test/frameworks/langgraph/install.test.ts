import { END, entrypoint, MemorySaver, MessagesAnnotation, START, StateGraph, task } from '@langchain/langgraph';
import { createReactAgent, ToolNode as PrebuiltToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent, createMiddleware } from 'langchain';
import type { StructuredToolInterface } from '@langchain/core/tools';
import { describe, expect, it } from 'vitest';
import {
  allowAll,
  assertFullyGated,
  audit,
  denyAll,
  type Gate,
  GateFailedError,
  GOVERNS,
  install,
  installMultiagent,
  policyGate,
  type ToolCallRequest,
  UngateableError,
} from '../../../src/index.js';
import {
  callsOnce,
  messagesOf,
  NOT_IN_DESK,
  recordingTool,
  ScriptedChatModel,
  workerInDesk,
} from '../../helpers/langgraph.js';

const hi = { messages: [{ role: 'user', content: 'hi' }] };

function pathGate(denied: string): Gate & { seen: unknown[] } {
  const seen: unknown[] = [];
  return {
    name: 'paths',
    seen,
    decide: (request) => {
      seen.push(request);
      const path = (request.input as { path?: string }).path;
      return path === denied ? { verdict: 'deny', reason: `${denied} is off limits` } : { verdict: 'allow' };
    },
  };
}

describe('installMultiagent(createAgent agent)', () => {
  describe('when the gate denies', () => {
    it('answers the model with the refusal and never runs the tool', async () => {
      const ran: string[] = [];
      const agent = createAgent({
        model: callsOnce('read', { path: '/etc/passwd' }),
        tools: [recordingTool('read', ran)],
        name: 'research',
      });
      installMultiagent(agent, { gate: pathGate('/etc/passwd') });
      const result = await agent.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result)).toContain('tool:[gate] BLOCKED: /etc/passwd is off limits');
    });
  });

  describe('when the gate allows', () => {
    it('runs the tool with the judged arguments and gives the gate the whole request', async () => {
      const ran: string[] = [];
      const gate = pathGate('/nope');
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        name: 'research',
      });
      installMultiagent(agent, { gate });
      await agent.invoke(hi);
      expect(ran).toEqual(['read({"path":"/tmp"})']);
      expect(gate.seen).toMatchObject([
        {
          toolName: 'read',
          input: { path: '/tmp' },
          agentName: 'research',
          path: ['research', 'tools'],
          framework: 'langgraph',
        },
      ]);
    });
  });

  describe('when a middleware rewrites the arguments after the decision', () => {
    it('refuses the call, never runs it, and the run rejects', async () => {
      const ran: string[] = [];
      const rewrite = createMiddleware({
        name: 'rewrite',
        wrapToolCall: (request, handler) =>
          handler({ ...request, toolCall: { ...request.toolCall, args: { path: '/etc/passwd' } } }),
      });
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        middleware: [rewrite],
        name: 'research',
      });
      installMultiagent(agent, { gate: pathGate('/etc/passwd') });
      await expect(agent.invoke(hi)).rejects.toThrow(/changed the arguments/);
      expect(ran).toEqual([]);
    });
  });

  describe('when a middleware calls the tool itself', () => {
    it('refuses a second run of one judged call, and a call for a denied one never runs', async () => {
      const ran: string[] = [];
      const twice = createMiddleware({
        name: 'twice',
        wrapToolCall: async (request, handler) => {
          await (request.tool as StructuredToolInterface).invoke({ path: '/etc/passwd' });
          return handler(request);
        },
      });
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        middleware: [twice],
        name: 'research',
      });
      installMultiagent(agent, { gate: pathGate('/etc/passwd') });
      await expect(agent.invoke(hi)).rejects.toThrow(GateFailedError);
      expect(ran).toEqual([]);
    });

    it('a deny-all gate runs nothing even when a middleware invokes the tool directly', async () => {
      const ran: string[] = [];
      const direct = createMiddleware({
        name: 'direct',
        wrapToolCall: async (request, handler) => {
          await (request.tool as StructuredToolInterface).invoke({ path: '/tmp' });
          return handler(request);
        },
      });
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        middleware: [direct],
        name: 'r',
      });
      installMultiagent(agent, { gate: denyAll() });
      const result = await agent.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result).some((m) => m.includes('BLOCKED'))).toBe(true);
    });
  });

  describe('when the gate throws', () => {
    it('rejects the run even with handleToolErrors set to true after install', async () => {
      const ran: string[] = [];
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        name: 'r',
      });
      installMultiagent(agent, {
        gate: {
          name: 'broken',
          decide: () => {
            throw new Error('policy store down');
          },
        },
      });
      const toolNode = agent.graph.nodes.tools!.bound as unknown as { handleToolErrors: unknown };
      toolNode.handleToolErrors = true;
      await expect(agent.invoke(hi)).rejects.toThrow(/policy store down/);
      expect(ran).toEqual([]);
    });
  });

  describe('when installed twice', () => {
    it('is idempotent: a second install changes nothing and returns no handle', () => {
      const agent = createAgent({ model: callsOnce('read', {}), tools: [recordingTool('read', [])], name: 'r' });
      const gate = allowAll();
      expect(installMultiagent(agent, { gate })).toHaveLength(1);
      expect(installMultiagent(agent, { gate })).toEqual([]);
      expect(audit(agent).summary.ungated).toBe(0);
    });
  });
});

describe('install and assertFullyGated', () => {
  describe('when given a createAgent agent (the public API takes it as it takes a Strands tree)', () => {
    it('install gates it, assertFullyGated then holds, and a denied call never runs', async () => {
      const ran: string[] = [];
      const agent = createAgent({
        model: callsOnce('read', { path: '/tmp' }),
        tools: [recordingTool('read', ran)],
        name: 'r',
      });
      expect(() => assertFullyGated(agent)).toThrow(/not every node is gated/);
      expect(install(agent, { gate: denyAll() })).toHaveLength(1);
      assertFullyGated(agent);
      const result = await agent.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result).some((m) => m.includes('BLOCKED'))).toBe(true);
    });
  });
});

describe('installMultiagent(StateGraph)', () => {
  describe('when one agent is gated alone and again inside a graph', () => {
    it("an agent gated alone and then inside a graph runs at both places: a policy's paths rule for either holds", async () => {
      const ran: string[] = [];
      const { worker, desk } = workerInDesk(ran);
      const policy = policyGate(NOT_IN_DESK);
      const seen: ToolCallRequest[] = [];
      const gate: Gate = { name: 'app', decide: (request) => (seen.push(request), policy.decide(request)) };
      installMultiagent(worker, { gate });
      installMultiagent(desk, { gate });
      const result = await desk.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result)).toContain('tool:[gate] BLOCKED: not here');
      // Several places: the request names them all, and no single one.
      expect(seen.map((r) => ({ path: r.path, paths: r.paths }))).toEqual([
        {
          path: [],
          paths: [
            ['worker', 'tools'],
            ['desk', 'worker', 'tools'],
          ],
        },
      ]);
    });
  });

  describe('when a function node is not declared', () => {
    it('refuses an undeclared function node before changing anything, and names the fix', () => {
      const ran: string[] = [];
      const inner = createAgent({
        model: callsOnce('write', { path: '/x' }),
        tools: [recordingTool('write', ran)],
        name: 'inner',
      });
      const graph = new StateGraph(MessagesAnnotation)
        .addNode('opaque', async (state) => inner.invoke({ messages: state.messages }))
        .addNode('tools', new PrebuiltToolNode([recordingTool('read', ran)]))
        .addEdge(START, 'opaque')
        .addEdge('opaque', 'tools')
        .addEdge('tools', END)
        .compile({ name: 'app' });
      let error: unknown;
      try {
        installMultiagent(graph, { gate: allowAll() });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UngateableError);
      expect((error as Error).message).toMatch(/opaque.*function node[\s\S]*subgraphs/);
      expect(audit(graph).nodes.find((n) => n.id === 'tools')?.status).toBe('ungated');
    });
  });

  describe('when every node can be gated', () => {
    it('gates a declared function node, a nested graph and a prebuilt tool node', async () => {
      const ran: string[] = [];
      const inner = createAgent({
        model: callsOnce('write', { path: '/etc/passwd' }),
        tools: [recordingTool('write', ran)],
        name: 'inner',
      });
      const graph = new StateGraph(MessagesAnnotation)
        // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- LangGraph types these arrays with `any`
        .addNode('call', async (state) => inner.invoke({ messages: state.messages }), { subgraphs: [inner.graph] })
        .addEdge(START, 'call')
        .addEdge('call', END)
        .compile({ name: 'app' });
      installMultiagent(graph, { gate: pathGate('/etc/passwd') });
      const report = audit(graph);
      expect(report.nodes.map((n) => [n.path.join('/'), n.status])).toEqual([
        ['app', 'gated'],
        ['app/call', 'attested'],
        ['app/call/inner', 'gated'],
        ['app/call/inner/tools', 'gated'],
      ]);
      const result = await graph.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result)).toContain('tool:[gate] BLOCKED: /etc/passwd is off limits');
    });

    it('gates createReactAgent (the prebuilt tool node)', async () => {
      const ran: string[] = [];
      const agent = createReactAgent({
        llm: callsOnce('read', { path: '/etc/passwd' }),
        tools: [recordingTool('read', ran)],
        name: 'ops',
      });
      installMultiagent(agent, { gate: pathGate('/etc/passwd') });
      const result = await agent.invoke(hi);
      expect(ran).toEqual([]);
      expect(messagesOf(result)).toContain('tool:[gate] BLOCKED: /etc/passwd is off limits');
    });
  });
});

describe('the node guard of a LangGraph tree', () => {
  describe("when a node's runnable is swapped after install", () => {
    it('stops a node whose runnable was swapped after install, and uninstall restores what was there', async () => {
      const ran: string[] = [];
      const agent = createReactAgent({
        llm: new ScriptedChatModel([{ calls: [{ name: 'read', args: { path: '/a' } }] }, { say: 'ok' }]),
        tools: [recordingTool('read', ran)],
        name: 'ops',
      });
      const [handle] = installMultiagent(agent, { gate: allowAll() });
      const node = agent.nodes.tools!;
      const swapped = new PrebuiltToolNode([recordingTool('read', ran)]);
      expect(() => {
        (node as { bound: unknown }).bound = swapped;
      }).toThrow(TypeError);
      Object.defineProperty(node, 'bound', { value: swapped, writable: true, configurable: true });
      await expect(agent.invoke(hi)).rejects.toThrow(/swapped after install/);
      expect(ran).toEqual([]);
      expect(handle!.isActive()).toBe(false);
    });
  });
});

describe('installMultiagent(entrypoint) (the functional API)', () => {
  describe('when the entrypoint declares nothing', () => {
    it('an entrypoint is reported ungateable (its tasks run inside its function), and install refuses it unless accepted', () => {
      const step = task('step', (x: number) => x + 1);
      const flow = entrypoint({ name: 'flow', checkpointer: new MemorySaver() }, async (x: number) => step(x));
      const row = audit(flow).nodes.find((n) => n.path.join('/') === 'flow/flow');
      expect(row).toMatchObject({ kind: 'custom', status: 'ungateable' });
      expect(row?.reason).toMatch(/functional API's entrypoint/);
      expect(() => installMultiagent(flow, { gate: allowAll() })).toThrow(UngateableError);
      installMultiagent(flow, { gate: allowAll(), accept: [{ path: 'flow/flow', reason: 'its tasks call no tool' }] });
      expect(audit(flow).nodes.find((n) => n.path.join('/') === 'flow/flow')?.status).toBe('accepted');
    });
  });

  describe('when the entrypoint declares the graphs its tasks run', () => {
    it('walks them, gates them at install, and a task running a declared agent runs its tools under the gate', async () => {
      const ran: string[] = [];
      const agent = createAgent({
        model: callsOnce('rm', { path: '/x' }),
        tools: [recordingTool('rm', ran)],
        name: 'worker',
      });
      const work = task('work', async (text: string) => agent.invoke({ messages: [{ role: 'user', content: text }] }));
      const flow = entrypoint({ name: 'flow', checkpointer: new MemorySaver() }, async (text: string) => {
        await work(text);
        return 'done';
      });
      Object.assign(flow, { [GOVERNS]: () => ({ agents: [agent.graph] }) });
      const statuses = (): string[] => audit(flow).nodes.map((n) => `${n.path.join('/')}:${n.status}`);
      expect(statuses()).toEqual([
        'flow:ungated',
        'flow/flow:ungated',
        'flow/flow/worker:ungated',
        'flow/flow/worker/tools:ungated',
      ]);
      installMultiagent(flow, { gate: denyAll() });
      // Declared, not proven: the entrypoint's row is attested, as a declared function node's is.
      expect(statuses()).toEqual([
        'flow:gated',
        'flow/flow:attested',
        'flow/flow/worker:gated',
        'flow/flow/worker/tools:gated',
      ]);
      await flow.invoke('go', { configurable: { thread_id: 't' } });
      expect(ran).toEqual([]);
    });

    it('a declaration that throws is the problem it reports, and install refuses it', () => {
      const flow = entrypoint({ name: 'flow', checkpointer: new MemorySaver() }, (x: number) => x);
      Object.assign(flow, {
        [GOVERNS]: () => {
          throw new Error('not ready');
        },
      });
      const row = audit(flow).nodes.find((n) => n.path.join('/') === 'flow/flow');
      expect(row).toMatchObject({
        status: 'ungateable',
        reason: "is the functional API's entrypoint, and its governance declaration threw: not ready",
      });
      expect(() => installMultiagent(flow, { gate: allowAll() })).toThrow(UngateableError);
    });
  });
});
