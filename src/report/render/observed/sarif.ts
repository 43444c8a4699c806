/**
 * The observed report as SARIF 2.1.0: one result per agent and tool whose calls ran undecided (an error),
 * one per drift note (a warning), each with a logical location naming the agent and a stable fingerprint of
 * its place (or id) and tool. Text is neutralised with `visible`; the file is written with `jsonVisible`.
 */
import { joinPath } from '../../../tree-paths.js';
import { jsonVisible, quoted, visible } from '../../../escape.js';
import { rowAgent } from '../../observed.js';
import type { ObservedNote, ObservedReport, ObservedRow } from '../../observed-schema.js';
import { pathFingerprint } from '../sarif.js';

const RULES = [
  {
    id: 'gate-audit/undecided',
    name: 'UndecidedToolCall',
    text: 'A tool call ran with no gate decision: nothing allowed it.',
    help: 'Gate the agent that ran it (installMultiagent, or guardProcess for every agent of the process).',
    level: 'error',
  },
  {
    id: 'gate-audit/gated-undecided',
    name: 'GatedAgentRanUndecided',
    text: 'An agent the audit calls gated ran tool calls undecided.',
    help: 'Check that the agent that runs is the one audited, and that its gate is installed before it runs.',
    level: 'warning',
  },
  {
    id: 'gate-audit/unaudited',
    name: 'DecisionForUnauditedAgent',
    text: 'Tool calls were decided for an agent the audit never saw.',
    help: 'Audit the module that builds the agent.',
    level: 'warning',
  },
] as const;

/** The identity of an agent and tool for fingerprints: its place, else its id. */
function identity(where: { path?: readonly string[]; agentId?: string; tool: string }): string[] {
  return [...(where.path ?? ['#agent', where.agentId ?? '']), `#tool:${where.tool}`];
}

function location(where: { path?: readonly string[]; agentId?: string; tool: string }): Record<string, unknown> {
  return {
    logicalLocations: [
      {
        fullyQualifiedName: visible(
          `${where.path === undefined ? (where.agentId ?? '') : joinPath(where.path)}#${where.tool}`,
        ),
        name: visible(where.tool),
        kind: 'function',
      },
    ],
  };
}

function rowResult(row: ObservedRow): Record<string, unknown> {
  return {
    ruleId: RULES[0].id,
    ruleIndex: 0,
    level: 'error',
    message: {
      text: `${rowAgent(row)} ran tool ${quoted(row.tool)} undecided ${row.undecided} time${row.undecided === 1 ? '' : 's'} (of ${row.calls} call${row.calls === 1 ? '' : 's'}, ${row.firstSeen} to ${row.lastSeen}) | ${RULES[0].help}`,
    },
    locations: [location(row)],
    partialFingerprints: { 'gateAuditObserved/v1': pathFingerprint(identity(row)) },
    properties: { calls: row.calls, decided: row.decided, undecided: row.undecided, refused: row.refused },
  };
}

function noteResult(note: ObservedNote): Record<string, unknown> {
  const index = note.kind === 'gated-undecided' ? 1 : 2;
  const rule = RULES[index];
  return {
    ruleId: rule.id,
    ruleIndex: index,
    level: 'warning',
    message: { text: `${visible(note.message)} | ${rule.help}` },
    locations: [location(note)],
    partialFingerprints: { 'gateAuditObserved/v1': pathFingerprint([note.kind, ...identity(note)]) },
  };
}

/**
 * Renders an observed report as SARIF 2.1.0.
 *
 * @param report - the report
 * @param version - the tool version to name
 * @returns the SARIF JSON, ending with a newline
 */
export function renderObservedSarif(report: ObservedReport, version = '0.0.0'): string {
  const driver = {
    name: 'gate-audit',
    version,
    rules: RULES.map((rule) => ({
      id: rule.id,
      name: rule.name,
      shortDescription: { text: rule.text },
      fullDescription: { text: rule.text },
      help: { text: rule.help },
      defaultConfiguration: { level: rule.level },
    })),
  };
  const results = [...report.rows.filter((row) => row.undecided > 0).map(rowResult), ...report.notes.map(noteResult)];
  const run = {
    tool: { driver },
    automationDetails: { id: 'gate-audit/observed/' },
    results,
    invocations: [{ executionSuccessful: true }],
    properties: { summary: report.summary, hosts: report.hosts.map(visible) },
  };
  return `${jsonVisible(JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [run] }, null, 2))}\n`;
}
