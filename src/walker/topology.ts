/**
 * Topology identity checks. A Graph runs the node objects held by its edges and entry list, and a Swarm
 * starts from `swarm.start`; a guard that looks nodes up by id in `nodes` is fooled by a shadow object with
 * the same id (`sdk-gaps.md` rows 64–66). These checks say where the objects differ from the map.
 */
import { Graph, graphSources, type Orchestrator } from './sdk-internals.js';

function idOf(node: unknown): string {
  const id = typeof node === 'object' && node !== null ? (node as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : String(id);
}

/**
 * Lists every place where the orchestrator would run a node object that is not the one in `nodes`.
 *
 * @param orchestrator - the Graph or Swarm to check
 * @param onlyId - restrict the check to one node id (the node about to run)
 * @returns readable descriptions, empty when consistent
 */
export function topologyProblems(orchestrator: Orchestrator, onlyId?: string): string[] {
  const problems: string[] = [];
  const check = (node: unknown, where: string): void => {
    const id = idOf(node);
    if (onlyId !== undefined && id !== onlyId) return;
    if (orchestrator.nodes.get(id) !== node) problems.push(`${where} node "${id}" is not the object in nodes`);
  };
  if (orchestrator instanceof Graph) {
    for (const edge of orchestrator.edges) {
      check(edge.source, 'an edge source');
      check(edge.target, 'an edge target');
    }
    for (const source of graphSources(orchestrator)) check(source, 'an entry');
  } else {
    check(orchestrator.start, 'the start');
  }
  return problems;
}
