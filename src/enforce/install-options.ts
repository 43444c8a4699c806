/**
 * What `install` and `installMultiagent` take, for every framework: the gate, its timeout, acknowledged nodes, and
 * how strictly the loaded framework's version is held.
 */
import type { Gate } from './gate.js';

/** An acknowledged remote or opaque node: installed around, never gated, always shown with its reason. */
export interface AcceptEntry {
  /** The node's path as one string (`joinPath`), from the orchestrator's own id: `research/remote`. */
  readonly path: string;
  /** Why it is acceptable; shown wherever the node is. */
  readonly reason: string;
}

/**
 * A LangGraph root: a compiled graph (`StateGraph(...).compile()`, `createReactAgent`, `createSupervisor(...).compile()`,
 * `createSwarm(...).compile()`) or a `langchain` `createAgent` agent. Recognised by shape, so any copy of the packages.
 */
export interface LangGraphRoot {
  readonly invoke: (...args: never[]) => unknown;
}

/** Options of `install` and `installMultiagent`. */
export interface InstallOptions {
  /** The gate to install; without it the process-wide gate (`configureGate`) is resolved at each call. */
  gate?: Gate;
  /**
   * How long an asynchronous `decide` (or `record`) may take, in milliseconds (default 30000). Past it the
   * call is refused with `[gate] ERROR:` and the run stops, like any gate error; a late answer is ignored.
   */
  timeoutMs?: number;
  /**
   * `installMultiagent` only: remote (A2A) or opaque custom nodes to install around instead of refusing the
   * tree. Each entry must name exactly such a node; the node guard then lets through the executor found at
   * install, and only that object.
   */
  accept?: readonly AcceptEntry[];
  /**
   * Refuse (`SDK_UNTESTED`) when the loaded `@strands-agents/sdk` lies outside the range gate-audit was tested
   * on, instead of warning once and running the behavioural self-test.
   */
  requireTestedSdk?: boolean;
}
