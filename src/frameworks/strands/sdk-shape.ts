/**
 * The SDK shape self-check: every private field of `@strands-agents/sdk` that gate-audit reads
 * (`sdk-internals.ts`, `sdk-mutations.ts`), marked required or feature-dependent, and a check of each on
 * fresh probe objects of the loaded SDK, through the same accessors the walker and the gate use.
 *
 * Why: an SDK release may rename a private field. Every accessor reads defensively, so a renamed field would
 * read as "no hooks", "no plugins" or "not an agent-as-tool", and an audit could show `gated` on an SDK
 * whose internals it cannot read. The check turns that into one refusal naming the field (`SDK_SHAPE`).
 *
 * Probes are our own objects (agents with a scripted model that is never called, a Graph, a Swarm): they
 * print nothing and nothing of the user's is touched.
 */
import {
  Agent,
  AgentNode,
  agentToolExecutor,
  agentToolRegistry,
  MultiAgentNode,
  multiAgentNodeExecutor,
  BeforeNodeCallEvent,
  BeforeToolCallEvent,
  ExecuteToolStage,
  Graph,
  Swarm,
  agentAsToolTarget,
  agentNodeExecutor,
  backgroundDispatchProblem,
  graphSources,
  hasBackgroundTasks,
  interventionHandlers,
  isConditionalEdge,
  isInitialized,
  isSdkToolExecutor,
  nodeCallHooks,
  pendingPlugins,
  toolCallHooks,
  toolMiddleware,
} from './sdk-internals.js';
import { readData } from '../../walker/safe-read.js';
import { type AgentConfig, InterventionHandler } from '@strands-agents/sdk';
import { ProbeModel } from './probe-model.js';

/** SDK features that came later than the oldest supported version, detected by presence. */
export type SdkFeature = 'background-tasks';

/** Why a test of a feature skips on an SDK without it (the note `npm run sdk-matrix` groups by). */
export const FEATURE_ABSENT: Readonly<Record<SdkFeature, string>> = {
  'background-tasks': 'no background tasks in this SDK (Agent ignores the backgroundTasks option)',
};

/** The JavaScript type a field must have. */
export type SdkFieldType = 'Map' | 'array' | 'boolean' | 'function' | 'object';

/** One private field gate-audit reads. */
export interface SdkField {
  /** The SDK object it is read from. */
  readonly owner:
    | 'Agent'
    | 'Graph'
    | 'Swarm'
    | 'AgentNode'
    | 'MultiAgentNode'
    | 'AgentAsTool'
    | 'StructuredOutputTool'
    | 'ZodTool'
    | 'A2AAgent';
  /** The property path, e.g. `_hooksRegistry._callbacks`. */
  readonly field: string;
  /** The type it must have. */
  readonly type: SdkFieldType;
  /**
   * `required`: every supported SDK has it; a feature name: present exactly when the SDK has that feature
   * (then checked on a probe configured with the feature); `tracing`: read only by `gate-audit/otel` to
   * place a decision's span, never refusing an install (unreadable, the span is parented to the active
   * context and says so).
   */
  readonly need: 'required' | SdkFeature | 'a2a' | 'tracing';
  /**
   * `probe`: checked here on fresh probe objects. `run`: the object exists only during a run or behind an
   * optional peer, so it is checked by the behavioural self-test and the suite, and reading it wrong fails
   * closed (the tool is judged as an ordinary tool; the remote agent is refused as a foreign executor).
   */
  readonly checked: 'probe' | 'run';
  /** What gate-audit uses it for. */
  readonly why: string;
}

