/**
 * Status glyphs and labels shared by the renderers: readable without colour.
 */
import type { NodeStatus } from '../schema.js';

/** One glyph per status. */
export const STATUS_GLYPH: Readonly<Record<NodeStatus, string>> = {
  gated: '✔',
  attested: '◇',
  accepted: '◌',
  ungated: '✘',
  ungateable: '⊘',
  blocked: '■',
};

/** Coverage ratio as a whole percent string. */
export function percent(ratio: number): string {
  return `${Math.floor(ratio * 1000) / 10}%`;
}

/** The fix shown for a node that has none of its own. */
export const DEFAULT_FIX: Readonly<Record<NodeStatus, string>> = {
  gated: 'nothing to do',
  attested: 'keep the declaration true: declare every agent it runs, or build them with gatedAgent()',
  accepted: 'keep the acknowledgement current: gate it where it runs, or remove it from the tree',
  ungated: 'call installMultiagent(root) at startup',
  ungateable: 'replace it with a local Agent, Graph or Swarm, or gate it where it runs',
  blocked: 'call installMultiagent(root) again after changing the tree',
};
