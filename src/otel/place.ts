/**
 * Where the agent of a tool call sits, read from the spans around the call: shared by `gateSpanProcessor`
 * (the live spans of this process) and `gate-audit observed` (spans read back from OTLP files). The SDK's
 * `execute_tool` span names no agent; its ancestors do:
 *
 * ```
 * invoke_graph <g> → node <n> → invoke_agent <a> → execute_agent_loop_cycle → execute_tool <tool>
 * ```
 *
 * The place is the chain of path segments gate-audit's walk gives the same agent (escaped ids, see
 * `tree-paths.ts`): the root orchestrator's id, each node's id, and the tool name of each agent used as a tool
 * (`execute_tool` → `invoke_agent`). An agent invoked by a custom node adds its own id under the node, as the
 * agents a custom node declares do; an agent invoked outside any tree is its own root. Sibling suffixes
 * (`#2`) are not in spans, so the place of a duplicated id reads as its first sibling.
 *
 * Pure, and free of `@opentelemetry/api`: the CLI reads files with it.
 */
import { segmentOf, UNNAMED } from '../tree-paths.js';

/** The instrumentation scope of gate-audit's own spans (a refused call has one, the SDK makes none). */
export const INSTRUMENTATION_SCOPE = 'gate-audit';

/** The attribute naming the agent of a tool call (`gen_ai.agent.id` of its agent). */
export const AGENT_ID_ATTRIBUTE = 'gate_audit.agent_id';

/** The attribute with the agent's place: its path segments joined with `/` (as in `paths:` rules and logs). */
export const PATH_ATTRIBUTE = 'gate_audit.path';

/** The attribute with the gate's verdict on a call: `allow`, `deny`, `ask` or `error`. */
export const VERDICT_ATTRIBUTE = 'gate_audit.verdict';

/** The loop-cycle span's name (it carries no `gen_ai.operation.name`). */
const LOOP_SPAN = 'execute_agent_loop_cycle';

/** What a span is, for the place of what runs under it. */
export type LinkKind = 'agent' | 'loop' | 'node' | 'orchestrator' | 'tool' | 'other';

/** One span as the place of a call needs it: what it is, its id (per kind) and its parent. */
export interface SpanLink {
  readonly kind: LinkKind;
  /** The parent span's id, absent for a root. */
  readonly parent: string | undefined;
  /** The agent's, node's or orchestrator's id, or the tool's name. */
  readonly id?: string;
  /** A node span's `gen_ai.agent.node_type` (`agentNode`, `multiAgentNode`, or a custom node's type). */
  readonly nodeType?: string;
}

/** Where a call's agent sits, as far as the spans tell. */
export interface SpanPlace {
  /** The `gen_ai.agent.id` of the agent whose loop made the call. */
  readonly agentId?: string;
  /** The agent's path segments from its root (escaped ids); absent when no agent was found. */
  readonly path?: readonly string[];
}

/**
 * The link of a span from its name and the few attributes that matter.
 *
 * @param name - the span's name
 * @param read - reads one attribute (a value that is not a string reads as absent)
 * @param parent - the parent span's id
 */
export function linkOf(name: string, read: (key: string) => unknown, parent: string | undefined): SpanLink {
  const operation = read('gen_ai.operation.name');
  const text = (key: string): string | undefined => {
    const value = read(key);
    return typeof value === 'string' ? value : undefined;
  };
  if (operation === 'execute_tool') return withId('tool', parent, text('gen_ai.tool.name'));
  if (operation === 'invoke_agent') return withId('agent', parent, text('gen_ai.agent.id'));
  if (operation === 'execute_node') {
    const nodeType = text('gen_ai.agent.node_type');
    return { ...withId('node', parent, text('gen_ai.agent.id')), ...(nodeType === undefined ? {} : { nodeType }) };
  }
  if (typeof operation === 'string' && operation.startsWith('invoke_')) {
    return withId('orchestrator', parent, text('gen_ai.agent.id'));
  }
  if (name === LOOP_SPAN) return { kind: 'loop', parent };
  return { kind: 'other', parent };
}

function withId(kind: LinkKind, parent: string | undefined, id: string | undefined): SpanLink {
  return id === undefined ? { kind, parent } : { kind, parent, id };
}

/** Longest chain of ancestors followed (a cycle in hostile data ends there). */
export const MAX_CHAIN = 256;

/**
 * The ancestors of a span, nearest first, as far as `lookup` knows them.
 *
 * @param parent - the span's parent id
 * @param lookup - the link of a span id, when known
 */
export function chainOf(parent: string | undefined, lookup: (spanId: string) => SpanLink | undefined): SpanLink[] {
  const chain: SpanLink[] = [];
  for (let id = parent; id !== undefined && chain.length < MAX_CHAIN; ) {
    const link = lookup(id);
    if (link === undefined) break;
    chain.push(link);
    id = link.parent;
  }
  return chain;
}

/** The index in a chain of the nearest agent span, or -1. */
export function nearestAgent(chain: readonly SpanLink[]): number {
  return chain.findIndex((link) => link.kind === 'agent');
}

/** Whether a span under `above` adds its own segment (else the span above already named it). */
function addsSegment(above: SpanLink | undefined): boolean {
  if (above === undefined) return true;
  if (above.kind === 'tool') return false;
  if (above.kind === 'node') return above.nodeType !== 'agentNode' && above.nodeType !== 'multiAgentNode';
  return true;
}

/**
 * The place of a call from the chain of its ancestors (nearest first, from the call's parent).
 *
 * @param chain - the call span's ancestors, as `chainOf` gives them
 * @returns the agent and its path; empty when no agent span is among the ancestors
 */
export function placeOf(chain: readonly SpanLink[]): SpanPlace {
  const at = nearestAgent(chain);
  if (at === -1) return {};
  const agentId = chain[at]?.id;
  const path: string[] = [];
  let above: SpanLink | undefined;
  for (let i = chain.length - 1; i >= at; i -= 1) {
    const link = chain[i]!;
    if (link.kind === 'other' || link.kind === 'loop') continue;
    const segment = segmentOf(link.id, UNNAMED);
    if (link.kind === 'node' || link.kind === 'tool') path.push(segment);
    else if ((link.kind === 'agent' || link.kind === 'orchestrator') && addsSegment(above)) path.push(segment);
    above = link;
  }
  return {
    ...(agentId === undefined ? {} : { agentId }),
    ...(path.length === 0 ? {} : { path }),
  };
}

/**
 * The segments of a `gate_audit.path` value (joined with `/`, each escaped), or undefined when it is not one.
 *
 * @param value - the attribute's value
 */
export function splitPath(value: unknown): string[] | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const segments = value.split('/');
  return segments.includes('') ? undefined : segments;
}
