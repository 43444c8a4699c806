/**
 * The Strands adapter behind the seam (`src/frameworks/seam.ts`): what a Graph, a Swarm, a node and an agent are
 * to the neutral walk (`src/walker/seam-walk.ts`), and whether each carries the gate. The Strands walk
 * (`src/walker/walk.ts`) is the neutral walk over this adapter, with the Strands-only views (edges, agents,
 * orchestrators, declared executors) read from what each place carries (`StrandsNative`).
 */
import type { FindingKind } from '../../errors.js';
import {
  agentGateState,
  type Classified,
  classifyExecutor,
  type EntryKind,
  hasNodeGuard,
  openNode,
  type Problem,
} from '../../walker/classify.js';
import { readData } from '../../walker/safe-read.js';
import { nodeMap, topologyProblems } from '../../walker/topology.js';
import type { FrameworkAdapter, SeamChild, SeamGateState, SeamKind, SeamProblem } from '../seam.js';
import { type Agent, listTools, type Orchestrator, readAgentTool } from './sdk-internals.js';

/** What the Strands adapter reads at a place: the Strands kind, the classification, and the node it sits in. */
export interface StrandsNative {
  readonly kind: EntryKind;
  readonly classified: Classified;
  /** The Graph or Swarm node this place is the executor of, when it is one. */
  readonly node?: unknown;
}

/** Problem kinds an `accept` entry may acknowledge (as `installMultiagent`'s). */
const ACCEPTABLE: ReadonlySet<FindingKind> = new Set(['remote', 'custom-node', 'foreign-executor']);

const SEAM_KIND: Readonly<Record<Classified['kind'], SeamKind>> = {
  graph: 'orchestrator',
  swarm: 'orchestrator',
  agent: 'agent',
  remote: 'remote',
  custom: 'custom',
};

function problemOf(problem: Problem): SeamProblem {
  return { ...problem, acceptable: ACCEPTABLE.has(problem.kind) };
}

/** Why an orchestrator's nodes and edges do not agree, as one problem (the guard then cancels every node). */
function topologyProblem(orchestrator: Orchestrator): Problem | undefined {
  const topology = topologyProblems(orchestrator);
  if (topology.length === 0) return undefined;
  return {
    kind: 'topology',
    reason:
      `is inconsistent: ${topology[0]}${topology.length > 1 ? ` (and ${topology.length - 1} more)` : ''}, ` +
      'so a guard keyed by node id would judge the wrong object; the guard cancels every node',
    fix: 'build the orchestrator once with its final nodes and edges; do not swap node objects or map keys',
  };
}

/**
 * What one value is, as a child with id `segment`.
 *
 * @param kind - the Strands kind to report it as (an agent used as a tool is an `agent-tool`)
 * @param node - the node it is the executor of
 */
function childOf(
  segment: unknown,
  value: unknown,
  classified: Classified,
  kind: EntryKind = classified.kind,
  node?: unknown,
): SeamChild<StrandsNative> {
  const native: StrandsNative = { kind, classified, ...(node === undefined ? {} : { node }) };
  if ('declared' in classified) {
    return {
      segment,
      value,
      kind: 'custom',
      native,
      declared: () =>
        classified.declared.agents.map((agent) => {
          const inner = classifyExecutor(agent);
          return childOf(readData(agent, 'id'), agent, inner);
        }),
    };
  }
  const walked =
    'agent' in classified ? classified.agent : 'orchestrator' in classified ? classified.orchestrator : value;
  const problem =
    'orchestrator' in classified
      ? (classified.problem ?? topologyProblem(classified.orchestrator))
      : classified.problem;
  return {
    segment,
    value: walked,
    kind: SEAM_KIND[classified.kind],
    native,
    // A Graph or Swarm with a problem is still walked: its nodes are reported (and the guard cancels them).
    ...('orchestrator' in classified ? { opens: true } : {}),
    ...(problem === undefined ? {} : { problem: problemOf(problem) }),
  };
}

/** The tools of an agent that are agents (or wrap them): each a child of the agent. */
function agentTools(agent: Agent): SeamChild<StrandsNative>[] {
  const children: SeamChild<StrandsNative>[] = [];
  for (const tool of listTools(agent)) {
    const read = readAgentTool(tool);
    if (read.kind === 'not-agent-tool') continue;
    const segment = readData(tool, 'name');
    if (read.kind === 'opaque') {
      const classified: Classified = {
        kind: 'custom',
        problem: {
          kind: 'foreign-executor',
          reason: `is an agent used as a tool that ${read.reason}`,
          fix: 'use agent.asTool() or put the Agent itself in tools, and do not patch the tool',
        },
      };
      children.push(childOf(segment, tool, classified));
      continue;
    }
    const classified = classifyExecutor(read.agent);
    children.push(
      childOf(segment, read.agent, classified, classified.kind === 'agent' ? 'agent-tool' : classified.kind),
    );
  }
  return children;
}

/** The nodes of a Graph or Swarm: each node's executor (or the node itself when it is opaque). */
function orchestratorNodes(orchestrator: Orchestrator): SeamChild<StrandsNative>[] {
  const nodes = nodeMap(orchestrator);
  if (typeof nodes === 'string') return [];
  const children: SeamChild<StrandsNative>[] = [];
  for (const [id, node] of nodes) {
    const content = openNode(node);
    if (content.via === 'custom') {
      children.push(childOf(id, node, { kind: 'custom', problem: content.problem }, 'custom', node));
    } else if (content.via === 'declared') {
      children.push(childOf(id, node, { kind: 'custom', declared: content.declared }, 'custom', node));
    } else {
      const classified = classifyExecutor(content.executor);
      children.push(childOf(id, content.executor, classified, classified.kind, node));
    }
  }
  return children;
}

/** The Strands adapter. */
export const strandsAdapter: FrameworkAdapter<unknown, StrandsNative> = {
  framework: 'strands',
  recognise(value: unknown): unknown {
    const classified = classifyExecutor(value);
    return classified.kind === 'graph' || classified.kind === 'swarm' || classified.kind === 'agent'
      ? value
      : undefined;
  },
  root(root: unknown): SeamChild<StrandsNative> {
    return childOf(readData(root, 'id'), root, classifyExecutor(root));
  },
  children(value: unknown, native: StrandsNative | undefined): readonly SeamChild<StrandsNative>[] {
    const classified = native?.classified ?? classifyExecutor(value);
    if ('agent' in classified) return classified.problem === undefined ? agentTools(classified.agent) : [];
    if ('orchestrator' in classified) return orchestratorNodes(classified.orchestrator);
    return [];
  },
  acceptedAt(): string | undefined {
    // The Strands node guard keeps what it accepted inside its own closure; the Strands report reads it there.
    return undefined;
  },
  gateState(value: unknown): { state: SeamGateState } {
    const classified = classifyExecutor(value);
    if (classified.kind === 'agent' && 'agent' in classified) {
      const state = agentGateState(classified.agent);
      return { state: state === 'gated' ? 'gated' : state === 'pending-plugin' ? 'pending' : 'ungated' };
    }
    if ('orchestrator' in classified) {
      return { state: hasNodeGuard(classified.orchestrator) ? 'gated' : 'ungated' };
    }
    return { state: 'unknown' };
  },
};