/** Every private SDK field gate-audit reads. A test keeps this list in step with `sdk-internals.ts`. */
export const SDK_FIELDS: readonly SdkField[] = [
  {
    owner: 'Agent',
    field: '_hooksRegistry._callbacks',
    type: 'Map',
    need: 'required',
    checked: 'probe',
    why: 'lists BeforeToolCallEvent callbacks (keeps the gate first, reports other hooks)',
  },
  {
    owner: 'Agent',
    field: '_middlewareRegistry._handlers',
    type: 'Map',
    need: 'required',
    checked: 'probe',
    why: 'lists ExecuteToolStage middleware (keeps the execution check innermost)',
  },
  {
    owner: 'Agent',
    field: '_pluginRegistry._pending',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: 'finds a GatePlugin not yet initialised, and plugins that add hooks at the first run',
  },
  {
    owner: 'Agent',
    field: '_pluginRegistry._plugins',
    type: 'Map',
    need: 'required',
    checked: 'probe',
    why: 'names the plugins an agent initialised',
  },
  {
    owner: 'Agent',
    field: '_initialized',
    type: 'boolean',
    need: 'required',
    checked: 'probe',
    why: 'tells whether MCP and plugin tools are loaded yet',
  },
  {
    owner: 'Agent',
    field: '_mcpClients',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: 'counts MCP clients whose tools appear only at init',
  },
  {
    owner: 'Agent',
    field: '_interventionRegistry._handlers',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: 'lists intervention handlers (fail-open or shared ones are reported)',
  },
  {
    owner: 'Agent',
    field: '_toolExecutor',
    type: 'object',
    need: 'required',
    checked: 'probe',
    why: 'the tool executor an agent runs its tools with (a custom one could skip the hooks)',
  },
  {
    owner: 'Agent',
    field: '_toolRegistry',
    type: 'object',
    need: 'required',
    checked: 'probe',
    why: "the agent's tools (listed in the report, agents used as tools gated too)",
  },
  {
    owner: 'Agent',
    field: '_backgroundTasks',
    type: 'object',
    need: 'background-tasks',
    checked: 'probe',
    why: 'tells whether an agent runs tools in the background',
  },
  {
    owner: 'Agent',
    field: '_backgroundTasks._executeTool',
    type: 'function',
    need: 'background-tasks',
    checked: 'probe',
    why: "the agent's closure a background call runs through (its tool executor and middleware, so the gate check)",
  },
  {
    owner: 'Agent',
    field: '_backgroundTasks._manager',
    type: 'object',
    need: 'background-tasks',
    checked: 'probe',
    why: 'the task manager the dispatcher makes at the first initialize, checked and locked like the dispatcher',
  },
  {
    owner: 'Agent',
    field: '_backgroundTasks._manager._engine',
    type: 'object',
    need: 'background-tasks',
    checked: 'probe',
    why: "the task manager's engine, which runs each background call through the manager",
  },
  {
    owner: 'Agent',
    field: '_backgroundTasks._manager._engine._options.execute',
    type: 'function',
    need: 'background-tasks',
    checked: 'probe',
    why: "the engine's callback into the manager: a replaced one would run calls around the agent's closure",
  },
  {
    owner: 'Graph',
    field: '_hookRegistry._callbacks',
    type: 'Map',
    need: 'required',
    checked: 'probe',
    why: 'lists BeforeNodeCallEvent callbacks (the node guard)',
  },
  {
    owner: 'Graph',
    field: '_hookRegistry.addCallback',
    type: 'function',
    need: 'required',
    checked: 'probe',
    why: 'registers the node guard with an order (Graph.addHook takes none)',
  },
  {
    owner: 'Graph',
    field: '_sources',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: "the Graph's entry nodes, checked against its node map",
  },
  {
    owner: 'Graph',
    field: '_pluginRegistry._pending',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: 'plugins of an orchestrator',
  },
  {
    owner: 'Swarm',
    field: '_hookRegistry._callbacks',
    type: 'Map',
    need: 'required',
    checked: 'probe',
    why: 'lists BeforeNodeCallEvent callbacks (the node guard)',
  },
  {
    owner: 'Swarm',
    field: '_hookRegistry.addCallback',
    type: 'function',
    need: 'required',
    checked: 'probe',
    why: 'registers the node guard with an order (Swarm.addHook takes none)',
  },
  {
    owner: 'Swarm',
    field: '_pluginRegistry._pending',
    type: 'array',
    need: 'required',
    checked: 'probe',
    why: 'plugins of an orchestrator',
  },
  {
    owner: 'AgentNode',
    field: '_agent',
    type: 'object',
    need: 'required',
    checked: 'probe',
    why: 'the executor a node really runs (`.agent` is only a getter over it)',
  },
  {
    owner: 'MultiAgentNode',
    field: '_orchestrator',
    type: 'object',
    need: 'required',
    checked: 'probe',
    why: 'the nested Graph or Swarm a node really runs (`.orchestrator` is only a getter over it)',
  },
  {
    owner: 'AgentAsTool',
    field: '_agent',
    type: 'object',
    need: 'required',
    checked: 'probe',
    why: 'the agent a tool runs, gated too and refused when it carries no gate',
  },
  {
    owner: 'ZodTool',
    field: '_functionTool',
    type: 'object',
    need: 'required',
    checked: 'run',
    why: 'the FunctionTool a tool() wraps and runs, made read-only with it after its first decision',
  },
  {
    owner: 'AgentAsTool',
    field: '_busy',
    type: 'boolean',
    need: 'required',
    checked: 'probe',
    why: 'the flag the SDK sets on the tool while it runs: the one own field the tool lock leaves writable',
  },
  {
    owner: 'StructuredOutputTool',
    field: '_schema',
    type: 'object',
    need: 'required',
    checked: 'run',
    why: "recognises the SDK's own structured-output (handoff) tool",
  },
  {
    owner: 'Agent',
    field: '_tracer._loopSpan',
    type: 'object',
    need: 'tracing',
    checked: 'run',
    why: "the agent's current loop-cycle span (never made active): parent of a refused call's gate_audit.decide span",
  },
  {
    owner: 'Graph',
    field: '_tracer._multiAgentSpan',
    type: 'object',
    need: 'tracing',
    checked: 'run',
    why: "the Graph's invoke span, parent of its node spans: finds the node span of a node the guard cancels",
  },
  {
    owner: 'Swarm',
    field: '_tracer._multiAgentSpan',
    type: 'object',
    need: 'tracing',
    checked: 'run',
    why: "the Swarm's invoke span, parent of its node spans: finds the node span of a node the guard cancels",
  },
  {
    owner: 'A2AAgent',
    field: '_config',
    type: 'object',
    need: 'a2a',
    checked: 'run',
    why: 'recognises a remote agent (refused as remote)',
  },
];

