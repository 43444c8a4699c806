/**
 * The seam between gate-audit's framework-neutral parts (the walk's paths, identity, cycles and findings, the
 * preflight-then-mutate installer with rollback, the gate's decision and record, policies, every report) and
 * one agent framework. An adapter in `src/frameworks/<name>/` says what its values are, what sits under each,
 * whether each carries the gate (from its own marks, never from names), which mutations gate it (each checked
 * before any is applied, each undone on rollback), and how a native tool call reads as a `ToolCallRequest`.
 */
import type { FindingKind } from '../errors.js';

/** The frameworks gate-audit knows. */
export type Framework = 'strands' | 'langgraph';

/** What a value is to the walk. */
export type SeamKind =
  /** Runs other parts: a Graph, a Swarm, a compiled LangGraph graph. */
  | 'orchestrator'
  /** Runs tools: an agent, a tool node. */
  | 'agent'
  /** Runs elsewhere (A2A, `RemoteGraph`, a provider's server tool): nothing local can gate it. */
  | 'remote'
  /** Runs code gate-audit cannot see into (a custom node, an undeclared function node). */
  | 'custom';

/** A tool as an adapter lists it. */
export interface SeamTool {
  readonly name: string;
  /** How it runs: a local function, an MCP tool, an agent, or something run by a provider's server. */
  readonly kind: 'function' | 'mcp' | 'agent' | 'provider';
  /** Whether the adapter can put the gate in front of it. */
  readonly gateable: boolean;
}

/**
 * One child of a value: where it sits under its parent, and what it is. `Native` is what the adapter read there
 * for its own use (the walk carries it on the entry untouched).
 */
export interface SeamChild<Native = unknown> {
  /** Its id under its parent (escaped into a path segment by the walk; `#unnamed` when it is not a string). */
  readonly segment: unknown;
  /** The value itself, or undefined for a place with no value of its own (a provider's tool). */
  readonly value: unknown;
  /** What it is: the walk asks the adapter again for values it recognises, and takes this for the rest. */
  readonly kind: SeamKind;
  /** Why it cannot be gated, when it cannot (with the fix, and whether `accept` may acknowledge it). */
  readonly problem?: SeamProblem;
  /**
   * For a custom node that declares what it runs: the declared values, each walked as its child. Read when the walk
   * gets there (after its depth check), so a declaration that names itself is refused as too deep, not recursed into.
   */
  readonly declared?: () => readonly SeamChild<Native>[];
  /** Tools it runs, for an agent. */
  readonly tools?: readonly SeamTool[];
  /**
   * Whether the walk opens it (walks what sits under it, once, and reports a second place as `sameAs` and a place
   * inside itself as a cycle). By default an orchestrator or an agent without a problem is opened; an orchestrator
   * whose problem still leaves its nodes readable says `true`.
   */
  readonly opens?: boolean;
  /** What the adapter read here, for its own use. */
  readonly native?: Native;
}

/** Why a place cannot be gated. */
export interface SeamProblem {
  readonly kind: FindingKind;
  readonly reason: string;
  readonly fix: string;
  /** Whether `accept` may acknowledge it (a remote or an opaque node may be; a broken shape may not). */
  readonly acceptable: boolean;
}

/** Whether a value carries the gate, read from the adapter's own marks. */
export type SeamGateState = 'gated' | 'pending' | 'ungated' | 'unknown';

/**
 * One change install makes. `check` runs for every mutation before any `apply`; `undo` runs in reverse order
 * for every applied one when a later `apply` throws.
 */
export interface Mutation {
  /** What it changes, for messages. */
  readonly what: string;
  /** Where in the tree. */
  readonly path: readonly string[];
  /** Why it cannot be applied, or undefined when it can. Pure. */
  check(): string | undefined;
  apply(): void;
  undo(): void;
}

/**
 * What an adapter gives the neutral parts. Every method but `plan`'s mutations is pure: it reads, never
 * writes, never runs anything.
 */
export interface FrameworkAdapter<Root = unknown, Native = unknown> {
  readonly framework: Framework;
  /** The root a value stands for (`createAgent`'s agent stands for its graph), or undefined when not this framework's. */
  recognise(value: unknown): Root | undefined;
  /** The root as the walk's first place: its id, what it is, and why it cannot be gated when it cannot. */
  root(root: Root): SeamChild<Native>;
  /** What sits under an opened orchestrator or agent (`native`: what the adapter read at its place). */
  children(value: unknown, native: Native | undefined): readonly SeamChild<Native>[];
  /**
   * Why an installed guard lets a part through unjudged (`accept` at install), when it does: only the value it
   * accepted there (`value`, what sits there now).
   */
  acceptedAt(orchestrator: unknown, segment: string, value: unknown): string | undefined;
  /** Whether a value carries the gate (and, when gated, the gate's key, name and identity). */
  gateState(value: unknown): { readonly state: SeamGateState; readonly gateKey?: unknown; readonly gateName?: string };
}
