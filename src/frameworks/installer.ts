/**
 * The seam's side that changes a tree and reads its calls: an adapter with its install plan (run by the neutral
 * installer, `src/enforce/mutations.ts`) and its requests (decided by the neutral gate). Apart from `seam.ts`, which
 * the walk reads, so that the walk never depends on the gate.
 */
import type { ToolCallRequest } from '../enforce/gate.js';
import type { FrameworkAdapter, Mutation } from './seam.js';

/** What an adapter's plan gives the neutral installer (`src/enforce/mutations.ts`). */
export interface SeamPlan<Handle> {
  /** The tree's root as messages name it (`orchestrator=<id>`, `graph=<id>`). */
  readonly subject: string;
  /** Every change install makes, each checked already (the plan threw, listing every problem, if one was not). */
  readonly mutations: readonly Mutation[];
  /**
   * Runs once, after every mutation was applied: what is never undone (fields locked for good), and the handles
   * on what was installed (their `uninstall` undoes the applied mutations).
   */
  commit(applied: readonly Mutation[]): readonly Handle[];
}

/** Where a call runs, as the gate knows it. */
export interface SeamPlace {
  readonly agentId: string;
  readonly agentName: string;
  /** The one place known, or empty when none or several are. */
  readonly path: readonly string[];
  /** Every place it may run at. */
  readonly paths: readonly (readonly string[])[];
  readonly toolKind: ToolCallRequest['toolKind'];
}

/** An adapter with the parts that change a tree and read its calls: its install plan, and its requests. */
export interface FrameworkInstaller<Handle, Options, NativeCall> extends FrameworkAdapter {
  /**
   * Plans the install of a tree (nothing applied): resolves the gate, walks, runs every check and throws one
   * error listing every problem, and lists the mutations.
   */
  plan(root: unknown, options: Options | undefined): SeamPlan<Handle>;
  /** A native tool call (its input a frozen copy already) as the gate's request, with `framework` set. */
  toRequest(call: NativeCall, place: SeamPlace): ToolCallRequest;
}
