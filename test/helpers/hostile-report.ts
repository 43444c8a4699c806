/**
 * Hostile reports for the output property tests: ids, names, tool names, reasons, fixes, warnings, gate
 * names and ids, modules and refusals drawn from strings that try to forge rows, summaries, markup, XML,
 * workflow commands and terminal control sequences.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { summarize } from '../../src/report/audit.js';
import { summarizeRows } from '../../src/report/observed.js';
import { type ObservedReport, ObservedReportSchema, type ObservedRow } from '../../src/report/observed-schema.js';
import {
  type CoverageEdge,
  type CoverageNode,
  type CoverageReport,
  CoverageReportSchema,
  type NodeStatus,
} from '../../src/report/schema.js';
import { hasHiddenCharacters } from '../../src/escape.js';

/** Strings known to break an output that prints data raw. */
export const ATTACKS: readonly string[] = [
  // Terminal: rewrite the row, forge a summary, hide the rest, write the clipboard.
  'publisher\r✔   publisher  agent      gated      ok\n\ncoverage 100% of 1 tool-running node',
  '\u001b]52;c;cm0gLXJmIH4=\u0007',
  '\u001b[8m',
  '\u001b[2K\r',
  '\u009b31m',
  '\u009d52;c;x\u009c',
  '\u001bP+q\u001b\\',
  '\u0085',
  '\u2028',
  '\u2029',
  '\r\n',
  '\n',
  '\r',
  '\t',
  '\u0000',
  '\u007f',
  // Bidi, invisible, noncharacters, lone surrogates.
  '\u202e',
  '\u2066',
  '\u2069',
  '\u200b',
  '\u200d',
  '\ufeff',
  '\u00ad',
  '\u061c',
  '\u0600',
  '\u{e0041}',
  '\u{1d173}',
  '\ufffe',
  '\uffff',
  '\ud800',
  '\udfff',
  // Markup and Markdown.
  '<!--',
  '-->',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '&amp;',
  '&',
  '&#x2028;',
  '**Coverage 100%**',
  '\n## gate-audit audit: `x` ✔ fully gated\n',
  '| ✔ | `x` | agent | gated | ok |  |  |',
  '|---|',
  '- [x] done',
  '[link](javascript:alert(1))',
  'https://evil.example/x',
  'www.evil.example',
  '@octocat',
  '#1',
  '$x^2$',
  ':smile:',
  '_a_',
  '~~s~~',
  '`',
  '``',
  '```',
  ' `x` ',
  '|',
  '\\|',
  '\\',
  '\\`',
  // XML.
  '</testcase>',
  ']]>',
  '<![CDATA[',
  '"',
  "'",
  // Workflow commands.
  '::error::fake',
  '::notice title=x::y',
  '%0A::error::x',
  '%',
  ',',
  ':',
  '::stop-commands::t',
  // Paths and pictures.
  '›',
  ' › ',
  '#2',
  '%2F',
  '/',
  'end',
  'subgraph',
  '"]',
  '#quot;',
  '\\n',
  '\\"',
  ' ',
  '',
];

/** Strings that try to make a CI runner read a workflow command: either syntax, behind every space it skips. */
export const COMMAND_ATTACKS: readonly string[] = [
  '##[error]forged',
  '##[stop-commands]token',
  '##[ERROR]x',
  '#',
  '##',
  '[',
  '::error::forged',
  '::Error::x',
  '::stop-commands::token',
  '\n::error::x',
  ':',
  '::',
  ...['\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u202f', '\u205f', '\u3000', '\u0085', '\v', '\f'].map(
    (space) => `\n${space}::error::behind a space`,
  ),
  '\r::warning::x',
  '\r\n  ::notice::x',
];

/**
 * A hostile string drawn from some attacks: one of them, or a mix of them and random text (any code point).
 *
 * @param attacks - the strings to draw from
 */
export function hostileFrom(attacks: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...attacks),
    fc
      .array(
        fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom(...attacks) },
          { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
          { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
        ),
        { minLength: 1, maxLength: 5 },
      )
      .map((parts) => parts.join('')),
  );
}

/** A hostile string: a known attack, or a mix of attacks and random text (any code point). */
export const hostile: fc.Arbitrary<string> = hostileFrom(ATTACKS);

const STATUSES: readonly NodeStatus[] = ['gated', 'attested', 'accepted', 'ungated', 'ungateable', 'blocked'];
const KINDS = ['graph', 'swarm', 'agent', 'agent-tool', 'remote', 'custom'] as const;

