/**
 * Colours and glyphs of the view. Every status has a glyph, so the view reads without colour (NO_COLOR).
 */
import type { NodeStatus } from '../report/schema.js';

export { DEFAULT_FIX, STATUS_GLYPH } from '../report/render/glyphs.js';

/** The colour of each status (ink colour names). */
export const STATUS_COLOR: Readonly<Record<NodeStatus, string>> = {
  gated: 'green',
  attested: 'blue',
  accepted: 'yellow',
  ungated: 'red',
  ungateable: 'magenta',
  blocked: 'gray',
};
