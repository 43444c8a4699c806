/**
 * Gating things that are built later: an agent created inside a custom node's `handle()` per call, and
 * an orchestrator built per request by a factory.
 */
import { Agent, type AgentConfig } from '@strands-agents/sdk';
import { GATED_FACTORY_MARK } from '../walker/marks.js';
import { install, type InstallOptions, installMultiagent } from './install.js';

/**
 * Constructs an `Agent` that is gated before anyone can run it: what a custom node that declares
 * `{ createsGatedAgents: true }` must use for the agents it builds per call. Run inside the node's run (wrapped
 * in the run context by `installMultiagent`), it joins the tree's root run and has the node's place; run anywhere
 * else, it has no known place.
 *
 * @param config - the SDK agent configuration
 * @param options - `{ gate }`; without it the configured gate is resolved at each call
 * @returns the gated agent
 * @throws NoGateError when no gate is given or configured (the agent is not handed out)
 */
export function gatedAgent(config: AgentConfig, options?: InstallOptions): Agent {
  const agent = new Agent(config);
  install(agent, options);
  return agent;
}

/**
 * Wraps a factory of orchestrators (one per request, say) so every Graph or Swarm it returns is gated with
 * `installMultiagent` before it is handed out. Sync factories stay sync, async ones stay async; a tree that
 * cannot be gated makes the wrapped call throw instead of returning it.
 *
 * @param build - the factory
 * @param options - `{ gate }`; without it the configured gate is used
 * @returns the wrapped factory, with the same parameters
 */
export function gatedFactory<A extends unknown[], O extends object>(
  build: (...args: A) => O,
  options?: InstallOptions,
): (...args: A) => O;
export function gatedFactory<A extends unknown[], O extends object>(
  build: (...args: A) => Promise<O>,
  options?: InstallOptions,
): (...args: A) => Promise<O>;
export function gatedFactory<A extends unknown[], O extends object>(
  build: (...args: A) => O | Promise<O>,
  options?: InstallOptions,
): (...args: A) => O | Promise<O> {
  const gate = (orchestrator: O): O => {
    installMultiagent(orchestrator as never, options);
    return orchestrator;
  };
  const wrapped = (...args: A): O | Promise<O> => {
    const built = build(...args);
    return built instanceof Promise ? built.then(gate) : gate(built);
  };
  Object.defineProperty(wrapped, 'name', { value: build.name === '' ? 'gatedFactory' : build.name });
  // The CLI calls a function with this mark (the user declared it a factory) and reads its arity.
  Object.defineProperty(wrapped, 'length', { value: build.length });
  Object.defineProperty(wrapped, GATED_FACTORY_MARK, { value: true });
  return wrapped;
}
