/**
 * The reads of the SDK's private state, one export at a time, on real SDK objects (agents, Graphs, Swarms, nodes,
 * tools of `@strands-agents/sdk`; the model is the scripted one): what each read returns on the SDK's own shape,
 * and what it returns when that shape is missing or odd (a plain object, a field turned into a getter, a Proxy,
 * null). Every such odd shape reads as "unknown" (undefined, `[]`, `false` or a problem), and no getter or Proxy
 * trap ever runs: the spies below would record it.
 */
import {
  type Agent,
  AfterToolCallEvent,
  BeforeInvocationEvent,
  BeforeToolCallEvent,
  ConcurrentToolExecutor,
  ExecuteToolStage,
  FunctionTool,
  InterventionHandler,
  McpClient,
  type Plugin,
  SequentialToolExecutor,
  tool,
} from '@strands-agents/sdk';
import { A2AAgent } from '@strands-agents/sdk/a2a';
import {
  AfterNodeCallEvent,
  AgentNode,
  BeforeNodeCallEvent,
  Graph,
  MultiAgentNode,
  Swarm,
} from '@strands-agents/sdk/multiagent';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  agentAsToolTarget,
  agentHookRegistry,
  agentHooks,
  agentNodeExecutor,
  agentRegistryFields,
  agentToolExecutor,
  agentToolRegistry,
  backgroundDispatchProblem,
  backgroundDispatchShape,
  GRAPH_SOURCES_FIELD,
  graphSources,
  hasBackgroundTasks,
  hasStructuredOutputSchema,
  hiddenPrototypes,
  HOOK_REGISTRY_FIELD,
  hookCallbackMap,
  initialisedPluginNames,
  interventionHandlers,
  isA2AAgent,
  isConditionalEdge,
  isInitialized,
  isInterruptError,
  isMcpTool,
  isSdkToolExecutor,
  isStructuredOutputTool,
  listTools,
  liveCallbackArray,
  liveMiddlewareArray,
  mcpClientCount,
  multiAgentNodeExecutor,
  NODE_EXECUTOR_FIELD,
  nodeCallHooks,
  orchestratorHookRegistry,
  orchestratorHooks,
  pendingPlugins,
  readAgentTool,
  TOOL_EXECUTOR_FIELD,
  toolCallHooks,
  toolExecutorOf,
  toolFacts,
  toolKindOf,
  toolMiddleware,
} from '../../../src/frameworks/strands/sdk-internals.js';
import { FEATURE_ABSENT, sdkFeatures } from '../../../src/frameworks/strands/sdk-shape.js';
import { call, isolateEachTest, recordingTool, say, scriptedAgent } from '../../helpers/sdk.js';

isolateEachTest();

const hasBackgroundTaskFeature = sdkFeatures()['background-tasks'];

/** Private SDK state, typed loosely (tests read and replace it the way app code can). */
type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields => value as Fields;

/** A plain agent with the scripted model. */
const anAgent = (id = 'a', config: Parameters<typeof scriptedAgent>[2] = {}): Agent =>
  scriptedAgent(id, [say(id)], config);

/** An agent configured with background tasks (SDK ≥ 1.16), its tools `rm`. */
const backgroundAgent = (id = 'bg'): Agent => anAgent(id, { tools: [recordingTool('rm')], backgroundTasks: true });

/** Turns `owner[key]` into a getter answering `value`; the returned spy records every time it runs. */
function getterOn(owner: object, key: PropertyKey, value: unknown = undefined) {
  const get = vi.fn(() => value);
  Object.defineProperty(owner, key, { get, configurable: true });
  return get;
}

/** A Proxy over `target` that forwards every trap, and records the name of each trap that ran. */
function watchedProxy<T extends object>(target: T): { proxy: T; traps: string[] } {
  const traps: string[] = [];
  const handler = new Proxy(
    {},
    {
      get:
        (_handler, trap) =>
        (...args: unknown[]): unknown => {
          traps.push(String(trap));
          return (Reflect[trap as keyof typeof Reflect] as (...a: unknown[]) => unknown)(...args);
        },
    },
  );
  return { proxy: new Proxy(target, handler), traps };
}

/** An Array subclass: it can answer `map`, iteration or `length` otherwise than the items it holds. */
class OddArray<T> extends Array<T> {}
/** A Map subclass: it can answer `get` otherwise than the entries it holds. */
class OddMap<K, V> extends Map<K, V> {}

/** A plugin that does nothing. */
const plugin = (name: string): Plugin => ({ name, initAgent: () => undefined });

/**
 * A minimal MCP server on the other end of a transport: it answers `initialize` and lists one tool, `search`. It
 * stands in for a remote server (the client, its tools and their registration are the SDK's own).
 */
function mcpServerTransport() {
  const transport = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(transport.onclose?.()),
    send(message: { id?: number; method?: string; params?: { protocolVersion?: string } }): Promise<void> {
      const reply = (result: unknown): void => {
        setTimeout(() => transport.onmessage?.({ jsonrpc: '2.0', id: message.id, result }), 0);
      };
      if (message.method === 'initialize') {
        reply({
          protocolVersion: message.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: 'test-server', version: '1.0.0' },
        });
      } else if (message.method === 'tools/list') {
        reply({ tools: [{ name: 'search', description: 'finds', inputSchema: { type: 'object', properties: {} } }] });
      } else if (message.id !== undefined) {
        reply({});
      }
      return Promise.resolve();
    },
  };
  return transport;
}

/** A real `McpTool`, listed by a real `McpClient` from the server above. */
async function mcpTool(): Promise<{ tool: unknown; client: McpClient }> {
  const client = new McpClient({ transport: mcpServerTransport() as never });
  const [listed] = await client.listTools();
  return { tool: listed, client };
}

/** The SDK's own `StructuredOutputTool`, caught as the agent hands it a call (it is not exported). */
async function structuredOutputTool(): Promise<unknown> {
  const agent = scriptedAgent('so', [call('strands_structured_output', { answer: 'x' }), say('done')], {
    structuredOutputSchema: z.object({ answer: z.string() }),
  });
  let seen: unknown;
  agent.addHook(BeforeToolCallEvent, (event) => {
    seen = event.tool;
  });
  await agent.invoke('go');
  return seen;
}

/** A real `InterruptError`, as a hook's `event.interrupt(…)` throws it (the class is not exported). */
function interruptError(): unknown {
  const agent = anAgent('int');
  const event = new BeforeToolCallEvent({
    agent,
    toolUse: { name: 'rm', toolUseId: 't1', input: {} },
    tool: undefined,
    invocationState: {},
  });
  try {
    event.interrupt({ name: 'approve', reason: 'ask first' });
  } catch (error) {
    return error;
  }
  throw new Error('event.interrupt did not throw');
}

describe('the private field names', () => {
  describe('when read against real SDK objects', () => {
    it('name own data fields of an Agent, a Graph, a Swarm, an AgentNode and a MultiAgentNode', () => {
      const agent = anAgent();
      const graph = new Graph({ id: 'g', nodes: [agent], edges: [], maxSteps: 2 });
      const swarm = new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 });
      const own = (owner: object, key: string) => 'value' in (Object.getOwnPropertyDescriptor(owner, key) ?? {});
      expect(own(agent, HOOK_REGISTRY_FIELD.agent)).toBe(true);
      expect(own(agent, TOOL_EXECUTOR_FIELD)).toBe(true);
      expect(own(graph, HOOK_REGISTRY_FIELD.orchestrator)).toBe(true);
      expect(own(swarm, HOOK_REGISTRY_FIELD.orchestrator)).toBe(true);
      expect(own(graph, GRAPH_SOURCES_FIELD)).toBe(true);
      expect(own(new AgentNode({ agent }), NODE_EXECUTOR_FIELD.agent)).toBe(true);
      expect(own(new MultiAgentNode({ orchestrator: graph }), NODE_EXECUTOR_FIELD.orchestrator)).toBe(true);
    });
  });
});

describe('agentRegistryFields', () => {
  describe('when asked on this SDK', () => {
    it("names the agent's hook, middleware and tool registries, each with the prototype of a real agent's", () => {
      const agent = fieldsOf(anAgent());
      const fields = agentRegistryFields();
      expect(fields.map(([name]) => name)).toEqual(['_hooksRegistry', '_middlewareRegistry', '_toolRegistry']);
      for (const [name, proto] of fields) expect(proto).toBe(Object.getPrototypeOf(agent[name]));
      expect(new Set(fields.map(([, proto]) => proto)).size).toBe(3);
    });
  });
});

