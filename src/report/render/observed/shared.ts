/**
 * What every observed format shares: the glyph of a row, the summary line, the verdict and the sources line.
 * Values from data go through `visible` (or the format's own writer) where each format writes them.
 */
import { visible } from '../../../escape.js';
import type { ObservedReport, ObservedRow } from '../../observed-schema.js';

/** A row with a call that ran undecided. */
export const UNDECIDED_GLYPH = '✘';
/** A row whose every call was decided or refused. */
export const DECIDED_GLYPH = '✔';

/** The glyph of a row. */
export function rowGlyph(row: ObservedRow): string {
  return row.undecided > 0 ? UNDECIDED_GLYPH : DECIDED_GLYPH;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** `12 tool calls: 9 decided, 2 undecided, 1 refused` (no data in it). */
export function summaryLine(report: ObservedReport): string {
  const s = report.summary;
  return `${plural(s.calls, 'tool call')}: ${s.decided} decided, ${s.undecided} undecided, ${s.refused} refused`;
}

/** The verdict: `✘ 2 tool calls ran undecided` or `✔ every tool call decided` (no data in it). */
export function verdictLine(report: ObservedReport): string {
  const { undecided } = report.summary;
  return undecided > 0
    ? `${UNDECIDED_GLYPH} ${plural(undecided, 'tool call')} ran undecided`
    : `${DECIDED_GLYPH} every tool call decided`;
}

/** The window, as the report states it: asked bounds and the first and last call (no data in it). */
export function windowLine(report: ObservedReport): string {
  const { since, until, first, last } = report.window;
  const asked = since === undefined && until === undefined ? '' : ` (asked: ${since ?? 'start'} to ${until ?? 'end'})`;
  return first === undefined ? `no tool call seen${asked}` : `${first} to ${last ?? first}${asked}`;
}

/** The hosts, each `visible`, or `(no host named)`. */
export function hostsText(report: ObservedReport): string {
  return report.hosts.length === 0 ? '(no host named)' : report.hosts.map(visible).join(', ');
}

/** One line per source: `traces.jsonl: traces, 120 lines, 40 tool spans` (the name `visible`). */
export function sourceLines(report: ObservedReport): string[] {
  return report.sources.map((source) => {
    const read = source.kind === 'store' ? plural(source.read, 'row') : plural(source.read, 'line');
    const used =
      source.kind === 'traces'
        ? plural(source.used, 'tool span')
        : `${plural(source.used, 'allowing record')} with a trace id`;
    return `${visible(source.name)}: ${source.kind === 'traces' ? 'traces' : 'decisions'}, ${read}, ${used}`;
  });
}
