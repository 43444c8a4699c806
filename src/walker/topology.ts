/**
 * Topology identity checks. A Graph runs the node objects held by its edges and entry list, and a Swarm
 * starts from `swarm.start` and hands off to `nodes.get(id)`; the SDK then fires `BeforeNodeCallEvent`
 * with the node's id only. A guard that looks nodes up by id is fooled by a shadow object with the same
 * id, by a map key that differs from its node's id, or by two entries sharing an id
 * (`docs/sdk-paths.md`, "Which node runs"). These checks say where the objects differ from the map.
 *
 * Every field is read as plain data: a getter or a Proxy anywhere on the way is itself a problem.
 */
import { Edge } from '@strands-agents/sdk/multiagent';
import { Graph, graphSourcesRead, type Orchestrator } from '../frameworks/strands/sdk-internals.js';
import {
  dataField,
  describeFieldProblem,
  isPlainArray,
  isPlainMap,
  isProxy,
  readData,
  shadowedMember,
} from './safe-read.js';

function idOf(node: unknown): string {
  const id = readData(node, 'id');
  return typeof id === 'string' ? id : String(id);
}

/** The orchestrator's node map, when it is a plain `Map` held in a plain data field. */
export function nodeMap(orchestrator: Orchestrator): Map<unknown, unknown> | string {
  const read = dataField(orchestrator, 'nodes');
  if (!read.ok) return describeFieldProblem('the orchestrator', 'nodes', read) ?? 'its nodes cannot be read';
  if (!isPlainMap(read.value)) {
    return 'its nodes are not a plain Map (a Proxy, a subclass or a Map with own properties could answer lookups falsely)';
  }
  return read.value;
}

/**
 * Lists every place where the orchestrator would run a node object that is not the one in `nodes`, or
 * where `nodes` cannot identify a node by its id (a key that is not its node's id, two entries with one id).
 *
 * @param orchestrator - the Graph or Swarm to check
 * @param onlyId - restrict the check to what concerns one node id (the node about to run); problems of the
 *   structure itself (a map that is not plain, an edge list that is not a plain array, a getter) always count
 * @returns readable descriptions, empty when consistent
 */
export function topologyProblems(orchestrator: Orchestrator, onlyId?: string): string[] {
  const nodes = nodeMap(orchestrator);
  if (typeof nodes === 'string') return [nodes];
  const problems: string[] = [];
  const concerns = (...ids: unknown[]): boolean => onlyId === undefined || ids.includes(onlyId);
  let holdersOfId = 0;
  for (const [key, node] of nodes) {
    if (isProxy(node)) {
      if (concerns(key)) problems.push(`node "${String(key)}" is a Proxy`);
      continue;
    }
    const id = dataField(node, 'id');
    if (!id.ok) {
      if (concerns(key)) {
        problems.push(
          `node "${String(key)}": ${describeFieldProblem('the node', 'id', id) ?? 'its id cannot be read'}`,
        );
      }
      continue;
    }
    if (id.value === onlyId) holdersOfId += 1;
    if (id.value !== key && concerns(key, id.value)) {
      problems.push(
        `the node under key "${String(key)}" has id "${String(id.value)}": the event names the id, the map the key`,
      );
    }
  }
  if (onlyId !== undefined && holdersOfId > 1) problems.push(`${holdersOfId} nodes share the id "${onlyId}"`);
  const check = (node: unknown, where: string): void => {
    if (isProxy(node)) {
      problems.push(`${where} node is a Proxy`);
      return;
    }
    const id = idOf(node);
    if (!concerns(id)) return;
    if (nodes.get(id) !== node) problems.push(`${where} node "${id}" is not the object in nodes`);
  };
  if (orchestrator instanceof Graph) {
    const edges = dataField(orchestrator, 'edges');
    if (!edges.ok || !isPlainArray(edges.value)) {
      problems.push(describeFieldProblem('the graph', 'edges', edges) ?? 'its edges are not a plain array');
    } else {
      for (const edge of edges.value) {
        if (isProxy(edge) || Object.getPrototypeOf(edge) !== Edge.prototype) {
          problems.push('an edge is not a plain SDK Edge');
          continue;
        }
        const shadow = shadowedMember(edge as object, Edge.prototype);
        if (shadow !== undefined) problems.push(`an edge has its own "${String(shadow)}"`);
        for (const end of ['source', 'target'] as const) {
          const read = dataField(edge, end);
          if (!read.ok) problems.push(describeFieldProblem('an edge', end, read) ?? `an edge's ${end} is unreadable`);
          else check(read.value, `an edge ${end}`);
        }
      }
    }
    const sources = graphSourcesRead(orchestrator);
    if ('problem' in sources) problems.push(sources.problem);
    else for (const source of sources.sources) check(source, 'an entry');
  } else {
    const start = dataField(orchestrator, 'start');
    if (!start.ok) problems.push(describeFieldProblem('the swarm', 'start', start) ?? 'its start is unreadable');
    else check(start.value, 'the start');
  }
  return problems;
}
