/**
 * The SARIF 2.1.0 report, for code-scanning uploads: one rule per problem kind, one result per node that
 * is not gated, and a stable fingerprint per node path so a finding keeps its identity across runs.
 */
import { createHash } from 'node:crypto';
import { type CoverageNode, type CoverageReport, isCovered } from '../schema.js';

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
};

const ruleIdOf = (node: CoverageNode): string =>
  `gate-audit/${node.status === 'ungateable' ? (node.problem ?? 'ungateable') : node.status}`;

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
    .filter((n) => !isCovered(n.status))
    .map((n) => {
      const ruleId = ruleIdOf(n);
      const module = sourceOf(n.path);
      return {
        ruleId,
        ...(ruleIndex.has(ruleId) ? { ruleIndex: ruleIndex.get(ruleId) } : {}),
        level: n.status === 'blocked' ? 'warning' : 'error',
        message: { text: `"${n.path.join(' › ')}" ${n.reason}${n.fix === undefined ? '' : ` | ${n.fix}`}` },
        locations: [
          {
            ...(module === undefined
              ? {}
              : { physicalLocation: { artifactLocation: { uri: module }, region: { startLine: 1 } } }),
            logicalLocations: [{ fullyQualifiedName: n.path.join('/'), name: n.id, kind: n.kind }],
          },
        ],
        partialFingerprints: { 'gateAuditNodePath/v1': pathFingerprint(n.path) },
      };
    });
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { name: 'gate-audit', version, rules } }, results }],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
