/**
 * In-process fault tests of the behavioural self-test, so that mutation testing (whose mutants live only in this
 * process) can see each check fail. Each test makes the real, loaded SDK misbehave the way a release could: one of
 * the SDK's own prototype methods is replaced for the test (the classes stay real, nothing is mocked) and put back
 * after it. `runSelfTest()` must then fail on exactly the check that guards against that change, with what the
 * check saw. The checks run in order and stop at the first failure, so a fault that breaks an earlier check too
 * would be reported under that earlier check: where a realistic fault would do so, it is scoped to the target
 * check's probe (by its id) and the test says so.
 *
 * Surviving mutants of sdk-self-test.ts (CONTRIBUTING.md, "Mutation testing"), each changing no outcome of a check:
 * - the probes' ids, prompts, scripted texts, the recording tool's return text, the gates' names, the Graph and
 *   Swarm ids and `maxSteps`, the handoff message: labels that no check reads.
 * - the deny gate's verdict object and the broken gate's body (→ `{}`, `() => undefined`, an empty `throw`): a
 *   non-decision or no answer is refused as a gate error, so the tool still does not run and the run still stops.
 * - `{ order: +Infinity }` of the "last" hooks (→ `{}`): registered after the default hook, it still runs last.
 * - `expectThat(ran.length === 0 && …)` in the swapped-node check (the first half → `true`): a tool body runs only
 *   when the swapped-in agent's model asks for it, which the second half sees.
 * - the swapped-node check's allow gate (never asked) and the `check N` fallback name (every check has a text).
 */
import {
  Agent,
  BeforeModelCallEvent,
  BeforeToolCallEvent,
  SequentialToolExecutor,
  TextBlock,
  ToolResultBlock,
} from '@strands-agents/sdk';
import {
  AfterMultiAgentInvocationEvent,
  AgentNode,
  BeforeNodeCallEvent,
  Graph,
  MultiAgentHandoffEvent,
  Swarm,
} from '@strands-agents/sdk/multiagent';
import { z } from 'zod';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureSdk } from '../../../src/frameworks/strands/sdk-check.js';
import { runSelfTest } from '../../../src/frameworks/strands/sdk-self-test.js';
import { ProbeModel } from '../../../src/frameworks/strands/probe-model.js';
import { graphSources, hiddenPrototypes } from '../../../src/frameworks/strands/sdk-internals.js';

/** The checks, spelled out (not read from `SELF_TEST_CHECKS`, so a changed text is seen). */
const HOOK_ORDER = 'hook callbacks run by their order, not by when they were registered';
const DENIED_TOOL = "a denied tool's body does not run";
const SWAPPED_NODE = 'a node swapped in after install is cancelled';
const GATE_ERROR = 'a gate error stops the run';
const HANDOFF = 'the Swarm announces a handoff before the next node runs';
const OUTERMOST = "gate-audit's hooks run outermost, and what they set holds";

type Method = (...args: never[]) => unknown;
type Events = AsyncGenerator<unknown, unknown, unknown>;

const restores: (() => void)[] = [];
/** Every property a test changed, with what it was before any test: checked after the last test. */
const originals = new Map<object, Map<string, PropertyDescriptor>>();

/** Records an own property of the SDK so that it is put back at the end of the test; returns it as it is now. */
function keep(owner: object, key: string): PropertyDescriptor {
  const descriptor = Object.getOwnPropertyDescriptor(owner, key);
  if (descriptor === undefined) throw new Error(`the SDK has nothing named ${key} here: the fault cannot be simulated`);
  restores.push(() => Object.defineProperty(owner, key, descriptor));
  const known = originals.get(owner) ?? new Map<string, PropertyDescriptor>();
  if (!known.has(key)) known.set(key, descriptor);
  originals.set(owner, known);
  return descriptor;
}

/**
 * Replaces an SDK method (an own method of `owner`, usually a prototype) until the end of the test.
 *
 * @param make - builds the replacement from the original
 */
function patch(owner: object, key: string, make: (original: Method) => Method): void {
  const descriptor = keep(owner, key);
  const original: unknown = descriptor.value;
  if (typeof original !== 'function') throw new Error(`${key} is not a method: the fault cannot be simulated`);
  Object.defineProperty(owner, key, { ...descriptor, value: make(original as Method) });
}

/** Replaces an own data property until the end of the test. */
function replaceProperty(owner: object, key: string, value: unknown): void {
  Object.defineProperty(owner, key, { ...keep(owner, key), value });
}

