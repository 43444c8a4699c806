import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import type { CoverageNode } from '../report/schema.js';
import { visible, visiblePath } from '../escape.js';
import { DEFAULT_FIX, STATUS_COLOR, STATUS_GLYPH } from './theme.js';
import { truncate } from './tree.js';

/** Props of the detail pane. */
export interface DetailProps {
  readonly node: CoverageNode | undefined;
  /** The module the node was loaded from, in a bundle of several modules. */
  readonly module?: string | undefined;
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

/** The gate of a node in words: its name, its full id, and whether the id is valid in one process only. */
export function gateText(gate: NonNullable<CoverageNode['gate']>): string {
  return `${visible(gate.name)} · id ${visible(gate.id)}${gate.perProcess === true ? ' (per-process id)' : ''}`;
}

/** How many lines the pane takes for a node (long values that wrap aside). */
export function detailHeight(node: CoverageNode | undefined, module: string | undefined): number {
  if (node === undefined) return 1;
  const fix = node.status === 'gated' || node.status === 'attested' ? 0 : 1;
  return (
    4 + fix + (module === undefined ? 0 : 1) + (node.gate === undefined ? 0 : 1) + Math.min(3, node.warnings.length)
  );
}

/**
 * Everything about the selected node: path, module (in a bundle), kind, status, reason, gate, tools,
 * warnings and the fix. Every value from data is shown with `visible`.
 */
export function Detail({ node, module, width, color }: DetailProps): ReactElement {
  if (node === undefined) return <Text dimColor={color}>no node matches</Text>;
  const agentLike = node.kind === 'agent' || node.kind === 'agent-tool';
  const tools = node.tools.length > 0 ? node.tools.map(visible).join(', ') : agentLike ? '(none)' : '-';
  const covered = node.status === 'gated' || node.status === 'attested';
  return (
    <Box flexDirection="column">
      <Text bold={color} color={color ? STATUS_COLOR[node.status] : undefined}>
        {truncate(
          `${STATUS_GLYPH[node.status]} ${visible(node.id)} — ${visible(node.kind)}, ${visible(node.status)}`,
          width,
        )}
      </Text>
      <Field label="path" value={visiblePath(node.path)} width={width} />
      {module === undefined ? null : <Field label="module" value={module} width={width} />}
      <Field label="reason" value={visible(node.reason)} width={width} />
      {node.gate === undefined ? null : <Field label="gate" value={gateText(node.gate)} width={width} />}
      <Field
        label="tools"
        value={`${tools}${node.toolsUnknownUntilInit ? ' (+ tools unknown until init)' : ''}`}
        width={width}
      />
      {node.warnings.map((w, i) => (
        // Warnings may repeat: the index keeps every one its own row.
        <Field key={i} label="warning" value={visible(w)} width={width} tint={color ? 'yellow' : undefined} />
      ))}
      {covered ? null : (
        <Field
          label="fix"
          value={visible(node.fix ?? DEFAULT_FIX[node.status])}
          width={width}
          tint={color ? 'cyan' : undefined}
        />
      )}
    </Box>
  );
}
