import { Box, Text } from 'ink';
import type { ReactElement } from 'react';

const KEYS: readonly [string, string][] = [
  ['↑ ↓  j k', 'move'],
  ['enter  space', 'expand or collapse'],
  ['→ ←', 'expand / collapse'],
  ['g  G', 'first / last node'],
  ['u', 'only nodes that are not gated'],
  ['/', 'filter by path text (enter keeps it, esc clears it)'],
  ['?', 'this help'],
  ['q  esc', 'quit'],
];

/** Props of the key help. */
export interface HelpProps {
  readonly color: boolean;
}

/** The key help. */
export function Help({ color }: HelpProps): ReactElement {
  return (
    <Box flexDirection="column">
      <Text bold={color}>keys</Text>
      {KEYS.map(([keys, what]) => (
        <Text key={keys}>{`  ${keys.padEnd(14)}${what}`}</Text>
      ))}
      <Text>{'  '}press any key to close</Text>
    </Box>
  );
}
