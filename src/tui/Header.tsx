import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { percent } from '../report/render/glyphs.js';
import { noteLines, notesSummary } from '../report/render/notes.js';
import { coverageOf, STATUS_ORDER, tally } from '../report/render/summary.js';
import type { CoverageReport, NodeStatus } from '../report/schema.js';
import { visible } from '../escape.js';
import { STATUS_COLOR, STATUS_GLYPH } from './theme.js';
import { truncate } from './tree.js';

/** Props of the header. */
export interface HeaderProps {
  readonly report: CoverageReport;
  readonly width: number;
  readonly color: boolean;
}

/** `✔ 3 gated  ✘ 1 ungated`: the statuses there are any of (`none` when there are no such nodes). */
function Counts({
  counts,
  color,
  note,
}: {
  counts: Readonly<Record<NodeStatus, number>>;
  color: boolean;
  note?: Partial<Record<NodeStatus, string>>;
}): ReactElement {
  const shown = STATUS_ORDER.filter((s) => counts[s] > 0);
  if (shown.length === 0) return <Text>none</Text>;
  return (
    <>
      {shown.map((status, i) => (
        <Text key={status} color={color ? STATUS_COLOR[status] : undefined}>
          {`${i === 0 ? '' : '  '}${STATUS_GLYPH[status]} ${counts[status]} ${status}${note?.[status] ?? ''}`}
        </Text>
      ))}
    </>
  );
}

/**
 * The summary: what was audited, a coverage bar of the tool-running nodes with how many nodes are left to
 * fix, and the counts per status, tool-running nodes and orchestrators apart (counted from the nodes, so
 * the header agrees with the rows), and a line counting the run's notes when it has any.
 */
export function Header({ report, width, color }: HeaderProps): ReactElement {
  const t = tally(report.nodes);
  const ratio = coverageOf(t);
  const barWidth = Math.max(5, Math.min(20, width - 30));
  const filled = Math.round((ratio ?? 0) * barWidth);
  const modules = report.root.kind === 'bundle' ? ` · ${report.sources.length} modules` : '';
  const title = truncate(
    `gate-audit ${report.mode} · ${visible(report.root.id)} (${report.root.kind})${modules}`,
    width,
  );
  const coverage =
    ratio === undefined
      ? ' coverage n/a (no tool-running node to count)'
      : ` ${percent(ratio)} coverage of ${t.counted} tool-running ${t.counted === 1 ? 'node' : 'nodes'}`;
  const orchestrators = STATUS_ORDER.reduce((n, s) => n + t.orchestrators[s], 0);
  // What the run did not audit, or holds against it: counted, with the first note, so the view never looks
  // complete when it is not (every note is in the text, Markdown, SARIF and JUnit reports).
  const notes = notesSummary(report);
  const lines = report.notes?.length ?? 0;
  return (
    <Box flexDirection="column">
      <Text bold={color}>{title}</Text>
      <Text wrap="truncate-end">
        <Text color={color ? 'green' : undefined}>{'█'.repeat(filled)}</Text>
        <Text color={color ? 'gray' : undefined}>{'░'.repeat(barWidth - filled)}</Text>
        <Text>{`${coverage} · ${t.toFix === 0 ? 'nothing' : t.toFix} to fix`}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text>{'tool-running '}</Text>
        <Counts counts={t.toolRunning} color={color} note={{ accepted: ' (not counted)' }} />
        {orchestrators === 0 ? null : (
          <>
            <Text>{' · orchestrators '}</Text>
            <Counts counts={t.orchestrators} color={color} />
          </>
        )}
      </Text>
      {notes === '' ? null : (
        <Text wrap="truncate-end" color={color ? 'yellow' : undefined}>
          {truncate(`notes: ${notes}: ${noteLines(report)[0] ?? ''}${lines > 1 ? ` (+${lines - 1} more)` : ''}`, width)}
        </Text>
      )}
    </Box>
  );
}
