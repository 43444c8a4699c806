import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { type ReactElement, useEffect, useMemo, useRef, useState } from 'react';
import { keyPresses, reduce, type ViewState } from './keys.js';
import type { CoverageReport } from '../report/schema.js';
import { visible } from '../escape.js';
import { Detail, detailHeight } from './Detail.js';
import { Header } from './Header.js';
import { Help } from './Help.js';
import { TreeRows } from './TreeRows.js';
import { buildTree, initiallyExpanded, keyOfIndex, truncate, visibleRows, windowStart } from './tree.js';

/** Props of the interactive view. */
export interface CoverageAppProps {
  readonly report: CoverageReport;
  /** Use colour (false under NO_COLOR). */
  readonly color: boolean;
  /** Terminal size; read from the output stream when not given. */
  readonly width?: number;
  readonly height?: number;
  /** Start with only the nodes that are not gated (`--quiet`); `u` shows them all. */
  readonly quiet?: boolean;
}

function firstToFix(report: CoverageReport): string | undefined {
  let index = report.nodes.findIndex((n) => n.status === 'ungated');
  if (index === -1) index = report.nodes.findIndex((n) => n.status !== 'gated');
  return index === -1 ? undefined : keyOfIndex(index);
}

/**
 * The container: owns the selection, the expanded set and the filters, and hands read-only props to the
 * presentational parts.
 */
export function CoverageApp({ report, color, width, height, quiet }: CoverageAppProps): ReactElement {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const columns = Math.max(20, width ?? stdout.columns ?? 80);
  const lines = Math.max(12, height ?? stdout.rows ?? 24);
  const forest = useMemo(() => buildTree(report), [report]);
  const [state, setState] = useState<ViewState>(() => ({
    expanded: initiallyExpanded(forest, report.nodes.length),
    // Start on the first node that needs attention, so the hole is what the person sees first.
    selectedKey: firstToFix(report),
    notGatedOnly: quiet === true,
    filter: '',
    editing: false,
    help: false,
    quit: false,
  }));
  const start = useRef(0);

  const { expanded, notGatedOnly, filter, editing, help } = state;
  const rows = useMemo(
    () => visibleRows(forest, expanded, { notGatedOnly, text: filter }),
    [forest, expanded, notGatedOnly, filter],
  );
  const found = rows.findIndex((r) => r.key === state.selectedKey);
  const selected = found === -1 ? 0 : found;
  const current = rows[selected];
  const detailLines = 1 + detailHeight(current?.node, current?.module);
  const headerLines = (report.notes?.length ?? 0) > 0 ? 4 : 3;
  const treeHeight = Math.max(3, lines - headerLines - detailLines - 4);
  start.current = windowStart(selected, treeHeight, rows.length, start.current);

  useInput((input, key) => {
    const presses = keyPresses(input, key);
    // A functional update: keys handled before the next render still see each other's effects.
    setState((previous) => presses.reduce((next, press) => reduce(next, press, forest), previous));
  });
  useEffect(() => {
    if (state.quit) exit();
  }, [state.quit, exit]);

  const rule = '─'.repeat(Math.min(columns, 120));
  const filters = [
    notGatedOnly ? 'not gated only' : '',
    filter !== '' || editing ? `filter: ${visible(filter)}${editing ? '▏' : ''}` : '',
  ]
    .filter((f) => f !== '')
    .join(' · ');
  return (
    <Box flexDirection="column" width={columns}>
      <Header report={report} width={columns} color={color} />
      <Text dimColor={color}>{(filters === '' ? rule : `── ${filters} ${rule}`).slice(0, columns)}</Text>
      {help ? (
        <Help color={color} />
      ) : (
        <>
          <TreeRows
            rows={rows}
            start={start.current}
            height={treeHeight}
            selected={selected}
            width={columns}
            color={color}
          />
          <Text dimColor={color}>
            {`─── ${rows.length === 0 ? 0 : selected + 1}/${rows.length} ${rule}`.slice(0, columns)}
          </Text>
          <Detail node={current?.node} module={current?.module} width={columns} color={color} />
        </>
      )}
      <Text dimColor={color}>
        {truncate('↑↓ jk move · enter expand · u not gated · / filter · ? help · q quit', columns)}
      </Text>
    </Box>
  );
}
