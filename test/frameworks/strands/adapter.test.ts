/**
 * The Strands adapter behind the seam walks every fixture tree as the Strands walk does: the same places (paths),
 * the same kinds, the same problems, the same first places of shared objects, and the same gate states before and
 * after install.
 */
import { describe, expect, it } from 'vitest';
import { strandsAdapter } from '../../../src/frameworks/strands/adapter.js';
import { allowAll, installMultiagent } from '../../../src/index.js';
import { agentGateState, hasNodeGuard } from '../../../src/walker/classify.js';
import { seamWalk } from '../../../src/walker/seam-walk.js';
import { type Entry, walk } from '../../../src/walker/walk.js';
import { buildCustomNodeGraph } from '../../../fixtures/graphs/custom-node-graph.js';
import { buildCustomPipeline } from '../../../fixtures/graphs/custom-pipeline.js';
import { buildDefaultIds } from '../../../fixtures/graphs/default-ids.js';
import { buildMixedGraph } from '../../../fixtures/graphs/mixed-graph.js';
import { buildNestedGraphs } from '../../../fixtures/graphs/nested-graphs.js';
import { buildPatchedSwarm } from '../../../fixtures/graphs/patched-swarm.js';
import { buildRemoteGraph } from '../../../fixtures/graphs/remote-graph.js';
import { buildResearchGraph } from '../../../fixtures/graphs/research-graph.js';
import { buildSupportSwarm } from '../../../fixtures/graphs/support-swarm.js';
import type { Agent, Orchestrator } from '../../../src/frameworks/strands/sdk-internals.js';

const SEAM_KIND: Record<Entry['kind'], string> = {
  graph: 'orchestrator',
  swarm: 'orchestrator',
  agent: 'agent',
  'agent-tool': 'agent',
  remote: 'remote',
  custom: 'custom',
};

const trees: [string, () => object][] = [
  ['research graph', buildResearchGraph],
  ['support swarm', buildSupportSwarm],
  ['nested graphs', buildNestedGraphs],
  ['remote graph', buildRemoteGraph],
  ['custom node graph', buildCustomNodeGraph],
  ['custom pipeline (declared nodes)', buildCustomPipeline],
  ['patched swarm', buildPatchedSwarm],
  ['mixed graph', buildMixedGraph],
  ['default ids', buildDefaultIds],
];

function strandsState(entry: Entry): string {
  if (entry.kind === 'graph' || entry.kind === 'swarm')
    return hasNodeGuard(entry.target as Orchestrator) ? 'gated' : 'ungated';
  if ((entry.kind === 'agent' || entry.kind === 'agent-tool') && entry.problem === undefined) {
    const state = agentGateState(entry.target as Agent);
    return state === 'gated' ? 'gated' : state === 'pending-plugin' ? 'pending' : 'ungated';
  }
  return 'unknown';
}

describe('strandsAdapter', () => {
  describe.each(trees)('when walking the %s', (_name, build) => {
    it('walks the same places, kinds, problems and first places as the Strands walk', () => {
      const root = build();
      const strands = walk(root);
      const seam = seamWalk(strandsAdapter, root);
      expect(seam.entries.map((e) => [e.path.join('/'), e.kind, e.problem?.kind, e.sameAs?.join('/')])).toEqual(
        strands.entries.map((e) => [e.path.join('/'), SEAM_KIND[e.kind], e.problem?.kind, e.sameAs?.join('/')]),
      );
    });

    it('reads the same gate states, before and after install', () => {
      const root = build();
      const states = (): [string[], string[]] => [
        walk(root)
          .entries.filter((e) => e.sameAs === undefined)
          .map(strandsState),
        seamWalk(strandsAdapter, root)
          .entries.filter((e) => e.sameAs === undefined)
          .map((e) => (e.problem === undefined ? strandsAdapter.gateState(e.target).state : 'unknown')),
      ];
      const [before, seamBefore] = states();
      expect(seamBefore).toEqual(before);
      try {
        installMultiagent(root as Orchestrator, { gate: allowAll() });
      } catch {
        // a tree install refuses stays as it was: its states are compared all the same
      }
      const [after, seamAfter] = states();
      expect(seamAfter).toEqual(after);
    });
  });
});
