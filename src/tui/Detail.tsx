import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { type CoverageNode, isCovered } from '../report/schema.js';
import { DEFAULT_FIX, STATUS_COLOR, STATUS_GLYPH } from './theme.js';
import { truncate } from './tree.js';

/** Props of the detail pane. */
export interface DetailProps {
  readonly node: CoverageNode | undefined;
  readonly width: number;
  readonly color: boolean;
}

const LABEL = 9;

/** One labelled line; a long value wraps inside its own column. */
function Field({
  label,
  value,
  width,
  tint,
}: {
  label: string;
  value: string;
  width: number;
  tint?: string | undefined;
}): ReactElement {
  return (
    <Box width={width}>
      <Box width={LABEL} flexShrink={0}>
        <Text>{label}</Text>
      </Box>
      <Box flexGrow={1}>
        <Text wrap="wrap" color={tint}>
          {value}
        </Text>
      </Box>
    </Box>
  );
}

/** Everything about the selected node: path, kind, status, reason, tools, warnings and the fix. */
export function Detail({ node, width, color }: DetailProps): ReactElement {
  if (node === undefined) return <Text dimColor={color}>no node matches</Text>;
  const agentLike = node.kind === 'agent' || node.kind === 'agent-tool';
  const tools = node.tools.length > 0 ? node.tools.join(', ') : agentLike ? '(none)' : '-';
  return (
    <Box flexDirection="column">
      <Text bold={color} color={color ? STATUS_COLOR[node.status] : undefined}>
        {truncate(`${STATUS_GLYPH[node.status]} ${node.id} — ${node.kind}, ${node.status}`, width)}
      </Text>
      <Field label="path" value={node.path.join(' › ')} width={width} />
      <Field label="reason" value={node.reason} width={width} />
      <Field
        label="tools"
        value={`${tools}${node.toolsUnknownUntilInit ? ' (+ tools unknown until init)' : ''}`}
        width={width}
      />
      {node.warnings.map((w) => (
        <Field key={w} label="warning" value={w} width={width} tint={color ? 'yellow' : undefined} />
      ))}
      {isCovered(node.status) ? null : (
        <Field
          label="fix"
          value={node.fix ?? DEFAULT_FIX[node.status]}
          width={width}
          tint={color ? 'cyan' : undefined}
        />
      )}
    </Box>
  );
}