const nodeSeed = (drawn: fc.Arbitrary<string>) =>
  fc.record({
    parent: fc.nat(),
    id: drawn,
    kind: fc.constantFrom(...KINDS),
    status: fc.constantFrom(...STATUSES),
    reason: drawn,
    fix: fc.option(drawn, { nil: undefined }),
    problem: fc.option(drawn, { nil: undefined }),
    tools: fc.array(drawn, { maxLength: 2 }),
    warnings: fc.array(drawn, { maxLength: 2 }),
    gate: fc.option(fc.record({ name: drawn, id: drawn, perProcess: fc.option(fc.boolean(), { nil: undefined }) }), {
      nil: undefined,
    }),
  });

const NOTE_KINDS = [
  'unaudited-export',
  'skipped-module',
  'gate-mismatch',
  'load',
  'invoked-at-import',
  'process-guard',
  'refused-tree',
  'writable-keyring',
] as const;

const noteSeed = (drawn: fc.Arbitrary<string>) =>
  fc.record({
    kind: fc.constantFrom(...NOTE_KINDS),
    module: drawn,
    export: fc.option(drawn, { nil: undefined }),
    at: fc.option(fc.nat(), { nil: undefined }),
    message: drawn,
    fix: fc.option(drawn, { nil: undefined }),
    fails: fc.option(fc.boolean(), { nil: undefined }),
  });

/** Options of the report arbitrary. */
export interface HostileReportOptions {
  readonly maxNodes?: number;
  /** The strings its values are drawn from (default `ATTACKS`). */
  readonly attacks?: readonly string[];
  /** Notes too, each kind, failing or not, with hostile modules, exports, paths, messages and fixes. */
  readonly notes?: boolean;
}

/** A valid report (it passes the schema) whose every string is hostile. */
export function hostileReport(options: HostileReportOptions = {}): fc.Arbitrary<CoverageReport> {
  const drawn = options.attacks === undefined ? hostile : hostileFrom(options.attacks);
  return fc
    .record({
      seeds: fc.array(nodeSeed(drawn), { minLength: 1, maxLength: options.maxNodes ?? 12 }),
      notes: fc.array(noteSeed(drawn), { maxLength: options.notes === true ? 4 : 0 }),
      rootId: drawn,
      mode: fc.constantFrom('audit' as const, 'plan' as const),
      bundle: fc.option(
        fc.array(fc.record({ module: drawn, export: drawn, factory: fc.boolean() }), {
          minLength: 1,
          maxLength: 2,
        }),
        { nil: undefined },
      ),
      flows: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: 6 }),
      refusals: fc.array(fc.record({ at: fc.nat(), reason: drawn, fix: drawn, kind: drawn }), { maxLength: 2 }),
    })
    .map(({ seeds, notes, rootId, mode, bundle, flows, refusals }) => {
      const labels = bundle?.map((source, i) => `${source.module}#${source.export}#${i}`) ?? [];
      const taken = new Set<string>();
      const nodes: CoverageNode[] = [];
      seeds.forEach((seed, i) => {
        // The first node, and any whose parent draw is 0, starts a new root; others hang under an earlier node.
        const pick = i === 0 ? 0 : seed.parent % (i + 1);
        const parentPath =
          pick === 0
            ? labels.length > 0
              ? [labels[seed.parent % labels.length] as string]
              : []
            : nodes[pick - 1]!.path;
        let id = seed.id;
        for (let n = 2; taken.has(JSON.stringify([...parentPath, id])); n++) id = `${seed.id}#${n}`;
        const path = [...parentPath, id];
        taken.add(JSON.stringify(path));
        nodes.push({
          path,
          id,
          kind: seed.kind,
          status: seed.status,
          reason: seed.reason,
          ...(seed.fix === undefined ? {} : { fix: seed.fix }),
          ...(seed.problem === undefined ? {} : { problem: seed.problem }),
          tools: seed.tools,
          toolsUnknownUntilInit: seed.tools.length === 1,
          warnings: seed.warnings,
          ...(seed.gate === undefined
            ? {}
            : {
                gate: {
                  name: seed.gate.name,
                  id: seed.gate.id,
                  ...(seed.gate.perProcess === undefined ? {} : { perProcess: seed.gate.perProcess }),
                },
              }),
        });
      });
      const edges: CoverageEdge[] = flows.map(([a, b, conditional]) => ({
        from: nodes[a % nodes.length]!.path,
        to: nodes[b % nodes.length]!.path,
        kind: 'flow' as const,
        ...(conditional ? { conditional } : {}),
      }));
      const report: CoverageReport = {
        schemaVersion: 2,
        mode,
        root: { id: bundle === undefined ? rootId : 'gate-audit', kind: bundle === undefined ? 'graph' : 'bundle' },
        nodes,
        edges,
        summary: summarize(nodes),
        refusals: refusals.map((r) => ({
          path: nodes[r.at % nodes.length]!.path,
          kind: r.kind,
          reason: r.reason,
          fix: r.fix,
        })),
        sources: (bundle ?? []).map((source, i) => ({ ...source, path: [labels[i] as string] })),
        ...(notes.length === 0
          ? {}
          : {
              notes: notes.map((note) => ({
                kind: note.kind,
                module: note.module,
                ...(note.export === undefined ? {} : { export: note.export }),
                ...(note.at === undefined ? {} : { path: nodes[note.at % nodes.length]!.path }),
                message: note.message,
                ...(note.fix === undefined ? {} : { fix: note.fix }),
                ...(note.fails === undefined ? {} : { fails: note.fails }),
              })),
            }),
      };
      return CoverageReportSchema.parse(report);
    });
}

