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
