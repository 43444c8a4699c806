/**
 * The SARIF 2.1.0 report, for code-scanning uploads: one rule per problem kind, one result per node that
 * is not gated (an accepted node's result carries its reason as a suppression), one per refusal no node
 * shows and per CLI note that holds something against the run, and a stable fingerprint per node path so a
 * finding keeps its identity across runs. Locations are relative to `%SRCROOT%` (the project root) and
 * point at the line that defines the node when the CLI found it. A run that failed to load still gets a
 * SARIF file, with the error as a tool execution notification.
 */
import { createHash } from 'node:crypto';
import { type CoverageNode, type CoverageNote, type CoverageReport, isCovered } from '../schema.js';

/** A place in the source for a result: a URI relative to `%SRCROOT%` (or absolute), and a line. */
export interface SarifLocation {
  readonly uri: string;
  /** Whether `uri` is relative to the project root (`%SRCROOT%`). */
  readonly underRoot: boolean;
  readonly startLine: number;
}

/** A message about the run itself rather than a node. */
export interface SarifNotification {
  readonly level: 'error' | 'warning' | 'note';
  readonly text: string;
}

/** What the CLI knows beyond the report: where things are, and how the run went. */
export interface SarifOptions {
  /** Where a node's finding is. */
  readonly locate?: (node: CoverageNode) => SarifLocation | undefined;
  /** Where a module (and one of its exports) is. */
  readonly locateModule?: (module: string, exportName?: string) => SarifLocation | undefined;
  /** Messages about the run (modules skipped, an error that stopped it). */
  readonly notifications?: readonly SarifNotification[];
  /** False when the run stopped on an error before it could audit. */
  readonly executionSuccessful?: boolean;
}

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
    text: 'A node that cannot be gated in this process was accepted with a reason.',
    help: 'Review the reason; gate the node where it runs when you can.',
  },
  'unaudited-export': {
    name: 'UnauditedExport',
    text: 'An exported function was not called, so what it builds was not audited.',
    help: 'Name it in factories (module#export, with argument lists if it takes any), or pass --export.',
  },
  'gate-mismatch': {
    name: 'GateMismatch',
    text: 'A gated node runs under another gate than the one required.',
    help: 'Install the required gate on every agent (installMultiagent(root, { gate })).',
  },
};

const ruleIdOf = (node: CoverageNode): string =>
  `gate-audit/${
    node.status === 'ungateable' || node.status === 'accepted' ? (node.problem ?? node.status) : node.status
  }`;

const SRCROOT = '%SRCROOT%';

function physical(location: SarifLocation | undefined): Record<string, unknown> {
  if (location === undefined) return {};
  return {
    physicalLocation: {
      artifactLocation: { uri: location.uri, ...(location.underRoot ? { uriBaseId: SRCROOT } : {}) },
      region: { startLine: location.startLine },
    },
  };
}

const driverOf = (version: string): Record<string, unknown> => ({
  name: 'gate-audit',
  version,
  informationUri: 'https://www.npmjs.com/package/gate-audit',
  rules: Object.entries(RULES).map(([id, rule]) => ({
    id: `gate-audit/${id}`,
    name: rule.name,
    shortDescription: { text: rule.text },
    fullDescription: { text: rule.text },
    help: { text: rule.help },
    defaultConfiguration: {
      level: id === 'blocked' || id === 'unaudited-export' ? 'warning' : id === 'accepted' ? 'note' : 'error',
    },
  })),
});

const sarifText = (runs: unknown[]): string =>
  `${JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs }, null, 2)}\n`;

/**
 * A SARIF file for a run that stopped before it could audit (a load, usage or configuration error): no
 * results, and the error as a tool execution notification, so an upload step that runs `if: always()`
 * still finds a valid file.
 *
 * @param message - the error, one line per problem
 * @param version - the tool version to name
 */
