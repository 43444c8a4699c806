/**
 * The neutral installer (`src/enforce/mutations.ts`): mutations applied in order, every applied one undone in
 * reverse when one throws, an undo that runs at most once and never before its apply, and plan → apply → commit.
 */
import { describe, expect, it } from 'vitest';
import { applyMutations, installThrough, mutation } from '../../src/enforce/mutations.js';
import { GateAuditError } from '../../src/errors.js';
import type { FrameworkInstaller } from '../../src/frameworks/installer.js';
import type { Mutation } from '../../src/frameworks/seam.js';

/** A mutation that notes its apply and undo in `events`, and throws on apply when told to. */
function noted(name: string, events: string[], fails = false): Mutation {
  return mutation(
    name,
    [name],
    () => undefined,
    () => {
      if (fails) throw new Error(`${name} failed`);
      events.push(`apply ${name}`);
      return () => events.push(`undo ${name}`);
    },
  );
}

describe('applyMutations', () => {
  describe('when every mutation applies', () => {
    it('applies every mutation in order and returns them', () => {
      const events: string[] = [];
      const planned = [noted('a', events), noted('b', events)];
      expect(applyMutations(planned, 'tree=<t>')).toEqual(planned);
      expect(events).toEqual(['apply a', 'apply b']);
    });
  });

  describe('when one throws', () => {
    it('undoes every applied one in reverse, and says so in one INSTALL_FAILED error naming the tree', () => {
      const events: string[] = [];
      let error: unknown;
      try {
        applyMutations(
          [noted('a', events), noted('b', events), noted('c', events, true), noted('d', events)],
          'tree=<t>',
        );
      } catch (caught) {
        error = caught;
      }
      expect(events).toEqual(['apply a', 'apply b', 'undo b', 'undo a']);
      expect(error).toBeInstanceOf(GateAuditError);
      expect((error as GateAuditError).code).toBe('INSTALL_FAILED');
      expect((error as Error).message).toBe('tree=<t> | install failed midway (c) and was rolled back: c failed');
      expect((error as Error).cause).toEqual(new Error('c failed'));
    });
  });
});

describe('mutation', () => {
  describe('when undone before its apply, or twice after it', () => {
    it('undoes nothing before it was applied, and undoes at most once', () => {
      const events: string[] = [];
      const one = noted('a', events);
      expect(() => one.undo()).not.toThrow();
      one.apply();
      one.undo();
      one.undo();
      expect(events).toEqual(['apply a', 'undo a']);
    });
  });
});

describe('installThrough', () => {
  describe('when given a framework installer and a root', () => {
    it("runs the adapter's plan, applies its mutations, and returns what its commit makes of the applied ones", () => {
      const events: string[] = [];
      const framework: FrameworkInstaller<string, { readonly tag: string }, never> = {
        framework: 'strands',
        recognise: () => undefined,
        root: () => ({ segment: 't', value: undefined, kind: 'orchestrator' }),
        children: () => [],
        acceptedAt: () => undefined,
        gateState: () => ({ state: 'unknown' }),
        toRequest: () => {
          throw new Error('not called');
        },
        plan: (root, options) => ({
          subject: `tree=<${String(root)}>`,
          mutations: [noted('a', events), noted(options?.tag ?? '?', events)],
          commit: (applied) => applied.map((m) => `committed ${m.what}`),
        }),
      };
      expect(installThrough(framework, 'root', { tag: 'b' })).toEqual(['committed a', 'committed b']);
      expect(events).toEqual(['apply a', 'apply b']);
    });
  });
});
