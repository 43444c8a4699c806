import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { CoverageReport } from '../report/schema.js';
import { percent } from '../report/render/glyphs.js';
import { STATUS_COLOR, STATUS_GLYPH } from './theme.js';
import { truncate } from './tree.js';

/** Props of the header. */
export interface HeaderProps {
  readonly report: CoverageReport;
  readonly width: number;
  readonly color: boolean;
}

/** The summary line: what was audited, a coverage bar, and the counts per status. */
export function Header({ report, width, color }: HeaderProps): ReactElement {
  const s = report.summary;
  const barWidth = Math.max(5, Math.min(20, width - 30));
  const filled = Math.round(s.coverage * barWidth);
  const title = truncate(`gate-audit ${report.mode} · ${report.root.id} (${report.root.kind})`, width);
  const counts: [keyof typeof STATUS_COLOR, number][] = [
    ...(s.attested > 0 ? [['attested', s.attested] as [keyof typeof STATUS_COLOR, number]] : []),
    ['ungated', s.ungated],
    ['ungateable', s.ungateable],
    ['blocked', s.blocked],
  ];
  return (
    <Box flexDirection="column">
      <Text bold={color}>{title}</Text>
      <Text>
        <Text color={color ? 'green' : undefined}>{'█'.repeat(filled)}</Text>
        <Text color={color ? 'gray' : undefined}>{'░'.repeat(barWidth - filled)}</Text>
        <Text>{` ${percent(s.coverage)} coverage`}</Text>
      </Text>
      <Text wrap="truncate-end">
        <Text
          color={color ? STATUS_COLOR.gated : undefined}
        >{`${STATUS_GLYPH.gated} ${s.gated}/${s.total} gated`}</Text>
        {counts.map(([status, n]) => (
          <Text
            key={status}
            color={color ? STATUS_COLOR[status] : undefined}
          >{`  ${STATUS_GLYPH[status]} ${n} ${status}`}</Text>
        ))}
      </Text>
    </Box>
  );
}