export function renderSarifError(message: string, version = '0.0.0'): string {
  return sarifText([
    {
      tool: { driver: driverOf(version) },
      results: [],
      invocations: [
        {
          executionSuccessful: false,
          toolExecutionNotifications: [{ level: 'error', message: { text: message } }],
        },
      ],
    },
  ]);
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
 * @param options - source locations and notifications the CLI found
 * @returns the SARIF JSON, ending with a newline
 */
export function renderSarif(report: CoverageReport, version = '0.0.0', options: SarifOptions = {}): string {
  const driver = driverOf(version);
  const ruleIds = (driver.rules as { id: string }[]).map((r) => r.id);
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]));
  const withIndex = (ruleId: string): Record<string, unknown> =>
    ruleIndex.has(ruleId) ? { ruleId, ruleIndex: ruleIndex.get(ruleId) } : { ruleId };
  const sourceOf = (path: readonly string[]): CoverageReport['sources'][number] | undefined =>
    report.sources.find((s) => s.path.every((segment, i) => path[i] === segment));
  const moduleLocation = (path: readonly string[]): SarifLocation | undefined => {
    const source = sourceOf(path);
    if (source === undefined) return undefined;
    return (
      options.locateModule?.(source.module, source.export) ?? { uri: source.module, underRoot: false, startLine: 1 }
    );
  };
  const results: unknown[] = report.nodes
    .filter((n) => !isCovered(n.status))
    .map((n) => ({
      ...withIndex(ruleIdOf(n)),
      level: n.status === 'blocked' ? 'warning' : n.status === 'accepted' ? 'note' : 'error',
      message: { text: `"${n.path.join(' › ')}" ${n.reason}${n.fix === undefined ? '' : ` | ${n.fix}`}` },
      locations: [
        {
          ...physical(options.locate?.(n) ?? moduleLocation(n.path)),
          logicalLocations: [{ fullyQualifiedName: n.path.join('/'), name: n.id, kind: n.kind }],
        },
      ],
      partialFingerprints: { 'gateAuditNodePath/v1': pathFingerprint(n.path) },
      ...(n.status === 'accepted'
        ? { suppressions: [{ kind: 'external', status: 'accepted', justification: n.reason }] }
        : {}),
      ...(n.gate === undefined ? {} : { properties: { gate: n.gate } }),
    }));
  const shownPaths = new Set(report.nodes.map((n) => JSON.stringify(n.path)));
  for (const refusal of report.refusals) {
    if (shownPaths.has(JSON.stringify(refusal.path))) continue;
    results.push({
      ...withIndex(`gate-audit/${refusal.kind}`),
      level: 'error',
      message: { text: `"${refusal.path.join(' › ')}" ${refusal.reason} | ${refusal.fix}` },
      locations: [
        {
          ...physical(moduleLocation(refusal.path)),
          logicalLocations: [{ fullyQualifiedName: refusal.path.join('/'), name: refusal.path.at(-1) ?? '' }],
        },
      ],
      partialFingerprints: { 'gateAuditNodePath/v1': pathFingerprint(refusal.path) },
    });
  }
  const notes: readonly CoverageNote[] = report.notes ?? [];
  for (const note of notes) {
    if (note.kind === 'skipped-module') continue;
    const ruleId = `gate-audit/${note.kind}`;
    const where =
      note.path === undefined
        ? `${note.module}${note.export === undefined ? '' : `#${note.export}`}`
        : `"${note.path.join(' › ')}"`;
    results.push({
      ...withIndex(ruleId),
      level: note.fails === true ? 'error' : 'warning',
      message: { text: `${where} ${note.message}${note.fix === undefined ? '' : ` | ${note.fix}`}` },
      locations: [
        {
          ...physical(
            options.locateModule?.(note.module, note.export) ?? { uri: note.module, underRoot: false, startLine: 1 },
          ),
        },
      ],
      partialFingerprints: {
        'gateAuditNodePath/v1': pathFingerprint(note.path ?? [note.kind, note.module, note.export ?? '']),
      },
    });
  }
  const notifications = [
    ...notes
      .filter((n) => n.kind === 'skipped-module')
      .map((n) => ({ level: 'note', message: { text: `${n.module} ${n.message}` } })),
    ...(options.notifications ?? []).map((n) => ({ level: n.level, message: { text: n.text } })),
  ];
  return sarifText([
    {
      tool: { driver },
      results,
      invocations: [
        {
          executionSuccessful: options.executionSuccessful ?? true,
          ...(notifications.length > 0 ? { toolExecutionNotifications: notifications } : {}),
        },
      ],
    },
  ]);
}