describe('hookCallbackMap', () => {
  describe('when given a real hook registry', () => {
    it('returns its callback map itself', () => {
      const registry = fieldsOf(anAgent())._hooksRegistry;
      const map = hookCallbackMap(registry);
      expect(map).toBeInstanceOf(Map);
      expect(map).toBe(fieldsOf(registry)._callbacks);
    });
  });

  describe('when the registry is odd', () => {
    it('reads a getter over `_callbacks` as undefined, without running it', () => {
      const registry = fieldsOf(anAgent())._hooksRegistry as object;
      const get = getterOn(registry, '_callbacks', new Map());
      expect(hookCallbackMap(registry)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });

    it('reads a Proxy around the registry as undefined, without running a trap', () => {
      const { proxy, traps } = watchedProxy(fieldsOf(anAgent())._hooksRegistry as object);
      expect(hookCallbackMap(proxy)).toBeUndefined();
      expect(traps).toEqual([]);
    });

    it('reads null, a primitive and a plain object without `_callbacks` as undefined', () => {
      expect(hookCallbackMap(null)).toBeUndefined();
      expect(hookCallbackMap('registry')).toBeUndefined();
      expect(hookCallbackMap({})).toBeUndefined();
    });
  });
});

describe('agentHookRegistry', () => {
  describe('when given a real agent', () => {
    it('returns its `_hooksRegistry`', () => {
      const agent = anAgent();
      const registry = agentHookRegistry(agent);
      expect(registry).toBe(fieldsOf(agent)._hooksRegistry);
      expect(Object.getPrototypeOf(registry)).toBe(hiddenPrototypes().hookRegistry);
    });
  });

  describe('when the agent is odd', () => {
    it('reads a getter over `_hooksRegistry` as undefined, without running it', () => {
      const agent = anAgent();
      const real = fieldsOf(agent)._hooksRegistry;
      const get = getterOn(agent, '_hooksRegistry', real);
      expect(agentHookRegistry(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });

    it('reads a Proxy around the agent as undefined, without running a trap', () => {
      const { proxy, traps } = watchedProxy(anAgent());
      expect(agentHookRegistry(proxy)).toBeUndefined();
      expect(traps).toEqual([]);
    });

    it('reads a plain object and null as undefined', () => {
      expect(agentHookRegistry({} as Agent)).toBeUndefined();
      expect(agentHookRegistry(null as unknown as Agent)).toBeUndefined();
    });
  });
});

describe('toolCallHooks', () => {
  describe('when the agent is real', () => {
    it('reads no hook on a fresh agent as an empty list', () => {
      expect(toolCallHooks(anAgent())).toEqual([]);
    });

    it('lists the BeforeToolCallEvent callbacks in run order (by order, then registration), and no other event', () => {
      const agent = anAgent();
      const late = (): void => undefined;
      const first = (): void => undefined;
      const early = (): void => undefined;
      const other = (): void => undefined;
      agent.addHook(BeforeToolCallEvent, late, { order: 10 });
      agent.addHook(BeforeToolCallEvent, first);
      agent.addHook(BeforeToolCallEvent, early, { order: -10 });
      agent.addHook(AfterToolCallEvent, other);
      const hooks = toolCallHooks(agent);
      expect(hooks?.map((h) => h.callback)).toEqual([early, first, late]);
      expect(hooks?.map((h) => h.order)).toEqual([-10, 0, 10]);
    });

    it('returns a copy: the entries are read, not the live array', () => {
      const agent = anAgent();
      agent.addHook(BeforeToolCallEvent, () => undefined);
      const hooks = toolCallHooks(agent);
      expect(hooks).not.toBe(liveCallbackArray(agentHookRegistry(agent), BeforeToolCallEvent));
      expect(hooks).toHaveLength(1);
    });
  });

  describe('when the private shape is odd', () => {
    const withHook = () => {
      const agent = anAgent();
      agent.addHook(BeforeToolCallEvent, () => undefined);
      const callbacks = fieldsOf(agentHookRegistry(agent))._callbacks as Map<unknown, unknown[]>;
      return { agent, callbacks, entries: callbacks.get(BeforeToolCallEvent)! };
    };

    it('reads a Proxy around the hook registry as undefined, without running a trap', () => {
      const { agent } = withHook();
      const { proxy, traps } = watchedProxy(agentHookRegistry(agent) as object);
      fieldsOf(agent)._hooksRegistry = proxy;
      expect(toolCallHooks(agent)).toBeUndefined();
      expect(traps).toEqual([]);
    });

    it('reads a getter over `_hooksRegistry` as undefined, without running it', () => {
      const { agent } = withHook();
      const get = getterOn(agent, '_hooksRegistry', agentHookRegistry(agent));
      expect(toolCallHooks(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });

    it('reads a `_callbacks` that is a Map subclass, or has own properties, as undefined', () => {
      const { agent, callbacks } = withHook();
      const registry = fieldsOf(agentHookRegistry(agent));
      registry._callbacks = new OddMap(callbacks);
      expect(toolCallHooks(agent)).toBeUndefined();
      const shadowed = new Map(callbacks);
      Object.defineProperty(shadowed, 'get', { value: () => [] });
      registry._callbacks = shadowed;
      expect(toolCallHooks(agent)).toBeUndefined();
      registry._callbacks = Object.fromEntries(callbacks);
      expect(toolCallHooks(agent)).toBeUndefined();
    });

    it('reads an entry list that is not a plain array (a subclass, a Proxy, an item getter) as undefined', () => {
      const { agent, callbacks, entries } = withHook();
      callbacks.set(BeforeToolCallEvent, OddArray.from(entries));
      expect(toolCallHooks(agent)).toBeUndefined();
      const { proxy, traps } = watchedProxy([...entries]);
      callbacks.set(BeforeToolCallEvent, proxy);
      expect(toolCallHooks(agent)).toBeUndefined();
      expect(traps).toEqual([]);
      const withGetter = [...entries];
      const get = getterOn(withGetter, 0, entries[0]);
      callbacks.set(BeforeToolCallEvent, withGetter);
      expect(toolCallHooks(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });

    it('reads an entry whose callback is a getter, or whose order is no number, as undefined', () => {
      const { agent, entries } = withHook();
      const entry = entries[0] as Fields;
      const get = getterOn(entry, 'callback', () => undefined);
      expect(toolCallHooks(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
      entries[0] = { callback: () => undefined, order: '0' };
      expect(toolCallHooks(agent)).toBeUndefined();
      entries[0] = { callback: () => undefined };
      expect(toolCallHooks(agent)).toBeUndefined();
      entries[0] = null;
      expect(toolCallHooks(agent)).toBeUndefined();
    });
  });
});

describe('agentHooks', () => {
  describe('when the agent is real', () => {
    it('lists the callbacks of the event class asked for only', () => {
      const agent = anAgent();
      const before = (): void => undefined;
      agent.addHook(BeforeInvocationEvent, before, { order: 5 });
      agent.addHook(BeforeToolCallEvent, () => undefined);
      expect(agentHooks(agent, BeforeInvocationEvent)).toEqual([{ callback: before, order: 5 }]);
      expect(agentHooks(agent, AfterToolCallEvent)).toEqual([]);
    });
  });

  describe('when the agent is odd', () => {
    it('reads a Proxy around the agent and a plain object as undefined', () => {
      const { proxy, traps } = watchedProxy(anAgent());
      expect(agentHooks(proxy, BeforeInvocationEvent)).toBeUndefined();
      expect(traps).toEqual([]);
      expect(agentHooks({} as Agent, BeforeInvocationEvent)).toBeUndefined();
    });
  });
});

describe('orchestratorHookRegistry', () => {
  describe('when given a real Graph or Swarm', () => {
    it('returns its `_hookRegistry`, an instance of the hook registry agents have', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const swarm = new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 });
      expect(orchestratorHookRegistry(graph)).toBe(fieldsOf(graph)._hookRegistry);
      expect(orchestratorHookRegistry(swarm)).toBe(fieldsOf(swarm)._hookRegistry);
      expect(Object.getPrototypeOf(orchestratorHookRegistry(swarm))).toBe(hiddenPrototypes().hookRegistry);
    });
  });

  describe('when the orchestrator is odd', () => {
    it('reads a getter over `_hookRegistry` and a Proxy as undefined, running neither', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const { proxy, traps } = watchedProxy(graph);
      expect(orchestratorHookRegistry(proxy)).toBeUndefined();
      expect(traps).toEqual([]);
      const get = getterOn(graph, '_hookRegistry', {});
      expect(orchestratorHookRegistry(graph)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });

    it("does not read an agent's `_hooksRegistry` as an orchestrator's", () => {
      expect(orchestratorHookRegistry(anAgent() as unknown as Graph)).toBeUndefined();
    });
  });
});

describe('orchestratorHooks', () => {
  describe('when the orchestrator is real', () => {
    it('lists the callbacks of one event class on a Swarm', () => {
      const swarm = new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 });
      const after = (): void => undefined;
      swarm.addHook(AfterNodeCallEvent, after);
      expect(orchestratorHooks(swarm, AfterNodeCallEvent)).toEqual([{ callback: after, order: 0 }]);
      expect(orchestratorHooks(swarm, BeforeNodeCallEvent)).toEqual([]);
    });
  });

  describe('when the registry is odd', () => {
    it('reads a Proxy around the registry as undefined, without running a trap', () => {
      const swarm = new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 });
      swarm.addHook(AfterNodeCallEvent, () => undefined);
      const { proxy, traps } = watchedProxy(orchestratorHookRegistry(swarm) as object);
      fieldsOf(swarm)._hookRegistry = proxy;
      expect(orchestratorHooks(swarm, AfterNodeCallEvent)).toBeUndefined();
      expect(traps).toEqual([]);
    });
  });
});

describe('nodeCallHooks', () => {
  describe('when the orchestrator is real', () => {
    it('reads none on a fresh Graph, then the BeforeNodeCallEvent callbacks added to it', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      expect(nodeCallHooks(graph)).toEqual([]);
      const guard = (): void => undefined;
      graph.addHook(BeforeNodeCallEvent, guard);
      graph.addHook(AfterNodeCallEvent, () => undefined);
      expect(nodeCallHooks(graph)).toEqual([{ callback: guard, order: 0 }]);
    });
  });

  describe('when the registry is odd', () => {
    it('reads a `_callbacks` getter on the registry as undefined, without running it', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const get = getterOn(orchestratorHookRegistry(graph) as object, '_callbacks', new Map());
      expect(nodeCallHooks(graph)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('toolMiddleware', () => {
  describe('when the agent is real', () => {
    it('reads none on a fresh agent', () => {
      expect(toolMiddleware(anAgent())).toEqual([]);
    });

    it('lists the ExecuteToolStage handlers with their phase, in registration order, and no other stage', () => {
      const agent = anAgent();
      const wrap = async function* (_context: unknown, next: (c: unknown) => AsyncGenerator<unknown, unknown>) {
        return yield* next(_context);
      };
      agent.addMiddleware(ExecuteToolStage, wrap as never);
      agent.addMiddleware(ExecuteToolStage.Input, ((context: unknown) => context) as never);
      const read = toolMiddleware(agent);
      expect(read?.map((m) => m.phase)).toEqual(['wrap', 'input']);
      expect(read?.[0]?.handler).toBe(wrap);
      expect(typeof read?.[1]?.handler).toBe('function');
    });
  });

  describe('when the private shape is odd', () => {
    const withMiddleware = () => {
      const agent = anAgent();
      agent.addMiddleware(ExecuteToolStage, function* () {
        yield* [];
      } as never);
      const registry = fieldsOf(fieldsOf(agent)._middlewareRegistry);
      return { agent, registry, handlers: registry._handlers as Map<unknown, unknown[]> };
    };

    it('reads a getter over `_middlewareRegistry` or its `_handlers` as undefined, running neither', () => {
      const { agent, registry, handlers } = withMiddleware();
      const inner = getterOn(registry, '_handlers', handlers);
      expect(toolMiddleware(agent)).toBeUndefined();
      expect(inner).not.toHaveBeenCalled();
      const outer = getterOn(agent, '_middlewareRegistry', registry);
      expect(toolMiddleware(agent)).toBeUndefined();
      expect(outer).not.toHaveBeenCalled();
    });

    it('reads a Proxy around the middleware registry as undefined, without running a trap', () => {
      const { agent, registry } = withMiddleware();
      const { proxy, traps } = watchedProxy(registry);
      fieldsOf(agent)._middlewareRegistry = proxy;
      expect(toolMiddleware(agent)).toBeUndefined();
      expect(traps).toEqual([]);
    });

    it('reads a `_handlers` Map subclass or a handler list that is an Array subclass as undefined', () => {
      const { agent, registry, handlers } = withMiddleware();
      handlers.set(ExecuteToolStage, OddArray.from(handlers.get(ExecuteToolStage)!));
      expect(toolMiddleware(agent)).toBeUndefined();
      registry._handlers = new OddMap([[ExecuteToolStage, []]]);
      expect(toolMiddleware(agent)).toBeUndefined();
    });

    it('reads an entry whose phase is no string, or whose handler is a getter, as undefined', () => {
      const { agent, handlers } = withMiddleware();
      const entries = handlers.get(ExecuteToolStage)!;
      const get = getterOn(entries[0] as object, 'handler', () => undefined);
      expect(toolMiddleware(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
      entries[0] = { phase: 2, handler: () => undefined };
      expect(toolMiddleware(agent)).toBeUndefined();
      entries[0] = { phase: 'wrap', handler: undefined };
      expect(toolMiddleware(agent)).toEqual([{ phase: 'wrap', handler: undefined }]);
    });
  });
});

describe('liveCallbackArray', () => {
  describe('when the registry is real', () => {
    it("returns the registry's own array of the event's entries (so a reordering takes)", () => {
      const agent = anAgent();
      agent.addHook(BeforeToolCallEvent, () => undefined);
      const registry = agentHookRegistry(agent);
      const live = liveCallbackArray(registry, BeforeToolCallEvent);
      expect(live).toBe((fieldsOf(registry)._callbacks as Map<unknown, unknown>).get(BeforeToolCallEvent));
      expect(live).toHaveLength(1);
    });

    it('returns undefined (not an empty list) for an event class with no callbacks', () => {
      expect(liveCallbackArray(agentHookRegistry(anAgent()), BeforeToolCallEvent)).toBeUndefined();
    });
  });

  describe('when the registry is odd', () => {
    it('reads a Proxy registry, a `_callbacks` getter and an Array subclass as undefined, running none', () => {
      const agent = anAgent();
      agent.addHook(BeforeToolCallEvent, () => undefined);
      const registry = agentHookRegistry(agent) as object;
      const { proxy, traps } = watchedProxy(registry);
      expect(liveCallbackArray(proxy, BeforeToolCallEvent)).toBeUndefined();
      expect(traps).toEqual([]);
      const callbacks = fieldsOf(registry)._callbacks as Map<unknown, unknown[]>;
      callbacks.set(BeforeToolCallEvent, OddArray.from(callbacks.get(BeforeToolCallEvent)!));
      expect(liveCallbackArray(registry, BeforeToolCallEvent)).toBeUndefined();
      const get = getterOn(registry, '_callbacks', callbacks);
      expect(liveCallbackArray(registry, BeforeToolCallEvent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
      expect(liveCallbackArray(null, BeforeToolCallEvent)).toBeUndefined();
    });
  });
});

describe('liveMiddlewareArray', () => {
  describe('when the agent is real', () => {
    it("returns the registry's own array of ExecuteToolStage handlers, or undefined when there is none", () => {
      const agent = anAgent();
      expect(liveMiddlewareArray(agent)).toBeUndefined();
      agent.addMiddleware(ExecuteToolStage, (() => undefined) as never);
      const handlers = fieldsOf(fieldsOf(agent)._middlewareRegistry)._handlers as Map<unknown, unknown>;
      expect(liveMiddlewareArray(agent)).toBe(handlers.get(ExecuteToolStage));
    });
  });

  describe('when the agent is odd', () => {
    it('reads a Proxy registry, a registry getter and an Array subclass as undefined, running none', () => {
      const agent = anAgent();
      agent.addMiddleware(ExecuteToolStage, (() => undefined) as never);
      const registry = fieldsOf(agent)._middlewareRegistry as object;
      const handlers = fieldsOf(registry)._handlers as Map<unknown, unknown[]>;
      handlers.set(ExecuteToolStage, OddArray.from(handlers.get(ExecuteToolStage)!));
      expect(liveMiddlewareArray(agent)).toBeUndefined();
      const { proxy, traps } = watchedProxy(registry);
      fieldsOf(agent)._middlewareRegistry = proxy;
      expect(liveMiddlewareArray(agent)).toBeUndefined();
      expect(traps).toEqual([]);
      const get = getterOn(agent, '_middlewareRegistry', registry);
      expect(liveMiddlewareArray(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('pendingPlugins', () => {
  describe('when the owner is real', () => {
    it("lists an agent's plugins before its first initialize, and none after", async () => {
      const mine = plugin('mine');
      const agent = anAgent('p', { plugins: [mine] });
      const pending = pendingPlugins(agent);
      expect(pending).toContain(mine);
      expect(pending).toBe(fieldsOf(fieldsOf(agent)._pluginRegistry)._pending);
      await agent.initialize();
      expect(pendingPlugins(agent)).toEqual([]);
    });

    it("lists a Graph's plugins", () => {
      const mine = { name: 'graph-plugin', initMultiAgent: () => undefined };
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2, plugins: [mine] });
      expect(pendingPlugins(graph)).toEqual([mine]);
    });
  });

  describe('when the plugin registry is odd', () => {
    it('reads a getter over `_pluginRegistry` or `_pending`, a Proxy and an Array subclass as none, running none', () => {
      const agent = anAgent('p', { plugins: [plugin('mine')] });
      const registry = fieldsOf(fieldsOf(agent)._pluginRegistry);
      const pending = registry._pending as unknown[];
      registry._pending = OddArray.from(pending);
      expect(pendingPlugins(agent)).toEqual([]);
      const { proxy, traps } = watchedProxy(pending);
      registry._pending = proxy;
      expect(pendingPlugins(agent)).toEqual([]);
      expect(traps).toEqual([]);
      const inner = getterOn(registry, '_pending', pending);
      expect(pendingPlugins(agent)).toEqual([]);
      expect(inner).not.toHaveBeenCalled();
      const outer = getterOn(agent, '_pluginRegistry', registry);
      expect(pendingPlugins(agent)).toEqual([]);
      expect(outer).not.toHaveBeenCalled();
      expect(pendingPlugins({} as Agent)).toEqual([]);
    });
  });
});

describe('isInitialized', () => {
  describe('when the agent is real', () => {
    it('is false before initialize() and true after', async () => {
      const agent = anAgent();
      expect(isInitialized(agent)).toBe(false);
      await agent.initialize();
      expect(isInitialized(agent)).toBe(true);
    });
  });

  describe('when `_initialized` is odd', () => {
    it('reads a getter answering true, a truthy non-boolean and a Proxy as not initialised, running none', async () => {
      const agent = anAgent();
      await agent.initialize();
      const { proxy, traps } = watchedProxy(agent);
      expect(isInitialized(proxy)).toBe(false);
      expect(traps).toEqual([]);
      fieldsOf(agent)._initialized = 1;
      expect(isInitialized(agent)).toBe(false);
      const get = getterOn(agent, '_initialized', true);
      expect(isInitialized(agent)).toBe(false);
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('mcpClientCount', () => {
  describe('when the agent is real', () => {
    it('counts the MCP clients the agent was built with, and none without', () => {
      const transport = { start: () => Promise.resolve() } as never;
      const agent = anAgent('m', { tools: [new McpClient({ transport }), new McpClient({ transport })] });
      expect(mcpClientCount(agent)).toBe(2);
      expect(mcpClientCount(anAgent())).toBe(0);
    });
  });

  describe('when `_mcpClients` is odd', () => {
    it('does not count a Proxy around a client or a look-alike object', () => {
      const client = new McpClient({ transport: { start: () => Promise.resolve() } as never });
      const agent = anAgent('m', { tools: [client] });
      const { proxy, traps } = watchedProxy(client);
      fieldsOf(agent)._mcpClients = [client, proxy, { listTools: () => [] }];
      expect(mcpClientCount(agent)).toBe(1);
      expect(traps).toEqual([]);
    });

    it('reads a getter over `_mcpClients` or an Array subclass as none, running no getter', () => {
      const client = new McpClient({ transport: { start: () => Promise.resolve() } as never });
      const agent = anAgent('m', { tools: [client] });
      fieldsOf(agent)._mcpClients = OddArray.of(client);
      expect(mcpClientCount(agent)).toBe(0);
      const get = getterOn(agent, '_mcpClients', [client]);
      expect(mcpClientCount(agent)).toBe(0);
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('hasBackgroundTasks', () => {
  describe('when the agent is real', () => {
    it('is true for an agent configured with background tasks and false for one without', ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      expect(hasBackgroundTasks(backgroundAgent())).toBe(true);
      expect(hasBackgroundTasks(anAgent())).toBe(false);
    });
  });

  describe('when `_backgroundTasks` is odd', () => {
    it('reads null, a getter and a Proxy agent as no background tasks, running none', () => {
      const agent = anAgent();
      fieldsOf(agent)._backgroundTasks = null;
      expect(hasBackgroundTasks(agent)).toBe(false);
      const { proxy, traps } = watchedProxy(backgroundAgent());
      expect(hasBackgroundTasks(proxy)).toBe(false);
      expect(traps).toEqual([]);
      const get = getterOn(agent, '_backgroundTasks', {});
      expect(hasBackgroundTasks(agent)).toBe(false);
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('backgroundDispatchShape', () => {
  describe('when the SDK has background tasks', () => {
    it("reads the prototypes and closure sources of a real agent's dispatch chain, once", async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const shape = backgroundDispatchShape();
      expect(typeof shape).toBe('object');
      if (typeof shape !== 'object') return;
      const agent = backgroundAgent();
      await agent.initialize();
      const tasks = fieldsOf(fieldsOf(agent)._backgroundTasks);
      const manager = fieldsOf(tasks._manager);
      const engine = fieldsOf(manager._engine);
      expect(shape.tasks).toBe(Object.getPrototypeOf(tasks));
      expect(shape.manager).toBe(Object.getPrototypeOf(manager));
      expect(shape.engine).toBe(Object.getPrototypeOf(engine));
      expect(shape.executeTool).toBe(Function.prototype.toString.call(tasks._executeTool));
      expect(shape.engineExecute).toBe(Function.prototype.toString.call(fieldsOf(engine._options).execute));
      expect(backgroundDispatchShape()).toBe(shape);
    });
  });
});

describe('backgroundDispatchProblem', () => {
  describe('when the agent has no background tasks', () => {
    it('finds none on a plain agent, or on one whose field is null', () => {
      const agent = anAgent();
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
      fieldsOf(agent)._backgroundTasks = null;
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
    });

    it('finds none on an object without the field at all (an SDK without background tasks)', () => {
      expect(backgroundDispatchProblem({} as Agent)).toBeUndefined();
    });
  });

  describe('when the field cannot be read as data', () => {
    it('names a getter over `_backgroundTasks`, without running it', () => {
      const agent = anAgent();
      const get = getterOn(agent, '_backgroundTasks', undefined);
      expect(backgroundDispatchProblem(agent)).toBe(
        `the agent's "_backgroundTasks" is a getter, which could show gate-audit one value and the SDK another`,
      );
      expect(get).not.toHaveBeenCalled();
    });

    it('names a Proxy around the agent, without running a trap', () => {
      const { proxy, traps } = watchedProxy(anAgent());
      expect(backgroundDispatchProblem(proxy)).toMatch(/^the agent is a Proxy/);
      expect(traps).toEqual([]);
    });

    it('names a value that is no object', () => {
      expect(backgroundDispatchProblem(null as unknown as Agent)).toBe('the agent is not an object');
    });
  });

  describe("when the agent's dispatcher is the SDK's own", () => {
    it('finds none before and after its first initialize, however often it is read', async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent();
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
      await agent.initialize();
      expect(fieldsOf(fieldsOf(agent)._backgroundTasks)._manager).toBeDefined();
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
    });
  });

  describe('when the dispatcher is replaced or patched', () => {
    it('names a plain object and a Proxy in its place', ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent();
      const own = fieldsOf(agent)._backgroundTasks as object;
      fieldsOf(agent)._backgroundTasks = { routeToolCall: () => true };
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher that is not the SDK's own (its background-task dispatcher is not the SDK's own)",
      );
      const { proxy, traps } = watchedProxy(own);
      fieldsOf(agent)._backgroundTasks = proxy;
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher that is not the SDK's own (its background-task dispatcher is a Proxy)",
      );
      expect(traps).toEqual([]);
    });

    it('names a method replaced on the instance, and a getter among its fields (not run)', ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent();
      const tasks = fieldsOf(agent)._backgroundTasks as Fields;
      tasks.routeToolCall = () => true;
      expect(backgroundDispatchProblem(agent)).toMatch(/"routeToolCall" was replaced on the instance\)$/);
      delete tasks.routeToolCall;
      const get = getterOn(tasks, '_config', {});
      expect(backgroundDispatchProblem(agent)).toMatch(
        /its background-task dispatcher has a getter among its own fields/,
      );
      expect(get).not.toHaveBeenCalled();
    });

    it("names another agent's dispatcher moved over", ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent('a');
      fieldsOf(agent)._backgroundTasks = fieldsOf(backgroundAgent('b'))._backgroundTasks;
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher that is not this agent's own (another agent's, moved over)",
      );
    });

    it('names a dispatcher initialised with another agent', ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent('a');
      fieldsOf(fieldsOf(agent)._backgroundTasks)._agent = backgroundAgent('b');
      expect(backgroundDispatchProblem(agent)).toBe('has a background-task dispatcher initialised with another agent');
    });

    it('names an `_executeTool` that is not the SDK closure', ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent();
      fieldsOf(fieldsOf(agent)._backgroundTasks)._executeTool = () => undefined;
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher whose _executeTool is not the agent's own run through its tool executor",
      );
    });

    it("names another agent's `_executeTool` closure, once that agent was read", ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const other = backgroundAgent('other');
      expect(backgroundDispatchProblem(other)).toBeUndefined();
      const agent = backgroundAgent('a');
      fieldsOf(fieldsOf(agent)._backgroundTasks)._executeTool = fieldsOf(fieldsOf(other)._backgroundTasks)._executeTool;
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher whose _executeTool is another agent's (it runs that agent's tool executor and middleware)",
      );
    });

    it('names an `_executeTool` replaced (by a same-source closure) after gate-audit first read the agent', ({
      skip,
    }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const agent = backgroundAgent('a');
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
      const unread = backgroundAgent('unread');
      fieldsOf(fieldsOf(agent)._backgroundTasks)._executeTool = fieldsOf(
        fieldsOf(unread)._backgroundTasks,
      )._executeTool;
      expect(backgroundDispatchProblem(agent)).toBe(
        'has a background-task dispatcher whose _executeTool was replaced since gate-audit first read it',
      );
    });
  });

  describe("when the dispatcher's task manager or its engine is replaced or patched", () => {
    const initialised = async () => {
      const agent = backgroundAgent();
      await agent.initialize();
      const tasks = fieldsOf(fieldsOf(agent)._backgroundTasks);
      const manager = fieldsOf(tasks._manager);
      return { agent, tasks, manager, engine: fieldsOf(manager._engine) };
    };

    it('names a manager that is not the SDK class', async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const { agent, tasks } = await initialised();
      tasks._manager = { submit: () => undefined };
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher whose its task manager is not the SDK's own",
      );
    });

    it('names a manager bound to another agent, or running another closure', async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const { agent, manager } = await initialised();
      const bound = manager._agent;
      manager._agent = backgroundAgent('b');
      const why =
        "has a background-task dispatcher whose task manager runs calls otherwise than through this agent's _executeTool";
      expect(backgroundDispatchProblem(agent)).toBe(why);
      manager._agent = bound;
      manager._executeTool = () => undefined;
      expect(backgroundDispatchProblem(agent)).toBe(why);
    });

    it('names an engine patched on the instance, or a Proxy engine', async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const { agent, manager, engine } = await initialised();
      const member = Object.getOwnPropertyNames(Object.getPrototypeOf(engine)).find((k) => k !== 'constructor')!;
      engine[member] = () => undefined;
      expect(backgroundDispatchProblem(agent)).toBe(
        `has a background-task dispatcher whose its task manager's engine's "${member}" was replaced on the instance`,
      );
      delete engine[member];
      const { proxy, traps } = watchedProxy(engine);
      manager._engine = proxy;
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher whose its task manager's engine is a Proxy",
      );
      expect(traps).toEqual([]);
    });

    it("names engine options that are no plain data, or an `execute` that is not the manager's", async ({ skip }) => {
      skip(!hasBackgroundTaskFeature, FEATURE_ABSENT['background-tasks']);
      const { agent, engine } = await initialised();
      const options = fieldsOf(engine._options);
      const execute = options.execute;
      options.execute = () => undefined;
      expect(backgroundDispatchProblem(agent)).toBe(
        'has a background-task dispatcher whose task engine runs calls otherwise than through its manager',
      );
      options.execute = execute;
      expect(backgroundDispatchProblem(agent)).toBeUndefined();
      const get = getterOn(options, 'execute', execute);
      expect(backgroundDispatchProblem(agent)).toBe(
        "has a background-task dispatcher whose task engine's options are not plain data",
      );
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('graphSources', () => {
  describe('when the Graph is real', () => {
    it('lists the entry nodes: those no edge leads to, or the sources given', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent('a'), anAgent('b')], edges: [['a', 'b']], maxSteps: 2 });
      expect(graphSources(graph)).toEqual([graph.nodes.get('a')]);
      expect(graphSources(graph)[0]).toBeInstanceOf(AgentNode);
      const chosen = new Graph({
        id: 'h',
        nodes: [anAgent('a'), anAgent('b')],
        edges: [['b', 'a']],
        sources: ['b'],
        maxSteps: 2,
      });
      expect(graphSources(chosen)).toEqual([chosen.nodes.get('b')]);
    });
  });

  describe('when `_sources` is odd', () => {
    it('reads a getter, an Array subclass, a Proxy Graph and a Swarm as no sources, running none', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent('a')], edges: [], maxSteps: 2 });
      const sources = graphSources(graph);
      expect(sources).toHaveLength(1);
      const { proxy, traps } = watchedProxy(graph);
      expect(graphSources(proxy)).toEqual([]);
      expect(traps).toEqual([]);
      fieldsOf(graph)._sources = OddArray.from(sources);
      expect(graphSources(graph)).toEqual([]);
      const get = getterOn(graph, '_sources', sources);
      expect(graphSources(graph)).toEqual([]);
      expect(get).not.toHaveBeenCalled();
      expect(graphSources(new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 }) as never)).toEqual([]);
    });
  });
});

describe('agentNodeExecutor', () => {
  describe('when the node is real', () => {
    it('reads the agent it runs', () => {
      const agent = anAgent();
      expect(agentNodeExecutor(new AgentNode({ agent }))).toEqual({ ok: true, value: agent });
    });
  });

  describe('when `_agent` is odd', () => {
    it('says why: a getter (not run), a Proxy node (no trap run), a node without it, no object', () => {
      const agent = anAgent();
      const node = new AgentNode({ agent });
      const { proxy, traps } = watchedProxy(node);
      expect(agentNodeExecutor(proxy)).toEqual({ ok: false, why: 'proxy' });
      expect(traps).toEqual([]);
      const get = getterOn(node, '_agent', agent);
      expect(agentNodeExecutor(node)).toEqual({ ok: false, why: 'accessor' });
      expect(get).not.toHaveBeenCalled();
      expect(agentNodeExecutor({} as AgentNode)).toEqual({ ok: false, why: 'absent' });
      expect(agentNodeExecutor(null as unknown as AgentNode)).toEqual({ ok: false, why: 'not-object' });
    });

    it("does not read a MultiAgentNode's orchestrator as an agent", () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const node = new MultiAgentNode({ orchestrator: graph });
      expect(agentNodeExecutor(node as unknown as AgentNode)).toEqual({ ok: false, why: 'absent' });
    });
  });
});

describe('multiAgentNodeExecutor', () => {
  describe('when the node is real', () => {
    it('reads the Graph or Swarm it runs', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const swarm = new Swarm({ id: 's', nodes: [anAgent('b')], maxSteps: 2 });
      expect(multiAgentNodeExecutor(new MultiAgentNode({ orchestrator: graph }))).toEqual({ ok: true, value: graph });
      expect(multiAgentNodeExecutor(new MultiAgentNode({ orchestrator: swarm }))).toEqual({ ok: true, value: swarm });
    });
  });

  describe('when `_orchestrator` is odd', () => {
    it('says why: a getter (not run), a Proxy node (no trap run), an AgentNode', () => {
      const graph = new Graph({ id: 'g', nodes: [anAgent()], edges: [], maxSteps: 2 });
      const node = new MultiAgentNode({ orchestrator: graph });
      const { proxy, traps } = watchedProxy(node);
      expect(multiAgentNodeExecutor(proxy)).toEqual({ ok: false, why: 'proxy' });
      expect(traps).toEqual([]);
      const get = getterOn(node, '_orchestrator', graph);
      expect(multiAgentNodeExecutor(node)).toEqual({ ok: false, why: 'accessor' });
      expect(get).not.toHaveBeenCalled();
      const agentNode = new AgentNode({ agent: anAgent() }) as unknown as MultiAgentNode;
      expect(multiAgentNodeExecutor(agentNode)).toEqual({ ok: false, why: 'absent' });
    });
  });
});

describe('agentToolExecutor', () => {
  describe('when the agent is real', () => {
    it('reads its tool executor: concurrent by default, sequential when asked', () => {
      const concurrent = agentToolExecutor(anAgent());
      expect(concurrent.ok && concurrent.value instanceof ConcurrentToolExecutor).toBe(true);
      const sequential = agentToolExecutor(anAgent('s', { toolExecutor: 'sequential' }));
      expect(sequential.ok && sequential.value instanceof SequentialToolExecutor).toBe(true);
    });
  });

  describe('when `_toolExecutor` is odd', () => {
    it('says why: a getter (not run), a Proxy agent (no trap run)', () => {
      const agent = anAgent();
      const { proxy, traps } = watchedProxy(agent);
      expect(agentToolExecutor(proxy)).toEqual({ ok: false, why: 'proxy' });
      expect(traps).toEqual([]);
      const get = getterOn(agent, '_toolExecutor', new SequentialToolExecutor());
      expect(agentToolExecutor(agent)).toEqual({ ok: false, why: 'accessor' });
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('toolExecutorOf', () => {
  describe('when the agent is real', () => {
    it('returns its tool executor', () => {
      const agent = anAgent();
      expect(toolExecutorOf(agent)).toBe(fieldsOf(agent)._toolExecutor);
      expect(toolExecutorOf(agent)).toBeInstanceOf(ConcurrentToolExecutor);
    });
  });

  describe('when the agent is odd', () => {
    it('reads a getter (not run), a Proxy (no trap run), null and a plain object as undefined', () => {
      const agent = anAgent();
      const { proxy, traps } = watchedProxy(agent);
      expect(toolExecutorOf(proxy)).toBeUndefined();
      expect(traps).toEqual([]);
      const get = getterOn(agent, '_toolExecutor', new SequentialToolExecutor());
      expect(toolExecutorOf(agent)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
      expect(toolExecutorOf(null)).toBeUndefined();
      expect(toolExecutorOf({})).toBeUndefined();
    });
  });
});

describe('hasStructuredOutputSchema', () => {
  describe('when the agent is real', () => {
    it('is true for an agent built with a schema and false for one without', () => {
      expect(hasStructuredOutputSchema(anAgent('s', { structuredOutputSchema: z.object({ a: z.string() }) }))).toBe(
        true,
      );
      expect(hasStructuredOutputSchema(anAgent())).toBe(false);
    });
  });

  describe('when `_structuredOutputSchema` is odd', () => {
    it('reads a getter answering a schema as none, without running it, and null as none', () => {
      const agent = anAgent();
      fieldsOf(agent)._structuredOutputSchema = null;
      expect(hasStructuredOutputSchema(agent)).toBe(false);
      const get = getterOn(agent, '_structuredOutputSchema', z.object({}));
      expect(hasStructuredOutputSchema(agent)).toBe(false);
      expect(get).not.toHaveBeenCalled();
      expect(hasStructuredOutputSchema({})).toBe(false);
    });

    it('reads a Proxy agent as none, without running a trap', () => {
      const { proxy, traps } = watchedProxy(anAgent('s', { structuredOutputSchema: z.object({ a: z.string() }) }));
      expect(hasStructuredOutputSchema(proxy)).toBe(false);
      expect(traps).toEqual([]);
    });
  });
});

describe('isSdkToolExecutor', () => {
  describe("when given the SDK's own executors", () => {
    it("is true for a real agent's executor and for both SDK classes", () => {
      expect(isSdkToolExecutor(toolExecutorOf(anAgent()))).toBe(true);
      expect(isSdkToolExecutor(new SequentialToolExecutor())).toBe(true);
      expect(isSdkToolExecutor(new ConcurrentToolExecutor())).toBe(true);
    });
  });

  describe('when the executor is not exactly one of them', () => {
    it('is false for a subclass, even one that overrides nothing', () => {
      class Quiet extends SequentialToolExecutor {}
      expect(isSdkToolExecutor(new Quiet())).toBe(false);
    });

    it('is false for an executor with a member replaced on the instance', () => {
      const executor = new ConcurrentToolExecutor();
      const member = Object.getOwnPropertyNames(ConcurrentToolExecutor.prototype).find((k) => k !== 'constructor')!;
      (executor as unknown as Fields)[member] = () => undefined;
      expect(isSdkToolExecutor(executor)).toBe(false);
    });

    it('is false for a Proxy (no trap run), a plain object, null and a string', () => {
      const { proxy, traps } = watchedProxy(new SequentialToolExecutor());
      expect(isSdkToolExecutor(proxy)).toBe(false);
      expect(traps).toEqual([]);
      expect(isSdkToolExecutor({})).toBe(false);
      expect(isSdkToolExecutor(null)).toBe(false);
      expect(isSdkToolExecutor('sequential')).toBe(false);
    });
  });
});

describe('isA2AAgent', () => {
  describe('when given a real A2AAgent', () => {
    it('recognises it (never contacting it)', () => {
      expect(isA2AAgent(new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' }))).toBe(true);
    });
  });

  describe('when given something else', () => {
    it('is false for an Agent, a Proxy around an A2AAgent (no trap run), null, and an A2AAgent whose `_config` is a getter', () => {
      expect(isA2AAgent(anAgent())).toBe(false);
      const remote = new A2AAgent({ id: 'remote', url: 'http://127.0.0.1:9/x' });
      const { proxy, traps } = watchedProxy(remote);
      expect(isA2AAgent(proxy)).toBe(false);
      expect(traps).toEqual([]);
      expect(isA2AAgent(null)).toBe(false);
      const get = getterOn(remote, '_config', {});
      expect(isA2AAgent(remote)).toBe(false);
      expect(get).not.toHaveBeenCalled();
    });

    it('recognises by shape: a class named A2AAgent with a `_config` object is one, without it is not', () => {
      const LookAlike = class A2AAgent {
        _config: unknown = { url: 'http://x' };
      };
      expect(isA2AAgent(new LookAlike())).toBe(true);
      const bare = new LookAlike();
      bare._config = 'http://x';
      expect(isA2AAgent(bare)).toBe(false);
    });
  });
});

describe('hiddenPrototypes', () => {
  describe('when read on this SDK', () => {
    it("gives the prototypes of a real agent's AgentAsTool and registries, the same object every time", () => {
      const agent = fieldsOf(anAgent());
      const hidden = hiddenPrototypes();
      expect(hidden.agentAsTool).toBe(Object.getPrototypeOf((agent as unknown as Agent).asTool()));
      expect(hidden.hookRegistry).toBe(Object.getPrototypeOf(agent._hooksRegistry));
      expect(hidden.middlewareRegistry).toBe(Object.getPrototypeOf(agent._middlewareRegistry));
      expect(hidden.toolRegistry).toBe(Object.getPrototypeOf(agent._toolRegistry));
      expect(hiddenPrototypes()).toBe(hidden);
    });
  });
});

describe('readAgentTool', () => {
  describe("when the tool is the SDK's own AgentAsTool", () => {
    it('reads the agent it wraps', () => {
      const inner = anAgent('inner');
      expect(readAgentTool(inner.asTool())).toEqual({ kind: 'agent-tool', agent: inner });
    });
  });

  describe('when the tool is no agent tool', () => {
    it('says so for a function tool, a plain object and null', () => {
      expect(readAgentTool(recordingTool('rm'))).toEqual({ kind: 'not-agent-tool' });
      expect(readAgentTool({ name: 'x' })).toEqual({ kind: 'not-agent-tool' });
      expect(readAgentTool(null)).toEqual({ kind: 'not-agent-tool' });
    });
  });

  describe('when the AgentAsTool cannot be trusted to run its agent', () => {
    it('calls a Proxy around one opaque, without running a trap', () => {
      const { proxy, traps } = watchedProxy(anAgent().asTool());
      expect(readAgentTool(proxy)).toEqual({
        kind: 'opaque',
        reason: 'is a Proxy around a tool, whose traps could run anything',
      });
      expect(traps).toEqual([]);
    });

    it('calls a look-alike class named AgentAsTool, and a subclass of the real one, opaque', () => {
      const LookAlike = class AgentAsTool {
        _agent = anAgent();
      };
      const reason = /^is an AgentAsTool from another copy of @strands-agents\/sdk, or a look-alike/;
      const lookAlike = readAgentTool(new LookAlike());
      expect(lookAlike.kind === 'opaque' && lookAlike.reason).toMatch(reason);
      const Real = (Object.getPrototypeOf(anAgent().asTool()) as { constructor: new (...a: unknown[]) => object })
        .constructor;
      const Sub = class AgentAsTool extends Real {};
      const sub = Object.setPrototypeOf(anAgent().asTool(), Sub.prototype) as object;
      const subRead = readAgentTool(sub);
      expect(subRead.kind === 'opaque' && subRead.reason).toMatch(reason);
    });

    it('calls one with an own `stream` opaque', () => {
      const agentTool = anAgent().asTool();
      fieldsOf(agentTool).stream = function* () {
        yield* [];
      };
      expect(readAgentTool(agentTool)).toEqual({
        kind: 'opaque',
        reason: 'is an AgentAsTool whose "stream" was replaced on the instance',
      });
    });

    it('calls one whose `_agent` is a getter opaque, without running it', () => {
      const agentTool = anAgent().asTool();
      const get = getterOn(agentTool, '_agent', anAgent('other'));
      expect(readAgentTool(agentTool)).toEqual({
        kind: 'opaque',
        reason: `the AgentAsTool's "_agent" is a getter, which could show gate-audit one value and the SDK another`,
      });
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('agentAsToolTarget', () => {
  describe('when the tool is a real AgentAsTool', () => {
    it('returns the agent it wraps', () => {
      const inner = anAgent('inner');
      expect(agentAsToolTarget(inner.asTool())).toBe(inner);
    });
  });

  describe('when the tool is another tool or cannot be trusted', () => {
    it('returns undefined for a function tool, a Proxy (no trap run) and a getter `_agent` (not run)', () => {
      expect(agentAsToolTarget(recordingTool('rm'))).toBeUndefined();
      const { proxy, traps } = watchedProxy(anAgent().asTool());
      expect(agentAsToolTarget(proxy)).toBeUndefined();
      expect(traps).toEqual([]);
      const agentTool = anAgent().asTool();
      const get = getterOn(agentTool, '_agent', anAgent('x'));
      expect(agentAsToolTarget(agentTool)).toBeUndefined();
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('isStructuredOutputTool', () => {
  describe("when the tool is the SDK's own", () => {
    it('recognises the tool the agent runs for its structured output', async () => {
      const tool = await structuredOutputTool();
      expect((tool as { name?: unknown }).name).toBe('strands_structured_output');
      expect(isStructuredOutputTool(tool)).toBe(true);
    });
  });

  describe('when the tool only looks like it', () => {
    it('is false for a user tool of the same name, a plain object and null', () => {
      expect(isStructuredOutputTool(recordingTool('strands_structured_output'))).toBe(false);
      expect(isStructuredOutputTool({ name: 'strands_structured_output', _schema: {} })).toBe(false);
      expect(isStructuredOutputTool(null)).toBe(false);
    });

    it('is false for the real one with an own `stream`, without its `_schema`, in a subclass, or in a Proxy', async () => {
      const real = (await structuredOutputTool()) as Fields;
      const { proxy, traps } = watchedProxy(real);
      expect(isStructuredOutputTool(proxy)).toBe(false);
      expect(traps).toEqual([]);
      const Real = (Object.getPrototypeOf(real) as { constructor: new (...a: unknown[]) => object }).constructor;
      const Sub = class StructuredOutputTool extends Real {};
      expect(isStructuredOutputTool(Object.setPrototypeOf({ ...real }, Sub.prototype))).toBe(false);
      const copy = Object.setPrototypeOf({ ...real }, Object.getPrototypeOf(real) as object) as Fields;
      expect(isStructuredOutputTool(copy)).toBe(true);
      copy.stream = () => undefined;
      expect(isStructuredOutputTool(copy)).toBe(false);
      delete copy.stream;
      delete copy._schema;
      expect(isStructuredOutputTool(copy)).toBe(false);
    });
  });
});

describe('isMcpTool', () => {
  describe('when the tool is a real McpTool', () => {
    it('recognises a tool its McpClient listed', async () => {
      const { tool, client } = await mcpTool();
      expect((tool as { name?: unknown }).name).toBe('search');
      expect(isMcpTool(tool)).toBe(true);
      await client.disconnect();
    });
  });

  describe('when its client is not a real McpClient, or the tool is not an McpTool', () => {
    it('is false for a client replaced by a plain object, a Proxy client (no trap run) or a getter (not run)', async () => {
      const { tool, client } = await mcpTool();
      const fields = fieldsOf(tool);
      fields.mcpClient = { callTool: () => undefined };
      expect(isMcpTool(tool)).toBe(false);
      const { proxy, traps } = watchedProxy(client);
      fields.mcpClient = proxy;
      expect(isMcpTool(tool)).toBe(false);
      expect(traps).toEqual([]);
      const get = getterOn(tool as object, 'mcpClient', client);
      expect(isMcpTool(tool)).toBe(false);
      expect(get).not.toHaveBeenCalled();
      await client.disconnect();
    });

    it('is false for a function tool holding an McpClient, and for null', () => {
      const fn = recordingTool('search');
      fieldsOf(fn).mcpClient = new McpClient({ transport: { start: () => Promise.resolve() } as never });
      expect(isMcpTool(fn)).toBe(false);
      expect(isMcpTool(null)).toBe(false);
    });
  });
});

describe('toolKindOf', () => {
  describe('when the tool is one of the SDK kinds', () => {
    it('names function, zod, agent, structured-output and MCP tools', async () => {
      const plain = new FunctionTool({ name: 'f', description: 'f', callback: () => 'ok' });
      const zod = tool({ name: 'z', description: 'z', inputSchema: z.object({}), callback: () => 'ok' });
      expect(toolKindOf(plain)).toBe('function');
      expect(toolKindOf(zod)).toBe('function');
      expect(toolKindOf(anAgent().asTool())).toBe('agent');
      expect(toolKindOf(await structuredOutputTool())).toBe('structured-output');
      const { tool: mcp, client } = await mcpTool();
      expect(toolKindOf(mcp)).toBe('mcp');
      await client.disconnect();
    });
  });

  describe('when the tool is none of them', () => {
    it("names a Proxy (no trap run), a plain object and a user tool called strands_structured_output's kind", () => {
      const { proxy, traps } = watchedProxy(recordingTool('rm'));
      expect(toolKindOf(proxy)).toBe('other');
      expect(traps).toEqual([]);
      expect(toolKindOf({ name: 'x', stream: () => undefined })).toBe('other');
      expect(toolKindOf(null)).toBe('other');
      expect(toolKindOf(recordingTool('strands_structured_output'))).toBe('function');
    });
  });
});

describe('toolFacts', () => {
  describe('when the tool is real', () => {
    it("reads an agent tool's agent and kind, and a function tool's kind", () => {
      const inner = anAgent('inner');
      expect(toolFacts(inner.asTool())).toEqual({ agentTool: { kind: 'agent-tool', agent: inner }, kind: 'agent' });
      expect(toolFacts(recordingTool('rm'))).toEqual({ agentTool: { kind: 'not-agent-tool' }, kind: 'function' });
    });
  });

  describe('when the tool is a Proxy', () => {
    it('reads it opaque and of kind other, without running a trap', () => {
      const { proxy, traps } = watchedProxy(anAgent().asTool());
      const facts = toolFacts(proxy);
      expect(facts.kind).toBe('other');
      expect(facts.agentTool.kind).toBe('opaque');
      expect(traps).toEqual([]);
    });
  });
});

describe('isInterruptError', () => {
  describe("when the error is the SDK's own", () => {
    it('recognises the error a hook’s interrupt() throws', () => {
      const error = interruptError();
      expect(isInterruptError(error)).toBe(true);
      expect((error as { interrupts: { name: string }[] }).interrupts.map((i) => i.name)).toEqual(['approve']);
    });
  });

  describe('when the error only looks like it', () => {
    it('is false for a plain Error, an Error named InterruptError without interrupts, and a non-Error', () => {
      expect(isInterruptError(new Error('x'))).toBe(false);
      const named = new Error('x');
      named.name = 'InterruptError';
      expect(isInterruptError(named)).toBe(false);
      expect(isInterruptError({ name: 'InterruptError', interrupts: [] })).toBe(false);
      expect(isInterruptError(null)).toBe(false);
    });

    it('is false for the real one in a Proxy (no trap run) or with `interrupts` as a getter (not run)', () => {
      const error = interruptError() as Error;
      const { proxy, traps } = watchedProxy(error);
      expect(isInterruptError(proxy)).toBe(false);
      expect(traps).toEqual([]);
      const get = getterOn(error, 'interrupts', []);
      expect(isInterruptError(error)).toBe(false);
      expect(get).not.toHaveBeenCalled();
    });

    it('recognises by shape: an Error named InterruptError holding an interrupts array is one', () => {
      const named = Object.assign(new Error('x'), { name: 'InterruptError', interrupts: [] });
      expect(isInterruptError(named)).toBe(true);
    });
  });
});

describe('agentToolRegistry', () => {
  describe('when the agent is real', () => {
    it('reads its tool registry', () => {
      const agent = anAgent();
      const read = agentToolRegistry(agent);
      expect(read).toEqual({ ok: true, value: fieldsOf(agent)._toolRegistry });
      expect(read.ok && Object.getPrototypeOf(read.value)).toBe(hiddenPrototypes().toolRegistry);
    });
  });

  describe('when `_toolRegistry` is odd', () => {
    it('says why: a getter (not run), a Proxy agent (no trap run)', () => {
      const agent = anAgent();
      const { proxy, traps } = watchedProxy(agent);
      expect(agentToolRegistry(proxy)).toEqual({ ok: false, why: 'proxy' });
      expect(traps).toEqual([]);
      const get = getterOn(agent, '_toolRegistry', {});
      expect(agentToolRegistry(agent)).toEqual({ ok: false, why: 'accessor' });
      expect(get).not.toHaveBeenCalled();
    });
  });
});

describe('listTools', () => {
  describe('when the agent is real', () => {
    it('lists the tools it was built with, and none without', () => {
      const rm = recordingTool('rm');
      const ls = recordingTool('ls');
      expect(listTools(anAgent('t', { tools: [rm, ls] }))).toEqual([rm, ls]);
      expect(listTools(anAgent())).toEqual([]);
    });
  });

  describe('when the registry is odd', () => {
    it('reads a getter registry (not run), a Proxy registry (no trap run) and a registry without `list` as none', () => {
      const agent = anAgent('t', { tools: [recordingTool('rm')] });
      const registry = fieldsOf(agent)._toolRegistry as object;
      const { proxy, traps } = watchedProxy(registry);
      fieldsOf(agent)._toolRegistry = proxy;
      expect(listTools(agent)).toEqual([]);
      expect(traps).toEqual([]);
      fieldsOf(agent)._toolRegistry = {};
      expect(listTools(agent)).toEqual([]);
      fieldsOf(agent)._toolRegistry = { list: () => 'rm' };
      expect(listTools(agent)).toEqual([]);
      const get = getterOn(agent, '_toolRegistry', registry);
      expect(listTools(agent)).toEqual([]);
      expect(get).not.toHaveBeenCalled();
    });

    it("runs no `list` replaced on the registry (a getter or a function) and lists nothing, nor for another prototype's registry", () => {
      const agent = anAgent('t', { tools: [recordingTool('rm')] });
      const registry = fieldsOf(agent)._toolRegistry as object;
      const own = vi.fn(() => ['evil']);
      Object.defineProperty(registry, 'list', { value: own, configurable: true });
      expect(listTools(agent)).toEqual([]);
      expect(own).not.toHaveBeenCalled();
      const get = getterOn(registry, 'list', own);
      expect(listTools(agent)).toEqual([]);
      expect(get).not.toHaveBeenCalled();
      delete (registry as { list?: unknown }).list;
      expect(listTools(agent)).toHaveLength(1);
      const sdkList = (Object.getPrototypeOf(registry) as { list: () => unknown }).list;
      const other = vi.fn(function (this: unknown) {
        return ['evil'];
      });
      Object.setPrototypeOf(registry, { list: other, __proto__: Object.getPrototypeOf(registry) as object });
      expect(listTools(agent)).toEqual([]);
      expect(other).not.toHaveBeenCalled();
      expect(typeof sdkList).toBe('function');
    });
  });
});

describe('interventionHandlers', () => {
  describe('when the agent is real', () => {
    it('lists its intervention handlers in order, and none without', () => {
      class First extends InterventionHandler {
        readonly name = 'first';
      }
      class Second extends InterventionHandler {
        readonly name = 'second';
      }
      const first = new First();
      const second = new Second();
      expect(interventionHandlers(anAgent('i', { interventions: [first, second] }))).toEqual([first, second]);
      expect(interventionHandlers(anAgent())).toEqual([]);
    });
  });

  describe('when the registry is odd', () => {
    it('reads a getter over `_handlers` (not run), a Proxy registry (no trap run) and an Array subclass as none', () => {
      class Only extends InterventionHandler {
        readonly name = 'only';
      }
      const agent = anAgent('i', { interventions: [new Only()] });
      const registry = fieldsOf(agent)._interventionRegistry as Fields;
      const handlers = registry._handlers as unknown[];
      registry._handlers = OddArray.from(handlers);
      expect(interventionHandlers(agent)).toEqual([]);
      const get = getterOn(registry, '_handlers', handlers);
      expect(interventionHandlers(agent)).toEqual([]);
      expect(get).not.toHaveBeenCalled();
      const { proxy, traps } = watchedProxy(registry);
      fieldsOf(agent)._interventionRegistry = proxy;
      expect(interventionHandlers(agent)).toEqual([]);
      expect(traps).toEqual([]);
    });
  });
});

describe('initialisedPluginNames', () => {
  describe('when the agent is real', () => {
    it("names none before the first initialize, then every plugin's name, the agent's own among them", async () => {
      const agent = anAgent('p', { plugins: [plugin('mine')] });
      expect(initialisedPluginNames(agent)).toEqual([]);
      await agent.initialize();
      const names = initialisedPluginNames(agent);
      expect(names).toContain('mine');
      expect(names).toEqual([...(fieldsOf(fieldsOf(agent)._pluginRegistry)._plugins as Map<string, unknown>).keys()]);
    });
  });

  describe('when `_plugins` is odd', () => {
    it('reads a Map subclass, a getter (not run) and a Proxy registry (no trap run) as none, and skips non-string keys', async () => {
      const agent = anAgent('p', { plugins: [plugin('mine')] });
      await agent.initialize();
      const registry = fieldsOf(fieldsOf(agent)._pluginRegistry);
      const plugins = registry._plugins as Map<unknown, unknown>;
      plugins.set(42, plugin('numbered'));
      expect(initialisedPluginNames(agent)).toContain('mine');
      expect(initialisedPluginNames(agent)).not.toContain(42);
      registry._plugins = new OddMap(plugins);
      expect(initialisedPluginNames(agent)).toEqual([]);
      const get = getterOn(registry, '_plugins', plugins);
      expect(initialisedPluginNames(agent)).toEqual([]);
      expect(get).not.toHaveBeenCalled();
      const { proxy, traps } = watchedProxy(registry);
      fieldsOf(agent)._pluginRegistry = proxy;
      expect(initialisedPluginNames(agent)).toEqual([]);
      expect(traps).toEqual([]);
    });
  });
});

/** A function whose source text is exactly `source` (the test transform would reformat one written here). */
// eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fixed string, to keep its spacing
const spaced = (source: string) => (new Function(`return ${source}`) as () => () => boolean)();

describe('isConditionalEdge', () => {
  describe('when the edge is real', () => {
    it('is false for an edge built without a condition and true for one with a handler', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [anAgent('a'), anAgent('b'), anAgent('c')],
        edges: [['a', 'b'], { source: 'a', target: 'c', handler: () => false }],
        maxSteps: 2,
      });
      expect(graph.edges.map((edge) => isConditionalEdge(edge))).toEqual([false, true]);
    });

    it('reads a handler written as `() => true` in any spacing as no condition, and any other as one', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [anAgent('a'), anAgent('b'), anAgent('c')],
        edges: [
          { source: 'a', target: 'b', handler: spaced('()   =>\n  true') },
          { source: 'a', target: 'c', handler: spaced('() => !false') },
        ],
        maxSteps: 2,
      });
      expect(String(graph.edges[0]!.handler)).toBe('()   =>\n  true');
      expect(graph.edges.map((edge) => isConditionalEdge(edge))).toEqual([false, true]);
    });
  });

  describe('when the handler cannot be read as a function', () => {
    it('reads a getter (not run), a missing handler and a Proxy edge (no trap run) as no condition', () => {
      const graph = new Graph({
        id: 'g',
        nodes: [anAgent('a'), anAgent('b')],
        edges: [{ source: 'a', target: 'b', handler: () => false }],
        maxSteps: 2,
      });
      const edge = graph.edges[0]!;
      const { proxy, traps } = watchedProxy(edge);
      expect(isConditionalEdge(proxy)).toBe(false);
      expect(traps).toEqual([]);
      const get = getterOn(edge, 'handler', () => false);
      expect(isConditionalEdge(edge)).toBe(false);
      expect(get).not.toHaveBeenCalled();
      expect(isConditionalEdge({ source: 'a', target: 'b' })).toBe(false);
      expect(isConditionalEdge(null)).toBe(false);
    });
  });
});