/** Fresh SDK objects the check reads. Exported so tests can rename a field on one before checking. */
export interface SdkProbes {
  /** An agent with a hook, a middleware handler, a pending plugin and an intervention of ours. */
  readonly agent: Agent;
  /** An agent configured with each later feature (the SDK ignores what it does not know). */
  readonly featureAgents: Readonly<Record<SdkFeature, Agent>>;
  /** A plain agent, to tell a feature's probe apart. */
  readonly plainAgent: Agent;
  /**
   * A Graph from `agent` to `plainAgent` (no condition) and to a third agent (a condition), with a nested Swarm
   * (`probe-nested`) and a node hook.
   */
  readonly graph: Graph;
  /** A Swarm of two agents with a node hook. */
  readonly swarm: Swarm;
  /** `agent.asTool()`. */
  readonly agentTool: unknown;
  /** The callbacks and handlers the probes carry, to find them again through the accessors. */
  readonly marks: {
    readonly hook: () => void;
    readonly earlyHook: () => void;
    readonly nodeHook: () => void;
    readonly middleware: (...args: never[]) => unknown;
    readonly plugin: object;
    readonly intervention: object;
  };
}

class ProbeIntervention extends InterventionHandler {
  readonly name = 'gate-audit:shape-probe';
}

/** Builds fresh probe objects of the loaded SDK. Nothing runs; nothing prints. */
export function makeSdkProbes(): SdkProbes {
  const hook = (): void => undefined;
  const earlyHook = (): void => undefined;
  const nodeHook = (): void => undefined;
  // A handler that never runs: it only has to be found again in the registry.
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  const middleware = async function* (): AsyncGenerator<never, undefined> {
    return undefined;
  };
  const plugin = { name: 'gate-audit:shape-probe', initAgent: (): void => undefined };
  const intervention = new ProbeIntervention();
  const base = { printer: false } as const;
  const agent = new Agent({
    ...base,
    id: 'probe-a',
    model: new ProbeModel(),
    plugins: [plugin],
    interventions: [intervention],
  });
  agent.addHook(BeforeToolCallEvent, hook);
  // Registered second with a lower order: a registry that honours order puts it first.
  agent.addHook(BeforeToolCallEvent, earlyHook, { order: Number.NEGATIVE_INFINITY });
  agent.addMiddleware(ExecuteToolStage, middleware as never);
  const plainAgent = new Agent({ ...base, id: 'probe-b', model: new ProbeModel() });
  // Typed loosely: SDKs without background tasks do not know the option (and ignore it).
  const backgroundConfig: Record<string, unknown> = {
    ...base,
    id: 'probe-background',
    model: new ProbeModel(),
    backgroundTasks: true,
  };
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- needed with older SDK types
  const backgroundAgent = new Agent(backgroundConfig as AgentConfig);
  // Its task manager exists only once the dispatcher is initialised with its agent (the probe, never run).
  const backgroundTasks = readData(backgroundAgent, '_backgroundTasks') as { initAgent?: unknown } | undefined;
  if (typeof backgroundTasks?.initAgent === 'function') {
    (backgroundTasks.initAgent as (agent: Agent) => void).call(backgroundTasks, backgroundAgent);
  }
  const nested = new Swarm({
    id: 'probe-nested',
    nodes: [new Agent({ ...base, id: 'probe-f', model: new ProbeModel() })],
    maxSteps: 4,
  });
  const graph = new Graph({
    id: 'probe-graph',
    nodes: [agent, plainAgent, new Agent({ ...base, id: 'probe-e', model: new ProbeModel() }), nested],
    edges: [
      ['probe-a', 'probe-b'],
      { source: 'probe-a', target: 'probe-e', handler: () => false },
      ['probe-a', 'probe-nested'],
    ],
    sources: ['probe-a'],
    maxSteps: 4,
  });
  graph.addHook(BeforeNodeCallEvent, nodeHook);
  const swarm = new Swarm({
    id: 'probe-swarm',
    nodes: [
      new Agent({ ...base, id: 'probe-c', model: new ProbeModel() }),
      new Agent({ ...base, id: 'probe-d', model: new ProbeModel() }),
    ],
    maxSteps: 4,
  });
  swarm.addHook(BeforeNodeCallEvent, nodeHook);
  return {
    agent,
    plainAgent,
    featureAgents: { 'background-tasks': backgroundAgent },
    graph,
    swarm,
    agentTool: agent.asTool(),
    marks: { hook, earlyHook, nodeHook, middleware, plugin, intervention },
  };
}

