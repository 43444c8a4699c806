/**
 * The SARIF 2.1.0 report, for code-scanning uploads: one rule per problem kind, one result per node that
 * fails a run under the one exit rule, an accepted node as a suppressed note carrying its reason, and a
 * stable fingerprint per node path so a finding keeps its identity across runs.
 *
 * Text a person reads (messages, location names, rule ids taken from a node's problem) is neutralised with
 * `visible`; the fingerprint hashes the raw path. Each result carries the node's `status` and, when known,
 * its `gate` in `properties`; the run's `properties.gates` lists every gate of the report (a gated node has
 * no result to carry it).
 *
 * Refusals no node shows (a tree the module refused at import) and CLI notes that hold something against the
 * run (functions not audited, gate mismatches) are results too; skipped modules are notifications. Locations
 * are relative to `%SRCROOT%` (the project root) and point at the line that defines the node when the CLI
 * found it. A run that failed before it could audit still gets a SARIF file, with the error as a tool
 * execution notification.
 */
import { createHash } from 'node:crypto';
import { joinPath } from '../../tree-paths.js';
import { jsonVisible, neutralizeCommands, quoted, visible, visiblePath } from '../../escape.js';
import { nodeFailsRun } from '../exit.js';
import type { CoverageNode, CoverageNote, CoverageReport } from '../schema.js';
import { gateLegend } from './summary.js';

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
  /** Messages about the run (an error that stopped it). */
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
    text: 'A remote or opaque node was acknowledged with a reason and is not counted in coverage.',
    help: 'Keep the acknowledgement current, or gate the node where it runs.',
  },
  'unaudited-export': {
    name: 'UnauditedExport',
    text: 'An exported function was not called, so what it builds was not audited.',
    help: 'Name it in factories (module#export, with argument lists if it takes any), or pass --export.',
  },
  load: {
    name: 'LoadFailed',
    text: 'A module or entry point exited, was killed, crashed or hung while it loaded: what it builds was not audited.',
    help: 'Make the module load without ending its process, or audit the app as it runs with --entry.',
  },
  'process-guard': {
    name: 'NoProcessGuard',
    text: 'An entry point invoked agents without the process guard standing: an agent it runs without a gate is not refused.',
    help: 'Call guardProcess({ gates }) at startup, or start node with --import gate-audit/register and processGuard in the configuration.',
  },
  'refused-tree': {
    name: 'RefusedTree',
    text: "A module's own installMultiagent refused a tree it builds, so the app does not start as it stands.",
    help: 'Fix the nodes the refusal names, or accept the remote and opaque ones with a reason.',
  },
  'writable-keyring': {
    name: 'WritableKeyringAccepted',
    text: "A gate accepts an approvers' keyring the agent's user may rewrite (allowWritableKeyring: true): an agent that adds its own key to it can approve its own calls after a restart.",
    help: 'Make the keyring and its folders writable only by another user (chown root, chmod 644) and drop allowWritableKeyring.',
  },
  'invoked-at-import': {
    name: 'InvokedAtImport',
    text: 'A module invoked an agent or orchestrator while it was imported; the invocation was stopped and its tree audited.',
    help: 'Audit the app as it runs: gate-audit --entry <file>.',
  },
  'gate-mismatch': {
    name: 'GateMismatch',
    text: 'A gated node runs under another gate than the one required.',
    help: 'Install the required gate on every agent (installMultiagent(root, { gate })).',
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

const RULE_LEVEL: Readonly<Record<string, string>> = {
  blocked: 'warning',
  'unaudited-export': 'warning',
  'invoked-at-import': 'note',
  accepted: 'note',
};

const driverOf = (version: string): { name: string; version: string; rules: { id: string }[] } => ({
  name: 'gate-audit',
  version,
  rules: Object.entries(RULES).map(([id, rule]) => ({
    id: `gate-audit/${id}`,
    name: rule.name,
    shortDescription: { text: rule.text },
    fullDescription: { text: rule.text },
    help: { text: rule.help },
    defaultConfiguration: { level: RULE_LEVEL[id] ?? 'error' },
  })),
});

const sarifText = (runs: unknown[]): string =>
  `${jsonVisible(JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs }, null, 2))}\n`;

/**
 * A SARIF file for a run that stopped before it could audit (a load, usage or configuration error): no
 * results, and the error as a tool execution notification, so an upload step that runs `if: always()`
 * still finds a valid file. It passes the final pass itself (the registry's formats pass it there).
 *
 * @param message - the error, one line per problem
 * @param version - the tool version to name
 */
export function renderSarifError(message: string, version = '0.0.0'): string {
  return neutralizeCommands(
    sarifText([
      {
        tool: { driver: driverOf(version) },
        results: [],
        invocations: [
          {
            executionSuccessful: false,
            toolExecutionNotifications: [{ level: 'error', message: { text: visible(message) } }],
          },
        ],
      },
    ]),
    'json',
  );
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
  const ruleIndex = new Map(driver.rules.map((r, i) => [r.id, i]));
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
    .filter((n) => nodeFailsRun(n) || n.status === 'accepted')
    .map((n) => {
      const accepted = n.status === 'accepted';
      return {
        ...withIndex(ruleIdOf(n)),
        level: accepted ? 'note' : n.status === 'blocked' ? 'warning' : 'error',
        message: {
          text: `${quoted(visiblePath(n.path))} ${visible(n.reason)}${n.fix === undefined ? '' : ` | ${visible(n.fix)}`}`,
        },
        locations: [
          {
            ...physical(options.locate?.(n) ?? moduleLocation(n.path)),
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
  const shownPaths = new Set(report.nodes.map((n) => JSON.stringify(n.path)));
  for (const refusal of report.refusals) {
    if (shownPaths.has(JSON.stringify(refusal.path))) continue;
    results.push({
      ...withIndex(`gate-audit/${visible(refusal.kind)}`),
      level: 'error',
      message: { text: `${quoted(visiblePath(refusal.path))} ${visible(refusal.reason)} | ${visible(refusal.fix)}` },
      locations: [
        {
          ...physical(moduleLocation(refusal.path)),
          logicalLocations: [
            { fullyQualifiedName: visible(joinPath(refusal.path)), name: visible(refusal.path.at(-1) ?? '') },
          ],
        },
      ],
      partialFingerprints: { 'gateAuditNodePath/v1': pathFingerprint(refusal.path) },
    });
  }
  const notes: readonly CoverageNote[] = report.notes ?? [];
  for (const note of notes) {
    if (note.kind === 'skipped-module') continue;
    const where =
      note.path === undefined
        ? visible(`${note.module}${note.export === undefined ? '' : `#${note.export}`}`)
        : quoted(visiblePath(note.path));
    results.push({
      ...withIndex(`gate-audit/${note.kind}`),
      level: note.fails === true ? 'error' : 'warning',
      message: { text: `${where} ${visible(note.message)}${note.fix === undefined ? '' : ` | ${visible(note.fix)}`}` },
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
      .map((n) => ({ level: 'note', message: { text: `${visible(n.module)} ${visible(n.message)}` } })),
    ...(options.notifications ?? []).map((n) => ({ level: n.level, message: { text: visible(n.text) } })),
  ];
  const gates = gateLegend(report.nodes).entries.map((entry) => ({
    ...gateProperties(entry.gate),
    nodes: entry.nodes,
  }));
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
      ...(gates.length === 0 ? {} : { properties: { gates } }),
    },
  ]);
}