/** The colour and style sequences ink writes itself (stripped before a frame is checked). */
// eslint-disable-next-line no-control-regex
export const SGR = /\u001b\[[0-9;]*m/g;

const instant = fc.integer({ min: 0, max: 4_000_000_000_000 }).map((ms) => new Date(ms).toISOString());

const row = (drawn: fc.Arbitrary<string>): fc.Arbitrary<ObservedRow> =>
  fc
    .record({
      path: fc.option(fc.array(drawn, { minLength: 1, maxLength: 3 }), { nil: undefined }),
      agentId: fc.option(drawn, { nil: undefined }),
      tool: drawn,
      decided: fc.nat(5),
      undecided: fc.nat(5),
      refused: fc.nat(5),
      seen: fc.tuple(instant, instant),
    })
    .map(({ path, agentId, tool, decided, undecided, refused, seen }) => ({
      ...(path === undefined ? {} : { path }),
      ...(agentId === undefined ? {} : { agentId }),
      tool,
      calls: decided + undecided + refused,
      decided,
      undecided,
      refused,
      firstSeen: seen[0] < seen[1] ? seen[0] : seen[1],
      lastSeen: seen[0] < seen[1] ? seen[1] : seen[0],
    }));

/**
 * A valid observed report (it passes the schema) whose every string is drawn.
 *
 * @param attacks - the strings its values are drawn from (default `ATTACKS`)
 */
export function hostileObservedReport(attacks?: readonly string[]): fc.Arbitrary<ObservedReport> {
  const drawn = attacks === undefined ? hostile : hostileFrom(attacks);
  return fc
    .record({
      rows: fc.array(row(drawn), { minLength: 1, maxLength: 8 }),
      hosts: fc.array(drawn, { maxLength: 3 }),
      sources: fc.array(
        fc.record({
          name: drawn,
          kind: fc.constantFrom('traces' as const, 'log' as const, 'store' as const),
          read: fc.nat(),
          used: fc.nat(),
        }),
        { maxLength: 3 },
      ),
      notes: fc.array(
        fc.record({
          kind: fc.constantFrom('gated-undecided' as const, 'unaudited' as const),
          tool: drawn,
          message: drawn,
          agentId: drawn,
        }),
        { maxLength: 3 },
      ),
      root: drawn,
    })
    .map(({ rows, hosts, sources, notes, root }) =>
      ObservedReportSchema.parse({
        schemaVersion: 1,
        mode: 'observed',
        generator: { name: 'gate-audit', version: '0.0.0' },
        window: { first: rows[0]!.firstSeen, last: rows[0]!.lastSeen },
        hosts,
        sources,
        rows,
        summary: summarizeRows(rows),
        ...(notes.length > 0 ? { audit: { root } } : {}),
        notes,
      }),
    );
}

/** No line of the output holds anything a terminal would act on or hide (the only raw newline ends a line). */
export function expectNothingHidden(output: string): void {
  const bad = output.split('\n').find((line) => hasHiddenCharacters(line));
  expect(bad, 'a line with a hidden or control character').toBeUndefined();
}
