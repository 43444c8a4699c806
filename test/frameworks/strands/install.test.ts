/**
 * The Strands adapter's install plan (`src/frameworks/strands/install.ts`): one mutation per agent gated, per
 * orchestrator guarded, each named and placed, none applied until the neutral installer runs them; its commit
 * returns the handles of what was gated.
 */
import { describe, expect, it } from 'vitest';
import { buildNestedGraphs } from '../../../fixtures/graphs/nested-graphs.js';
import { allowAll, audit } from '../../../src/index.js';
import { applyMutations } from '../../../src/enforce/mutations.js';
import { strandsFramework } from '../../../src/frameworks/strands/install.js';
import { isolateEachTest } from '../../helpers/sdk.js';

isolateEachTest();

describe('strandsFramework.plan', () => {
  it('lists a named, placed mutation per agent and per orchestrator, and applies none', () => {
    const graph = buildNestedGraphs();
    const planned = strandsFramework.plan(graph, { gate: allowAll() });
    expect(planned.subject).toBe('orchestrator=<release>');
    expect(planned.mutations.map((m) => [m.what, m.path.join('/')])).toEqual(PLACES);
    expect(audit(graph).summary.gated).toBe(0);
  });

  describe('when its mutations are applied', () => {
    it('commits: the handles of the agents it gated, and the tree reads gated', () => {
      const graph = buildNestedGraphs();
      const planned = strandsFramework.plan(graph, { gate: allowAll() });
      const handles = planned.commit(applyMutations(planned.mutations, planned.subject));
      expect(handles.map((h) => h.path.join('/'))).toEqual(
        PLACES.filter(([what]) => what.startsWith('agent')).map(([, path]) => path),
      );
      expect(audit(graph).summary.ungated).toBe(0);
    });
  });
});

/** What `buildNestedGraphs` plans: two agents named tester, one in the nested Graph and one beside it. */
const PLACES: [string, string][] = [
  ['agent "compiler"', 'release/build/compiler'],
  ['agent "tester"', 'release/build/tester'],
  ['agent "tester"', 'release/tester'],
  ['agent "notes"', 'release/notes'],
  ['guard of release', 'release'],
  ['guard of build', 'release/build'],
];