/**
 * Relays an SDK event generator to its consumer; `skip` drops an event (its hooks never run), `standIn` hands the
 * consumer another event in its place (its hooks act on that one, the SDK reads its own), `afterHooks` sees
 * each event once the consumer resumed the generator (after the hooks on it ran).
 */
async function* relay(
  events: Events,
  options: {
    skip?: (event: unknown) => boolean;
    standIn?: (event: unknown) => unknown;
    afterHooks?: (event: unknown) => void | Promise<void>;
  } = {},
): Events {
  let next = await events.next();
  try {
    while (!next.done) {
      const event = next.value;
      if (options.skip?.(event) !== true) {
        yield options.standIn === undefined ? event : options.standIn(event);
        await options.afterHooks?.(event);
      }
      next = await events.next();
    }
    return next.value;
  } finally {
    if (next.done !== true) await events.return(undefined);
  }
}

/** An SDK event stream that yields `events`, then returns `result`. */
// eslint-disable-next-line @typescript-eslint/require-await
async function* eventsOf(events: readonly unknown[], result?: unknown): Events {
  for (const event of events) yield event;
  return result;
}

/** The id of the agent of a tool executor's options (`options.agent.id`). */
function agentIdOf(options: unknown): unknown {
  return (options as { agent?: { id?: unknown } } | undefined)?.agent?.id;
}

/** What the SDK's tool executors share (`executeTool`, `_executeToolWithMiddleware`, `_executeToolCore`). */
const toolExecutor = Object.getPrototypeOf(SequentialToolExecutor.prototype) as object;

type ToolCore = (options: unknown, tool: unknown, toolUse: unknown, invocationState: unknown) => Events;

/**
 * A tool path that still fires `BeforeToolCallEvent` but acts on no hook's cancel and runs no `ExecuteToolStage`
 * middleware: the tool's body runs whatever the gate decided.
 *
 * @param agentId - only for this agent (others keep the SDK's path), or every agent
 */
function toolPathIgnoresGate(agentId?: string): void {
  const applies = (options: unknown): boolean => agentId === undefined || agentIdOf(options) === agentId;
  patch(
    toolExecutor,
    'executeTool',
    (original) =>
      function (this: unknown, ...args: never[]): Events {
        const events = original.apply(this, args) as Events;
        if (!applies(args[0])) return events;
        // The hooks decide on a stand-in: the SDK's own event keeps no cancel, as if it read none.
        return relay(events, {
          standIn: (event) =>
            event instanceof BeforeToolCallEvent
              ? new BeforeToolCallEvent({
                  agent: event.agent,
                  toolUse: event.toolUse,
                  tool: event.tool,
                  invocationState: event.invocationState,
                })
              : event,
        });
      },
  );
  patch(
    toolExecutor,
    '_executeToolWithMiddleware',
    (original) =>
      function (this: unknown, ...args: never[]): unknown {
        if (!applies(args[0])) return original.apply(this, args);
        const [options, tool, toolUse, invocationState] = args as unknown[];
        return (this as { _executeToolCore: ToolCore })._executeToolCore(options, tool, toolUse, invocationState);
      },
  );
}

/**
 * A Graph that resolves its entry nodes by id when a run starts (so a node swapped in `nodes` is what runs) and
 * acts on no node hook's cancel. This SDK starts from the node objects it resolved at construction, so a swap in
 * `nodes` alone would run nothing.
 */
function graphRunsCancelledSwap(): void {
  patch(
    Graph.prototype,
    '_findResumeTargets',
    (original) =>
      async function (this: Graph, ...args: never[]): Promise<unknown> {
        const resumed = await original.apply(this, args);
        return resumed ?? graphSources(this).map((node) => this.nodes.get((node as AgentNode).id));
      },
  );
  patch(
    Graph.prototype,
    '_runBeforeNodeCall',
    (original) =>
      async function* (this: unknown, ...args: never[]): Events {
        yield* original.apply(this, args) as Events;
        return undefined;
      },
  );
}

/** A hook registry that ignores `order` (callbacks run as registered), for every event class or only `only`. */
function hookOrderIgnored(only?: unknown): void {
  patch(
    hiddenPrototypes().hookRegistry,
    'addCallback',
    (original) =>
      function (this: unknown, ...args: never[]): unknown {
        const [eventType, callback, options] = args as unknown[];
        if (only !== undefined && eventType !== only) return original.apply(this, args);
        // Every callback at the same order: they run as registered.
        return (original as (...a: unknown[]) => unknown).call(this, eventType, callback, {
          ...(options as object | undefined),
          order: 0,
        });
      },
  );
}

