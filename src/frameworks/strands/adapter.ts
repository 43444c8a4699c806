/**
 * The Strands adapter behind the seam (`src/frameworks/seam.ts`): what a Graph, a Swarm, a node and an agent are
 * to the neutral walk, and whether each carries the gate, read with the same readers as the Strands walk
 * (`src/walker/walk.ts`). The Strands install, node guard and report still run on that walk; a test keeps this
 * adapter's walk of a tree the same as it (paths, kinds, problems, gate states).
 */
import type { FindingKind } from '../../errors.js';
import { agentGateState, type Classified, classifyExecutor, hasNodeGuard, openNode } from '../../walker/classify.js';
import { readData } from '../../walker/safe-read.js';
import { nodeMap } from '../../walker/topology.js';
import type { FrameworkAdapter, SeamChild, SeamKind, SeamProblem } from '../seam.js';
import { listTools, readAgentTool } from './sdk-internals.js';

/** Problem kinds an `accept` entry may acknowledge (as `installMultiagent`'s). */
const ACCEPTABLE: ReadonlySet<FindingKind> = new Set(['remote', 'custom-node', 'foreign-executor']);

const SEAM_KIND: Readonly<Record<Classified['kind'], SeamKind>> = {
  graph: 'orchestrator',
  swarm: 'orchestrator',
  agent: 'agent',
  remote: 'remote',
  custom: 'custom',
};

function problemOf(problem: { kind: FindingKind; reason: string; fix: string }): SeamProblem {
  return {
    kind: problem.kind as SeamProblem['kind'],
    reason: problem.reason,
    fix: problem.fix,
    acceptable: ACCEPTABLE.has(problem.kind),
  };
}

function childOf(segment: string, value: unknown): SeamChild {
  const classified = classifyExecutor(value);
  if ('declared' in classified) {
    return {
      segment,
      value,
      kind: 'custom',
      declared: classified.declared.agents.map((agent) => childOf(String(readData(agent, 'id')), agent)),
    };
  }
  const walked =
    'agent' in classified ? classified.agent : 'orchestrator' in classified ? classified.orchestrator : value;
  return {
    segment,
    value: walked,
    kind: SEAM_KIND[classified.kind],
    ...(classified.problem === undefined ? {} : { problem: problemOf(classified.problem) }),
  };
}

/** The Strands adapter. */
export const strandsAdapter: FrameworkAdapter<unknown> = {
  framework: 'strands',
  recognise(value: unknown): unknown {
    const classified = classifyExecutor(value);
    return classified.kind === 'graph' || classified.kind === 'swarm' || classified.kind === 'agent'
      ? value
      : undefined;
  },
  rootKind(root: unknown): SeamKind {
    return SEAM_KIND[classifyExecutor(root).kind];
  },
  rootId(root: unknown): string {
    return String(readData(root, 'id'));
  },
  children(value: unknown): readonly SeamChild[] {
    const classified = classifyExecutor(value);
    if (classified.kind === 'agent' && 'agent' in classified && classified.problem === undefined) {
      const children: SeamChild[] = [];
      for (const tool of listTools(classified.agent)) {
        const read = readAgentTool(tool);
        if (read.kind === 'not-agent-tool') continue;
        const segment = String(readData(tool, 'name'));
        children.push(
          read.kind === 'opaque'
            ? {
                segment,
                value: tool,
                kind: 'custom',
                problem: problemOf({
                  kind: 'foreign-executor',
                  reason: `is an agent used as a tool that ${read.reason}`,
                  fix: 'use agent.asTool() or put the Agent itself in tools, and do not patch the tool',
                }),
              }
            : childOf(segment, read.agent),
        );
      }
      return children;
    }
    if (!('orchestrator' in classified)) return [];
    const nodes = nodeMap(classified.orchestrator);
    if (typeof nodes === 'string') return [];
    const children: SeamChild[] = [];
    for (const [id, node] of nodes) {
      const content = openNode(node);
      const segment = String(id);
      if (content.via === 'custom') {
        children.push({ segment, value: node, kind: 'custom', problem: problemOf(content.problem) });
      } else if (content.via === 'declared') {
        children.push({
          segment,
          value: node,
          kind: 'custom',
          declared: content.declared.agents.map((agent) => childOf(String(readData(agent, 'id')), agent)),
        });
      } else {
        children.push(childOf(segment, content.executor));
      }
    }
    return children;
  },
  acceptedAt(): string | undefined {
    // The Strands node guard keeps what it accepted inside its own closure; the Strands report reads it there.
    return undefined;
  },
  gateState(value: unknown) {
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
