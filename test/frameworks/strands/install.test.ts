/**
 * The Strands adapter's install plan (`src/frameworks/strands/install.ts`): one mutation per agent gated, per
 * orchestrator guarded, each named and placed, none applied until the neutral installer runs them; its commit
 * returns the handles of what was gated.
 */
import { Graph, Node } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { buildNestedGraphs } from '../../../fixtures/graphs/nested-graphs.js';
import { allowAll, audit } from '../../../src/index.js';
import { applyMutations } from '../../../src/enforce/mutations.js';
import { strandsFramework } from '../../../src/frameworks/strands/install.js';
import { isolateEachTest, say, scriptedAgent } from '../../helpers/sdk.js';

isolateEachTest();

describe('strandsFramework.plan', () => {
  describe('when only planned', () => {
    it('lists a named, placed mutation per agent and per orchestrator, and applies none', () => {
      const graph = buildNestedGraphs();
      const planned = strandsFramework.plan(graph, { gate: allowAll() });
      expect(planned.subject).toBe('orchestrator=<release>');
      expect(planned.mutations.map((m) => [m.what, m.path.join('/')])).toEqual(PLACES);
      expect(audit(graph).summary.gated).toBe(0);
    });
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

/** An opaque custom node: it declares nothing and holds nothing gateable (what `accept` is for). */
class Opaque extends Node {
  // eslint-disable-next-line require-yield, @typescript-eslint/require-await
  async *handle(): ReturnType<Node['handle']> {
    return { content: [] };
  }
}

describe('strandsFramework.plan', () => {
  describe('when an accepted opaque node is frozen', () => {
    it('installs around a frozen accepted node it cannot wrap (it runs as accepted), where a declared one is refused', () => {
      const writer = scriptedAgent('writer', [say('-')]);
      const legacy = Object.freeze(new Opaque('legacy', {}));
      const graph = new Graph({ id: 'app', nodes: [writer, legacy], edges: [] });
      const accept = [{ path: 'app/legacy', reason: 'reviewed: runs no tools' }];
      const planned = strandsFramework.plan(graph, { gate: allowAll(), accept });
      // No mutation wraps the frozen node's run: it is left as it was.
      expect(planned.mutations.map((m) => m.what)).toEqual(['agent "writer"', 'guard of "app"']);
      planned.commit(applyMutations(planned.mutations, planned.subject));
      expect(audit(graph).nodes.map((n) => `${n.id}:${n.status}`)).toEqual([
        'app:gated',
        'writer:gated',
        'legacy:accepted',
      ]);
    });
  });
});

/** What `buildNestedGraphs` plans: two agents named tester, one in the nested Graph and one beside it. */
const PLACES: [string, string][] = [
  ['agent "compiler"', 'release/build/compiler'],
  ['agent "tester"', 'release/build/tester'],
  ['agent "tester"', 'release/tester'],
  ['agent "notes"', 'release/notes'],
  ['guard of "release"', 'release'],
  ['guard of "build"', 'release/build'],
];
