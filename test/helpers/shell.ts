/** The verdicts a gate gives `bash` tool calls, for the shell-policy tests. */
import type { Decision, Gate } from '../../src/index.js';

/**
 * The verdict of a gate for one call of the `bash` tool with this command (agent `a`, at place `a`).
 *
 * @param gate - a gate that decides synchronously (a policy gate)
 * @param command - the command line
 */
export function bashVerdict(gate: Gate, command: string): string {
  const decision = gate.decide({
    toolUseId: 'u',
    toolName: 'bash',
    input: { command },
    agentId: 'a',
    agentName: 'a',
    path: ['a'],
    paths: [['a']],
    toolKind: 'function',
  }) as Decision;
  return decision.verdict;
}

/**
 * The verdict of a gate for each command line, by line.
 *
 * @param gate - a gate that decides synchronously (a policy gate)
 * @param commands - the command lines
 */
export function bashVerdicts(gate: Gate, commands: readonly string[]): Record<string, string> {
  return Object.fromEntries(commands.map((command) => [command, bashVerdict(gate, command)]));
}