/** The class of the SDK's structured-output (handoff) tool, read from a real run of an agent with a schema. */
async function structuredOutputToolClass(): Promise<object> {
  let found: unknown;
  const agent = new Agent({
    id: 'fault-test-schema',
    printer: false,
    model: new ProbeModel([{ tools: [{ name: 'strands_structured_output', input: { answer: 'yes' } }] }]),
  });
  agent.addHook(BeforeToolCallEvent, (event) => {
    found = event.tool?.constructor;
  });
  await agent.invoke('go', { structuredOutputSchema: z.object({ answer: z.string() }) });
  if (typeof found !== 'function' || found.name !== 'StructuredOutputTool') {
    throw new Error(`the structured-output tool was not seen (${String(found)})`);
  }
  return found;
}

let structuredOutputTool: object;

beforeAll(async () => {
  // The SDK's shape check runs once per process, at the first install: let it run on the unpatched SDK.
  ensureSdk();
  structuredOutputTool = await structuredOutputToolClass();
});

beforeEach(() => {
  // The probes' gates log their refusals to stderr.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'warn').mockImplementation(() => undefined);
});

afterEach(() => {
  for (const restore of restores.splice(0).reverse()) restore();
  vi.restoreAllMocks();
});

afterAll(() => {
  // Nothing may leak into the next file (the mutation config shares one module cache between files).
  for (const [owner, keys] of originals) {
    for (const [key, descriptor] of keys) expect(Object.getOwnPropertyDescriptor(owner, key)).toEqual(descriptor);
  }
});

