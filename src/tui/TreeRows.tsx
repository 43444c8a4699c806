import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { visible } from '../escape.js';
import { STATUS_COLOR, STATUS_GLYPH } from './theme.js';
import { type Row, truncate } from './tree.js';

/** Props of the tree window. */
export interface TreeRowsProps {
  readonly rows: readonly Row[];
  readonly start: number;
  readonly height: number;
  readonly selected: number;
  readonly width: number;
  readonly color: boolean;
}

/** Column widths for a terminal width: narrow terminals drop the kind and reason columns. */
function columns(width: number, rows: readonly Row[]): { name: number; kind: number; status: number; reason: number } {
  let longest = 8;
  for (const r of rows) longest = Math.max(longest, r.depth * 2 + 2 + [...r.label].length);
  const fixed = 4;
  const status = 11;
  const wide = width >= 70;
  const kind = wide ? 11 : 0;
  const name = Math.min(longest, Math.max(10, Math.floor((width - fixed - status - kind) * (wide ? 0.45 : 1))));
  const reason = Math.max(0, width - fixed - name - kind - status - 1);
  return { name, kind, status, reason: reason >= 12 ? reason : 0 };
}

/**
 * The visible window of the tree: only `height` rows are rendered, however large the report. Every value
 * from data is shown with `visible`, so a row is one line and its glyph is its node's.
 */
export function TreeRows({ rows, start, height, selected, width, color }: TreeRowsProps): ReactElement {
  const cols = columns(width, rows);
  const window = rows.slice(start, start + height);
  return (
    <Box flexDirection="column">
      {window.map((row, i) => {
        const index = start + i;
        const isSelected = index === selected;
        const marker = row.hasChildren ? (row.expanded ? '▾ ' : '▸ ') : '  ';
        const name = truncate(`${'  '.repeat(row.depth)}${marker}${row.label}`, cols.name).padEnd(cols.name);
        const kind = cols.kind > 0 ? visible(row.node.kind).padEnd(cols.kind) : '';
        const status = visible(row.node.status).padEnd(cols.status);
        const reason = cols.reason > 0 ? truncate(visible(row.node.reason), cols.reason) : '';
        const statusColor = color ? STATUS_COLOR[row.node.status] : undefined;
        return (
          <Text key={row.key} inverse={isSelected && color} wrap="truncate-end">
            <Text>{isSelected ? '>' : ' '}</Text>
            <Text color={statusColor}>{`${STATUS_GLYPH[row.node.status]} `}</Text>
            <Text bold={row.node.status === 'ungated' && color} dimColor={row.node.status === 'blocked' && color}>
              {name}
            </Text>
            <Text> </Text>
            <Text dimColor={color}>{kind}</Text>
            <Text color={statusColor}>{status}</Text>
            <Text>{reason === '' ? '' : ` ${reason}`}</Text>
          </Text>
        );
      })}
    </Box>
  );
}
