/**
 * The SARIF 2.1.0 report, for code-scanning uploads: one rule per problem kind, one result per node that
 * fails a run under the one exit rule, an accepted node as a suppressed note carrying its reason, and a
 * stable fingerprint per node path so a finding keeps its identity across runs.
 *
 * Text a person reads (messages, location names, rule ids taken from a node's problem) is neutralised with
 * `visible`; the fingerprint hashes the raw path. Each result carries the node's `status` and, when known,
 * its `gate` in `properties`; the run's `properties.gates` lists every gate of the report (a gated node has
 * no result to carry it).
 */
import { createHash } from 'node:crypto';
import { joinPath } from '../../paths.js';
import { jsonVisible, quoted, visible, visiblePath } from '../../text.js';
import { nodeFailsRun } from '../exit.js';
import type { CoverageNode, CoverageReport } from '../schema.js';
import { gateLegend } from './summary.js';

interface RuleText {
  readonly name: string;
  readonly text: string;
  readonly help: string;
}

const RULES: Readonly<Record<string, RuleText>> = {
  ungated: {
    name: 'UngatedNode',
    text: 'A local agent or orchestrator runs without a gate.',
    help: 'Call installMultiagent(root) at application startup.',
  },
  blocked: {
    name: 'BlockedNode',
    text: 'A node is not gated; the node guard will cancel it at run time.',
    help: 'Call installMultiagent(root) again after changing the tree.',
  },
  remote: {
    name: 'RemoteNode',
    text: 'A remote (A2A) agent cannot be gated in this process.',
    help: 'Gate the agent on its own server or remove it.',
  },
  'custom-node': {
    name: 'CustomNode',
    text: 'A custom node is opaque to the gate.',
    help: 'Build the node from an Agent, Graph or Swarm.',
  },
  'custom-orchestrator': {
    name: 'CustomOrchestrator',
    text: 'An orchestrator subclass or patched instance may skip the guard.',
    help: 'Use a plain Graph or Swarm.',
  },
  'foreign-executor': {
    name: 'ForeignExecutor',
    text: 'A node runs something that is not a local Strands Agent, Graph or Swarm.',
    help: 'Build the node from a plain Agent, Graph or Swarm.',
  },
  'agent-override': {
    name: 'AgentOverride',
    text: 'An agent overrides stream/invoke and may run tools without hooks.',
    help: 'Use a plain Agent; add behaviour with hooks or plugins.',
  },
  'tool-executor': {
    name: 'CustomToolExecutor',
    text: "An agent's custom tool executor can skip hooks.",
    help: "Use the SDK's sequential or concurrent executor.",
  },
  'sdk-mismatch': {
    name: 'SdkCopyMismatch',
    text: 'The node comes from another copy of @strands-agents/sdk.',
    help: 'Load one copy of the SDK (npm dedupe).',
  },
  topology: {
    name: 'InconsistentTopology',
    text: 'Graph edges or entries hold node objects not in the node map.',
    help: 'Do not swap node objects after construction.',
  },
  cycle: { name: 'NestingCycle', text: 'An orchestrator is nested inside itself.', help: 'Remove the nesting cycle.' },
  accepted: {
    name: 'AcceptedNode',
    text: 'A remote or opaque node was acknowledged with a reason and is not counted in coverage.',
    help: 'Keep the acknowledgement current, or gate the node where it runs.',
  },
};

const ruleIdOf = (node: CoverageNode): string =>
  `gate-audit/${visible(
    node.status === 'ungateable' || node.status === 'accepted' ? (node.problem ?? node.status) : node.status,
  )}`;

/** A gate as SARIF properties, its name and id shown with `visible`. */
function gateProperties(gate: NonNullable<CoverageNode['gate']>): { name: string; id: string; perProcess?: true } {
  return { name: visible(gate.name), id: visible(gate.id), ...(gate.perProcess === true ? { perProcess: true } : {}) };
}

/** The stable fingerprint of a node path. */
export function pathFingerprint(path: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(path)).digest('hex');
}

/**
 * Renders a report as SARIF 2.1.0.
 *
 * @param report - the report
 * @param version - the tool version to name
 * @returns the SARIF JSON, ending with a newline
 */
export function renderSarif(report: CoverageReport, version = '0.0.0'): string {
  const rules = Object.entries(RULES).map(([id, rule]) => ({
    id: `gate-audit/${id}`,
    name: rule.name,
    shortDescription: { text: rule.text },
    fullDescription: { text: rule.text },
    help: { text: rule.help },
    defaultConfiguration: { level: id === 'blocked' ? 'warning' : 'error' },
  }));
  const ruleIndex = new Map(rules.map((r, i) => [r.id, i]));
  const sourceOf = (path: readonly string[]): string | undefined =>
    report.sources.find((s) => s.path.every((segment, i) => path[i] === segment))?.module;
  const results = report.nodes
    .filter((n) => nodeFailsRun(n) || n.status === 'accepted')
    .map((n) => {
      const ruleId = ruleIdOf(n);
      const module = sourceOf(n.path);
      const accepted = n.status === 'accepted';
      return {
        ruleId,
        ...(ruleIndex.has(ruleId) ? { ruleIndex: ruleIndex.get(ruleId) } : {}),
        level: accepted ? 'note' : n.status === 'blocked' ? 'warning' : 'error',
        message: {
          text: `${quoted(visiblePath(n.path))} ${visible(n.reason)}${n.fix === undefined ? '' : ` | ${visible(n.fix)}`}`,
        },
        locations: [
          {
            ...(module === undefined
              ? {}
              : { physicalLocation: { artifactLocation: { uri: module }, region: { startLine: 1 } } }),
            logicalLocations: [
              { fullyQualifiedName: visible(joinPath(n.path)), name: visible(n.id), kind: visible(n.kind) },
            ],
          },
        ],
        partialFingerprints: { 'gateAuditNodePath/v1': pathFingerprint(n.path) },
        ...(accepted
          ? { suppressions: [{ kind: 'external', status: 'accepted', justification: visible(n.reason) }] }
          : {}),
        properties: { status: n.status, ...(n.gate === undefined ? {} : { gate: gateProperties(n.gate) }) },
      };
    });
  const gates = gateLegend(report.nodes).entries.map((entry) => ({
    ...gateProperties(entry.gate),
    nodes: entry.nodes,
  }));
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'gate-audit', version, rules } },
        results,
        ...(gates.length === 0 ? {} : { properties: { gates } }),
      },
    ],
  };
  return `${jsonVisible(JSON.stringify(sarif, null, 2))}\n`;
}