describe('runSelfTest (in-process, on a faulty SDK)', () => {
  describe('when the SDK is unpatched', () => {
    it('passes every check, by its text', async () => {
      expect(await runSelfTest()).toEqual({
        ok: true,
        checks: [HOOK_ORDER, DENIED_TOOL, SWAPPED_NODE, GATE_ERROR, HANDOFF, OUTERMOST],
      });
    });

    it('writes nothing to stdout (its probe agents print nothing)', async () => {
      const write = vi.spyOn(process.stdout, 'write');
      expect(await runSelfTest()).toMatchObject({ ok: true });
      expect(write).not.toHaveBeenCalled();
    });
  });

  describe('when a fault targets one check', () => {
    describe(`check "${HOOK_ORDER}"`, () => {
      it('fails when the hook registry ignores order and runs callbacks as registered', async () => {
        hookOrderIgnored();
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HOOK_ORDER,
          detail: 'agent hooks ran as default,last,first',
        });
      });

      it("fails when only an orchestrator's node hooks run as registered", async () => {
        hookOrderIgnored(BeforeNodeCallEvent);
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HOOK_ORDER,
          detail: 'orchestrator hooks ran as default,last,first',
        });
      });

      it('fails when the tool path no longer fires BeforeToolCallEvent', async () => {
        patch(
          toolExecutor,
          'executeTool',
          (original) =>
            function (this: unknown, ...args: never[]): Events {
              return relay(original.apply(this, args) as Events, {
                skip: (event) => event instanceof BeforeToolCallEvent,
              });
            },
        );
        expect(await runSelfTest()).toEqual({ ok: false, check: HOOK_ORDER, detail: 'agent hooks ran as nothing' });
      });

      it('fails when a Graph no longer fires BeforeNodeCallEvent', async () => {
        patch(Graph.prototype, '_runBeforeNodeCall', () => (): Events => eventsOf([]));
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HOOK_ORDER,
          detail: 'orchestrator hooks ran as nothing',
        });
      });
    });

    describe(`check "${DENIED_TOOL}"`, () => {
      it("fails when the tool path acts on no hook's cancel and runs no middleware (the earlier check passed)", async () => {
        toolPathIgnoresGate();
        expect(await runSelfTest()).toEqual({ ok: false, check: DENIED_TOOL, detail: 'the denied tool ran 2 time(s)' });
      });

      it("fails when a Graph's AgentNode reports its agent done without running it", async () => {
        patch(AgentNode.prototype, 'handle', () => (): Events => eventsOf([], { content: [] }));
        expect(await runSelfTest()).toEqual({ ok: false, check: DENIED_TOOL, detail: 'the probe agents never ran' });
      });

      it('fails when the lone probe agent never reaches its model (scoped to that probe)', async () => {
        patch(
          Agent.prototype,
          'invoke',
          (original) =>
            function (this: unknown, ...args: never[]): unknown {
              if ((this as Agent).id === 'self-test-lone') return Promise.reject(new Error('invoke refused'));
              return original.apply(this, args);
            },
        );
        expect(await runSelfTest()).toEqual({ ok: false, check: DENIED_TOOL, detail: 'the probe agents never ran' });
      });
    });

    describe(`check "${SWAPPED_NODE}"`, () => {
      it('fails when a Graph runs what its nodes map names now, even a node whose BeforeNodeCallEvent was cancelled', async () => {
        graphRunsCancelledSwap();
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: SWAPPED_NODE,
          detail: 'the ungated node swapped in after install ran',
        });
      });

      it('fails when the swapped-in node reaches its model even though no tool body runs (the earlier checks passed)', async () => {
        graphRunsCancelledSwap();
        // Every tool fails before its body: the denied tools of the earlier check stay unrun, and so does the
        // intruder's; that its model was called is enough.
        patch(toolExecutor, '_executeToolCore', () => (...args: never[]): Events => {
          const [, , toolUse] = args as unknown[];
          const { toolUseId } = toolUse as { toolUseId: string };
          return eventsOf(
            [],
            new ToolResultBlock({ toolUseId, status: 'error', content: [new TextBlock('no tool runtime')] }),
          );
        });
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: SWAPPED_NODE,
          detail: 'the ungated node swapped in after install ran',
        });
      });
    });

    describe(`check "${GATE_ERROR}"`, () => {
      it("fails when the agent calls its model again despite a hook's cancel", async () => {
        patch(
          hiddenPrototypes().hookRegistry,
          'invokeCallbacks',
          (original) =>
            async function (this: unknown, ...args: never[]): Promise<unknown> {
              const [event] = args as unknown[];
              if (!(event instanceof BeforeModelCallEvent)) return original.apply(this, args);
              // The hooks act on a copy: the SDK never reads their cancel (a cancel they hold included).
              const copy: unknown = Object.assign(
                Object.create(Object.getPrototypeOf(event) as object) as object,
                event,
              );
              await original.apply(this, [copy] as never[]);
              return event;
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: GATE_ERROR,
          detail: 'the model was called 3 times: the run went on',
        });
      });

      it('fails when the tool runs after the gate failed (scoped to that probe)', async () => {
        toolPathIgnoresGate('self-test-error');
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: GATE_ERROR,
          detail: 'the tool ran 1 time(s) after the gate failed',
        });
      });
    });

    describe(`check "${HANDOFF}"`, () => {
      it('fails when the Swarm no longer runs the hooks of MultiAgentHandoffEvent', async () => {
        patch(
          Swarm.prototype,
          '_emit',
          (original) =>
            function (this: unknown, ...args: never[]): Events {
              const [event] = args as unknown[];
              if (!(event instanceof MultiAgentHandoffEvent)) return original.apply(this, args) as Events;
              // Yielded to the consumer as before, but its hooks never run.
              return eventsOf([event]);
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: 'the Swarm emitted node:self-test-a,node:self-test-b',
        });
      });

      it('fails when the Swarm announces the handoff after the next node started', async () => {
        const late = new WeakMap<object, unknown>();
        patch(
          Swarm.prototype,
          '_emit',
          (original) =>
            async function* (this: object, ...args: never[]): Events {
              const [event] = args as unknown[];
              if (!(event instanceof MultiAgentHandoffEvent)) return yield* original.apply(this, args) as Events;
              late.set(this, event);
              yield event;
              return undefined;
            },
        );
        patch(
          Swarm.prototype,
          '_streamNode',
          (original) =>
            function (this: object, ...args: never[]): Events {
              return relay(original.apply(this, args) as Events, {
                afterHooks: async (event) => {
                  const handoff = late.get(this);
                  if (!(event instanceof BeforeNodeCallEvent) || handoff === undefined) return;
                  late.delete(this);
                  await (
                    this as { _hookRegistry: { invokeCallbacks(e: unknown): Promise<unknown> } }
                  )._hookRegistry.invokeCallbacks(handoff);
                },
              });
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: 'the Swarm emitted node:self-test-a,node:self-test-b,handoff:self-test-b',
        });
      });

      it('fails when the handoff event names its target twice (the targets are shown as the event has them)', async () => {
        patch(
          Swarm.prototype,
          '_emit',
          (original) =>
            function (this: unknown, ...args: never[]): Events {
              const [event] = args as unknown[];
              if (!(event instanceof MultiAgentHandoffEvent)) return original.apply(this, args) as Events;
              const doubled = new MultiAgentHandoffEvent({
                source: event.source,
                targets: [...event.targets, ...event.targets],
                state: event.state,
                invocationState: event.invocationState,
              });
              return original.call(this, doubled as never) as Events;
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: 'the Swarm emitted node:self-test-a,handoff:self-test-b+self-test-b,node:self-test-b',
        });
      });

      it('passes when the Swarm announces more after the next node ran (only the start of the order is checked)', async () => {
        // A release that closes each Swarm run with a handoff event naming no target.
        patch(
          Swarm.prototype,
          '_emit',
          (original) =>
            async function* (this: unknown, ...args: never[]): Events {
              const [event] = args as unknown[];
              if (event instanceof AfterMultiAgentInvocationEvent) {
                const { state, invocationState } = event;
                const closing = new MultiAgentHandoffEvent({
                  source: 'self-test-b',
                  targets: [],
                  state,
                  invocationState,
                });
                yield* original.call(this, closing as never) as Events;
              }
              return yield* original.apply(this, args) as Events;
            },
        );
        expect(await runSelfTest()).toMatchObject({ ok: true });
      });

      it("fails when a Swarm's own addHook registers nothing", async () => {
        patch(Swarm.prototype, 'addHook', () => () => () => undefined);
        expect(await runSelfTest()).toEqual({ ok: false, check: HANDOFF, detail: 'the Swarm emitted nothing' });
      });

      it('fails when the structured-output tool runs outside the hooks (the gate never judges it)', async () => {
        patch(
          toolExecutor,
          'executeTool',
          (original) =>
            function (this: unknown, ...args: never[]): Events {
              const [options, block, invocationState] = args as unknown[];
              const { name, toolUseId, input } = block as { name: string; toolUseId: string; input: unknown };
              if (name !== 'strands_structured_output') return original.apply(this, args) as Events;
              const tool = (options as { agent: Agent }).agent.toolRegistry.get(name);
              return (this as { _executeToolCore: ToolCore })._executeToolCore(
                options,
                tool,
                { name, toolUseId, input },
                invocationState,
              );
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: "the handoff tool was judged as nothing, not as the SDK's structured-output tool",
        });
      });

      it('fails when the structured-output tool is reported under another class name for one node', async () => {
        // The second node's handoff tool comes from a renamed class, so one of the two calls is judged as another kind.
        patch(
          AgentNode.prototype,
          'handle',
          (original) =>
            function (this: AgentNode, ...args: never[]): Events {
              if (this.id !== 'self-test-b') return original.apply(this, args) as Events;
              const events = original.apply(this, args) as Events;
              return (async function* (): Events {
                const name = keep(structuredOutputTool, 'name');
                Object.defineProperty(structuredOutputTool, 'name', { ...name, value: 'HandoffTool' });
                try {
                  return yield* events;
                } finally {
                  Object.defineProperty(structuredOutputTool, 'name', name);
                }
              })();
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: "the handoff tool was judged as structured-output,other, not as the SDK's structured-output tool",
        });
      });

      it('fails when the structured-output tool is reported under another class name', async () => {
        replaceProperty(structuredOutputTool, 'name', 'HandoffTool');
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: HANDOFF,
          detail: "the handoff tool was judged as other,other, not as the SDK's structured-output tool",
        });
      });
    });

    describe(`check "${OUTERMOST}"`, () => {
      it('fails when the SDK dispatches hooks through a list of its own (the checked one never runs)', async () => {
        patch(
          hiddenPrototypes().hookRegistry,
          'invokeCallbacks',
          () =>
            async function (this: { getCallbacksFor(e: unknown): ((e: unknown) => unknown)[] }, ...args: never[]) {
              const [event] = args as unknown[];
              for (const callback of this.getCallbacksFor(event)) await callback(event);
              return event;
            },
        );
        expect(await runSelfTest()).toEqual({
          ok: false,
          check: OUTERMOST,
          detail: 'a hook tied with the after-call audit ran before it (it saw success)',
        });
      });
    });
  });

  describe('when every fault was put back', () => {
    it('the SDK is itself again: every check passes', async () => {
      expect(await runSelfTest()).toMatchObject({ ok: true });
    });
  });
});
