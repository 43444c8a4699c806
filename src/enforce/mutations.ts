/**
 * The installer's one way to change a tree, for every framework: an adapter plans its changes as `Mutation`s
 * (each with its check, apply and undo; every check run before this is reached), and `applyMutations` applies them
 * in order and, when one throws, undoes every applied one in reverse, so that nothing is left half-installed.
 */
import { GateAuditError, messageOf } from '../errors.js';
import type { FrameworkInstaller } from '../frameworks/installer.js';
import type { Mutation } from '../frameworks/seam.js';

/**
 * A mutation from a change that returns its own undo.
 *
 * @param what - what it changes, for messages
 * @param path - where in the tree
 * @param check - why it cannot be applied, or undefined when it can (pure)
 * @param change - applies it and returns what undoes it
 * @returns the mutation; its `undo` does nothing unless it was applied, and at most once
 */
export function mutation(
  what: string,
  path: readonly string[],
  check: () => string | undefined,
  change: () => () => void,
): Mutation {
  let undo: (() => void) | undefined;
  return {
    what,
    path,
    check,
    apply: () => {
      undo = change();
    },
    undo: () => {
      const done = undo;
      undo = undefined;
      done?.();
    },
  };
}

/**
 * Applies every mutation in order. When one throws, every applied one is undone in reverse and one error says so,
 * naming the one that threw.
 *
 * @param mutations - the plan's mutations, every check already run
 * @param subject - the tree's root as messages name it (`orchestrator=<id>`, `graph=<id>`)
 * @returns the mutations applied (all of them)
 * @throws GateAuditError `INSTALL_FAILED` when a mutation threw (everything applied was undone)
 */
export function applyMutations(mutations: readonly Mutation[], subject: string): readonly Mutation[] {
  const applied: Mutation[] = [];
  for (const planned of mutations) {
    try {
      planned.apply();
    } catch (error) {
      for (const done of applied.reverse()) done.undo();
      throw new GateAuditError(
        'INSTALL_FAILED',
        `${subject} | install failed midway (${planned.what}) and was rolled back: ${messageOf(error)}`,
        { cause: error },
      );
    }
    applied.push(planned);
  }
  return applied;
}

/**
 * Installs through a framework's adapter: its plan (the gate resolved, every check run, one error listing every
 * problem), then every mutation applied (rolled back whole when one throws), then its commit.
 *
 * @param framework - the adapter of the tree's framework
 * @param root - the tree's root
 * @param options - the install's options, as the framework reads them
 * @returns the handles on what was installed
 */
export function installThrough<Handle, Options>(
  framework: FrameworkInstaller<Handle, Options, never>,
  root: unknown,
  options: Options | undefined,
): readonly Handle[] {
  const plan = framework.plan(root, options);
  return plan.commit(applyMutations(plan.mutations, plan.subject));
}