/** What the check found wrong: the first field that does not have the shape gate-audit reads. */
export interface ShapeProblem {
  /** The SDK object, e.g. `Agent`. */
  readonly owner: string;
  /** The field path. */
  readonly field: string;
  /** What gate-audit expects. */
  readonly expected: string;
  /** What the probe has instead. */
  readonly found: string;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (value instanceof Map) return 'a Map';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object (${value.constructor?.name ?? 'no class'})`;
  return `a ${typeof value}`;
}

function hasType(value: unknown, type: SdkFieldType): boolean {
  switch (type) {
    case 'Map':
      return value instanceof Map;
    case 'array':
      return Array.isArray(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'function':
      return typeof value === 'function';
    case 'object':
      return typeof value === 'object' && value !== null;
  }
}

function readPath(owner: unknown, path: string): unknown {
  let value: unknown = owner;
  for (const key of path.split('.')) {
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function ownerProbe(probes: SdkProbes, field: SdkField): unknown {
  switch (field.owner) {
    case 'Agent':
      return field.need === 'background-tasks' ? probes.featureAgents['background-tasks'] : probes.agent;
    case 'Graph':
      return probes.graph;
    case 'Swarm':
      return probes.swarm;
    case 'AgentNode':
      return probes.graph.nodes.get('probe-a');
    case 'MultiAgentNode':
      return probes.graph.nodes.get('probe-nested');
    case 'AgentAsTool':
      return probes.agentTool;
    default:
      return undefined;
  }
}

const pluginNames = (agent: Agent): string[] =>
  pendingPlugins(agent).map((p) => String((p as { name?: unknown } | null)?.name));

/**
 * Which later features the loaded SDK has, told by presence: a probe configured with the feature differs
 * from a plain one (the SDK registers the feature's plugin), never by version number.
 *
 * @param probes - fresh probes (made when not given)
 */
export function sdkFeatures(probes: SdkProbes = makeSdkProbes()): Readonly<Record<SdkFeature, boolean>> {
  const plain = new Set(pluginNames(probes.plainAgent));
  const background = pluginNames(probes.featureAgents['background-tasks']).some((name) => !plain.has(name));
  return { 'background-tasks': background };
}

function problem(owner: string, field: string, expected: string, found: string): ShapeProblem {
  return { owner, field, expected, found };
}

/** What the accessors must read on the probes: each names the field it rests on. */
function accessorProblem(probes: SdkProbes, features: Readonly<Record<SdkFeature, boolean>>): ShapeProblem | undefined {
  const { agent, graph, swarm, marks } = probes;
  const hooks = toolCallHooks(agent);
  const hookIndex = hooks?.findIndex((e) => e.callback === marks.hook) ?? -1;
  const earlyIndex = hooks?.findIndex((e) => e.callback === marks.earlyHook) ?? -1;
  if (hookIndex === -1 || typeof hooks?.[hookIndex]?.order !== 'number') {
    return problem('Agent', '_hooksRegistry._callbacks', 'entries { callback, order } per event class', 'no entry');
  }
  if (earlyIndex === -1 || earlyIndex > hookIndex) {
    return problem('Agent', '_hooksRegistry._callbacks', 'callbacks sorted by their order', 'registration order');
  }
  for (const [owner, orchestrator] of [
    ['Graph', graph],
    ['Swarm', swarm],
  ] as const) {
    if (!(nodeCallHooks(orchestrator) ?? []).some((e) => e.callback === marks.nodeHook)) {
      return problem(owner, '_hookRegistry._callbacks', 'entries { callback, order } per event class', 'no entry');
    }
  }
  const middleware = toolMiddleware(agent) ?? [];
  if (!middleware.some((m) => m.handler === marks.middleware && typeof m.phase === 'string')) {
    return problem('Agent', '_middlewareRegistry._handlers', 'entries { phase, handler } per stage', 'no entry');
  }
  if (!pendingPlugins(agent).includes(marks.plugin)) {
    return problem('Agent', '_pluginRegistry._pending', 'the plugins given at construction', 'not there');
  }
  if (isInitialized(agent)) {
    return problem('Agent', '_initialized', 'false before the first run', 'true');
  }
  if (!interventionHandlers(agent).includes(marks.intervention)) {
    return problem('Agent', '_interventionRegistry._handlers', 'the interventions given at construction', 'not there');
  }
  const node = graph.nodes.get('probe-a');
  const nodeRead = node instanceof AgentNode ? agentNodeExecutor(node) : undefined;
  if (nodeRead?.ok !== true || nodeRead.value !== agent) {
    return problem('AgentNode', '_agent', 'the agent the node was built from, as plain data', 'another value');
  }
  const nestedNode = graph.nodes.get('probe-nested');
  const nestedRead = nestedNode instanceof MultiAgentNode ? multiAgentNodeExecutor(nestedNode) : undefined;
  if (nestedRead?.ok !== true || !(nestedRead.value instanceof Swarm)) {
    return problem(
      'MultiAgentNode',
      '_orchestrator',
      'the Swarm the node was built from, as plain data',
      'another value',
    );
  }
  if (!graphSources(graph).includes(node)) {
    return problem('Graph', '_sources', 'the entry nodes', 'not the entry node');
  }
  if (agentAsToolTarget(probes.agentTool) !== agent) {
    return problem('AgentAsTool', '_agent', 'the agent of asTool()', 'another value');
  }
  const executor = agentToolExecutor(agent);
  if (!executor.ok || !isSdkToolExecutor(executor.value) || executor.value !== agent.toolExecutor) {
    return problem('Agent', '_toolExecutor', "one of the SDK's two tool executors, as plain data", 'another value');
  }
  const registry = agentToolRegistry(agent);
  if (!registry.ok || registry.value !== agent.toolRegistry) {
    return problem('Agent', '_toolRegistry', "the agent's tool registry, as plain data", 'another value');
  }
  const [plainEdge, conditionalEdge] = graph.edges;
  if (plainEdge === undefined || conditionalEdge === undefined) {
    return problem('Graph', 'edges', 'the edges given at construction', 'fewer');
  }
  if (isConditionalEdge(plainEdge) || !isConditionalEdge(conditionalEdge)) {
    return problem('Graph', 'edges[].handler', '() => true for an edge without condition', 'another handler');
  }
  if (features['background-tasks']) {
    if (!hasBackgroundTasks(probes.featureAgents['background-tasks']) || hasBackgroundTasks(probes.plainAgent)) {
      return problem('Agent', '_backgroundTasks', 'set exactly when background tasks are configured', 'not so');
    }
    const dispatch = backgroundDispatchProblem(probes.featureAgents['background-tasks']);
    if (dispatch !== undefined) {
      return problem(
        'Agent',
        '_backgroundTasks',
        "the SDK's own dispatcher, manager and engine, as plain data",
        dispatch,
      );
    }
  }
  return undefined;
}

/**
 * Checks every field of `SDK_FIELDS` checked by probe: its type on the probe, then what the accessors read.
 *
 * @param probes - fresh probes of the loaded SDK (made when not given)
 * @returns the first problem, or undefined when gate-audit can read this SDK
 */
export function checkSdkShape(probes: SdkProbes = makeSdkProbes()): ShapeProblem | undefined {
  const features = sdkFeatures(probes);
  for (const field of SDK_FIELDS) {
    if (field.checked !== 'probe') continue;
    if (field.need !== 'required' && field.need !== 'a2a' && field.need !== 'tracing' && !features[field.need]) {
      continue;
    }
    const value = readPath(ownerProbe(probes, field), field.field);
    if (!hasType(value, field.type)) {
      const expected =
        field.type === 'Map' || field.type === 'array'
          ? `${field.type === 'Map' ? 'a' : 'an'} ${field.type}`
          : `a ${field.type}`;
      return problem(field.owner, field.field, expected, describe(value));
    }
  }
  return accessorProblem(probes, features);
}
