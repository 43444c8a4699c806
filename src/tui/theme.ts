/**
 * Colours and glyphs of the view. Every status has a glyph, so the view reads without colour (NO_COLOR).
 */
import type { NodeStatus } from '../report/schema.js';

export { STATUS_GLYPH } from '../report/render/glyphs.js';

/** The colour of each status (ink colour names). */
export const STATUS_COLOR: Readonly<Record<NodeStatus, string>> = {
  gated: 'green',
  attested: 'blue',
  accepted: 'yellow',
  ungated: 'red',
  ungateable: 'magenta',
  blocked: 'gray',
};

/** The fix shown for a node that has none of its own. */
export const DEFAULT_FIX: Readonly<Record<NodeStatus, string>> = {
  gated: 'nothing to do',
  attested: 'keep the declaration true: declare every agent it runs, or build them with gatedAgent()',
  accepted: 'keep the acknowledgement current: gate it where it runs, or remove it from the tree',
  ungated: 'call installMultiagent(root) at startup',
  ungateable: 'replace it with a local Agent, Graph or Swarm, or gate it where it runs',
  blocked: 'call installMultiagent(root) again after changing the tree',
};
