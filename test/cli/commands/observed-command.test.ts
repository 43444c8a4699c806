/**
 * `gate-audit observed` (issue 34 §B) on real traces: the fixture `fixtures/observed/traced-run.ts` runs a gated
 * Graph (with a custom node that runs an ungated agent) and an ungated helper with the SDK's tracer,
 * `gateSpanProcessor()` and the in-memory exporter, and writes them as OTLP JSON with
 * `@opentelemetry/otlp-transformer`. The command runs in-process (`main()`), as the built bin runs it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { XMLValidator } from 'fast-xml-parser';
import { type AgentNode, Graph } from '@strands-agents/sdk/multiagent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSupportGraph, policy, runTraced } from '../../../fixtures/observed/traced-run.js';
import { audit, installMultiagent, policyGate } from '../../../src/index.js';
import { type ObservedReport, ObservedReportSchema } from '../../../src/report/observed-schema.js';
import { hasHiddenCharacters } from '../../../src/escape.js';
import { cli, root } from '../../helpers/cli.js';

let dir: string;
/** Paths relative to the project root (the command's working directory). */
let gated: { traces: string; decisions: string };
let ungated: { traces: string };

const at = (name: string): string => relative(root, join(dir, name));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gate-audit-observed-'));
  const run = await runTraced(join(dir, 'gated'));
  gated = { traces: relative(root, run.traces), decisions: relative(root, run.decisions) };
  const plain = await runTraced(join(dir, 'ungated'), { gated: false, spansPerLine: 3 });
  ungated = { traces: relative(root, plain.traces) };
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The observed JSON report of a run, validated. */
async function observedJson(...args: string[]): Promise<{ code: number; report: ObservedReport; err: string }> {
  const { code, out, err } = await cli('observed', ...args, '--format', 'json');
  return { code, report: ObservedReportSchema.parse(JSON.parse(out)), err };
}

/** `place tool calls/decided/undecided/refused` per row. */
const counts = (report: ObservedReport): string[] =>
  report.rows.map(
    (r) =>
      `${r.path?.join('/') ?? `id:${r.agentId ?? '?'}`} ${r.tool} ${r.calls}/${r.decided}/${r.undecided}/${r.refused}`,
  );

describe('gate-audit observed <traces>', () => {
  describe('when it reads the traces of a gated app', () => {
    it("lists the ungated helper's and the custom node's hidden agent's calls as undecided, and exits 1", async () => {
      const { code, report } = await observedJson(gated.traces);
      expect(code).toBe(1);
      expect(counts(report)).toEqual([
        'helper read_file 1/0/1/0',
        'helper shell 1/0/1/0',
        'support/relay/shadow read_file 1/0/1/0',
        'support/relay/shadow shell 1/0/1/0',
        'support/researcher web_search 1/1/0/0',
        'support/triage read_file 1/1/0/0',
        'support/triage shell 1/0/0/1',
      ]);
      expect(report.summary).toEqual({ calls: 7, decided: 2, undecided: 4, refused: 1, rows: 7 });
      expect(report.mode).toBe('observed');
      expect(report.schemaVersion).toBe(1);
      expect(report.sources).toHaveLength(1);
      expect(report.sources[0]).toMatchObject({ name: gated.traces, kind: 'traces', used: 7 });
      expect(report.sources[0]?.read).toBe(readFileSync(join(root, gated.traces), 'utf8').trimEnd().split('\n').length);
    });

    it('text: one row per agent and tool with its glyph, the summary last', async () => {
      const { code, out } = await cli('observed', gated.traces);
      expect(code).toBe(1);
      const rows = out
        .trimEnd()
        .split('\n')
        .slice(0, -1)
        .filter((line) => /^[✘✔] /.test(line));
      expect(rows.map((row) => /^([✘✔]) (.+?) {2,}(\S+) /.exec(row)?.slice(1).join(' '))).toEqual([
        '✘ helper read_file',
        '✘ helper shell',
        '✘ support › relay › shadow read_file',
        '✘ support › relay › shadow shell',
        '✔ support › researcher web_search',
        '✔ support › triage read_file',
        '✔ support › triage shell',
      ]);
      expect(out.trimEnd().split('\n').at(-1)).toBe(
        '✘ 4 tool calls ran undecided · 7 tool calls: 2 decided, 4 undecided, 1 refused',
      );
    });
  });

  describe('when spans lack gate-audit stamps or verdicts', () => {
    it('reads the spans without gate-audit stamps from the spans above them (an app shipped without the gate)', async () => {
      const { code, report } = await observedJson(ungated.traces);
      expect(code).toBe(1);
      expect(counts(report)).toEqual([
        'helper read_file 1/0/1/0',
        'helper shell 1/0/1/0',
        'support/relay/shadow read_file 1/0/1/0',
        'support/relay/shadow shell 1/0/1/0',
        'support/researcher web_search 1/0/1/0',
        'support/triage read_file 1/0/1/0',
        'support/triage shell 1/0/1/0',
      ]);
    });

    it('decides a call whose span lost its verdict by a decision record of the same trace and span (--log)', async () => {
      // A pipeline that drops gate_audit.* attributes (a collector processor, another exporter).
      const stripped = readFileSync(join(root, gated.traces), 'utf8').replace(
        /\{"key":"gate_audit\.[a-z_]+","value":\{"stringValue":"[^"]*"\}\},?/g,
        '',
      );
      const file = join(dir, 'stripped.jsonl');
      writeFileSync(file, stripped.replaceAll(',]', ']'));
      const without = await observedJson(at('stripped.jsonl'));
      expect(
        counts(without.report).filter((r) => r.startsWith('support/triage') || r.startsWith('support/res')),
      ).toEqual([
        'support/researcher web_search 1/0/1/0',
        'support/triage read_file 1/0/1/0',
        // gate-audit's own span of the refused call keeps its scope: still refused.
        'support/triage shell 1/0/0/1',
      ]);
      const withLog = await observedJson(at('stripped.jsonl'), '--log', gated.decisions);
      expect(
        counts(withLog.report).filter((r) => r.startsWith('support/triage') || r.startsWith('support/res')),
      ).toEqual([
        'support/researcher web_search 1/1/0/0',
        'support/triage read_file 1/1/0/0',
        'support/triage shell 1/0/0/1',
      ]);
      // shadow and the helper have no record: still undecided.
      expect(withLog.report.summary).toMatchObject({ decided: 2, undecided: 4, refused: 1 });
      expect(withLog.report.sources.find((s) => s.kind === 'log')).toMatchObject({ used: 2 });
      // A record of another trace decides nothing.
      const log = readFileSync(join(root, gated.decisions), 'utf8').replace(
        /"traceId":"[0-9a-f]{32}"/g,
        `"traceId":"${'a'.repeat(32)}"`,
      );
      writeFileSync(join(dir, 'other-trace.jsonl'), log);
      const other = await observedJson(at('stripped.jsonl'), '--log', at('other-trace.jsonl'));
      expect(other.report.summary).toMatchObject({ decided: 0, undecided: 6, refused: 1 });
    });
  });

  describe('when the traces are gzip or hold ids of any form', () => {
    it('reads gzip (told by its first bytes, whatever the name) the same as plain text', async () => {
      writeFileSync(join(dir, 'traces.json'), gzipSync(readFileSync(join(root, gated.traces))));
      const plain = await observedJson(gated.traces);
      const zipped = await observedJson(at('traces.json'));
      expect(zipped.code).toBe(1);
      expect(zipped.report.rows).toEqual(plain.report.rows);
    });

    it('reads ids of either case and 64-bit numbers as numbers', async () => {
      const text = readFileSync(join(root, gated.traces), 'utf8')
        .replace(
          /"(traceId|spanId|parentSpanId)":"([0-9a-f]+)"/g,
          (_, key: string, id: string) => `"${key}":"${id.toUpperCase()}"`,
        )
        .replace(/"(start|end)TimeUnixNano":"(\d+)"/g, '"$1TimeUnixNano":$2');
      writeFileSync(join(dir, 'upper.jsonl'), text);
      const plain = await observedJson(gated.traces);
      const upper = await observedJson(at('upper.jsonl'));
      expect(counts(upper.report)).toEqual(counts(plain.report));
    });
  });

  describe('when given --since/--until', () => {
    it('selects a window with --since/--until; a window with no tool call is exit 2', async () => {
      const { report } = await observedJson(gated.traces);
      const first = report.window.first!;
      const last = report.window.last!;
      const early = await cli('observed', gated.traces, '--until', first);
      expect(early.code).toBe(2);
      expect(early.out).toBe('');
      const none = await cli('observed', gated.traces, '--since', '2000-01-01', '--until', '2000-01-02');
      expect(none.code).toBe(2);
      expect(none.err).toMatch(/no tool-execution span in the window .* \| widen --since\/--until/);
      const lastOnly = await observedJson(gated.traces, '--since', last);
      expect(lastOnly.code).toBe(1);
      // Calls of the last millisecond only (two may share it): fewer than all, each seen at that instant.
      expect(lastOnly.report.summary.calls).toBeGreaterThanOrEqual(1);
      expect(lastOnly.report.summary.calls).toBeLessThan(report.summary.calls);
      expect(lastOnly.report.rows.every((r) => r.firstSeen === last && r.lastSeen === last)).toBe(true);
      expect(lastOnly.report.window).toMatchObject({ since: last, first: last, last });
      const bad = await cli('observed', gated.traces, '--since', 'yesterday');
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/expected an ISO 8601 date/);
    });
  });

  describe('when the input is malformed or unreadable', () => {
    it('names the file and line of a malformed line, and exits 2', async () => {
      const lines = readFileSync(join(root, gated.traces), 'utf8').trimEnd().split('\n');
      for (const [bad, problem] of [
        ['{"resourceSpans": [', /line=<3> \| not JSON/],
        ['{"spans": []}', /line=<3> \| not an OTLP traces request: no resourceSpans array/],
        [
          '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz","spanId":"0011223344556677","startTimeUnixNano":"1"}]}]}]}',
          /line=<3> \| resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.traceId is not 32 hex digits/,
        ],
        [
          '{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"00112233445566778899aabbccddeeff","spanId":"0011223344556677"}]}]}]}',
          /startTimeUnixNano is not a number of nanoseconds/,
        ],
      ] as const) {
        writeFileSync(join(dir, 'broken.jsonl'), [...lines.slice(0, 2), bad, ...lines.slice(2)].join('\n'));
        const run = await cli('observed', at('broken.jsonl'));
        expect(run.code).toBe(2);
        expect(run.out).toBe('');
        expect(run.err).toContain(`file=<${at('broken.jsonl')}>`);
        expect(run.err).toMatch(problem);
      }
      writeFileSync(join(dir, 'bad-log.jsonl'), '{"verdict":"allow"}\nnot json\n');
      const log = await cli('observed', gated.traces, '--log', at('bad-log.jsonl'));
      expect(log.code).toBe(2);
      expect(log.err).toMatch(/file=<.*bad-log\.jsonl>, line=<2> \| not JSON/);
    });

    it('an unreadable file, a truncated gzip or an unknown format is exit 2', async () => {
      const missing = await cli('observed', 'no/such/traces.jsonl');
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/file=<no\/such\/traces\.jsonl> \| cannot read it: .*ENOENT/);
      const zipped = gzipSync(readFileSync(join(root, gated.traces)));
      writeFileSync(join(dir, 'cut.gz'), zipped.subarray(0, zipped.length - 20));
      const cut = await cli('observed', at('cut.gz'));
      expect(cut.code).toBe(2);
      expect(cut.err).toMatch(/cannot read it.*unexpected end of file/);
      const mermaid = await cli('observed', gated.traces, '--format', 'mermaid');
      expect(mermaid.code).toBe(2);
      expect(mermaid.err).toMatch(
        /not a format of the observed report \| choose text, json, markdown, sarif, junit, github, html/,
      );
    });
  });

  describe('when asked for every format', () => {
    it('writes every format; sarif, junit and html are well-formed', async () => {
      for (const format of ['text', 'json', 'markdown', 'sarif', 'junit', 'github', 'html']) {
        const run = await cli('observed', gated.traces, '--format', format);
        expect(run.code, format).toBe(1);
        expect(run.out.length, format).toBeGreaterThan(0);
      }
      const sarif = JSON.parse((await cli('observed', gated.traces, '--format', 'sarif')).out) as {
        runs: { results: { ruleId: string; level: string }[] }[];
      };
      expect(sarif.runs[0]?.results.map((r) => `${r.ruleId}:${r.level}`)).toEqual(
        Array(4).fill('gate-audit/undecided:error'),
      );
      const junit = (await cli('observed', gated.traces, '--format', 'junit')).out;
      expect(XMLValidator.validate(junit)).toBe(true);
      expect(junit).toMatch(/tests="7" failures="4"/);
      const github = (await cli('observed', gated.traces, '--format', 'github')).out;
      expect(github.split('\n').filter((l) => l.startsWith('::error'))).toHaveLength(4);
      const html = (await cli('observed', gated.traces, '--format', 'html')).out;
      expect(html).toContain("default-src 'none'");
      expect(html).not.toContain('<script');
    });
  });
});

describe('gate-audit observed --reporter / --output-file', () => {
  describe('when given several reporters, or an output file it reads', () => {
    it('writes several reports in one run, and refuses to overwrite a file it reads (nothing written)', async () => {
      const run = await cli(
        'observed',
        gated.traces,
        '--reporter',
        `json=${at('out/r.json')}`,
        '--reporter',
        'markdown',
      );
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/^## gate-audit observed: /);
      expect(run.err).toMatch(/wrote json report to .*r\.json \(4 of 7 tool calls undecided\)/);
      expect(
        ObservedReportSchema.parse(JSON.parse(readFileSync(join(dir, 'out/r.json'), 'utf8'))).summary.undecided,
      ).toBe(4);
      const before = readFileSync(join(root, gated.traces), 'utf8');
      const refused = await cli('observed', gated.traces, '--output-file', gated.traces);
      expect(refused.code).toBe(2);
      expect(refused.err).toMatch(/it is a trace file this run reads/);
      expect(readFileSync(join(root, gated.traces), 'utf8')).toBe(before);
    });
  });
});

describe('gate-audit observed --audit <report.json> (drift)', () => {
  describe('when the audit and the traces disagree', () => {
    it('notes an agent the audit calls gated that ran undecided, and a decision for an agent the audit never saw', async () => {
      // The audit of the app as its repository ships it: the Graph gated at startup.
      const shipped = buildSupportGraph();
      installMultiagent(shipped, { gate: policyGate(policy) });
      writeFileSync(join(dir, 'audit.json'), JSON.stringify(audit(shipped)));
      // The traces of a deployment that forgot installMultiagent.
      const drift = await observedJson(ungated.traces, '--audit', at('audit.json'));
      expect(drift.report.audit).toEqual({ root: 'support' });
      expect(drift.report.notes.map((n) => `${n.kind} ${n.path?.join('/')} ${n.tool}`)).toEqual([
        'gated-undecided support/researcher web_search',
        'gated-undecided support/triage read_file',
        'gated-undecided support/triage shell',
      ]);
      // An older audit, before the researcher node was added: its decided calls are an agent it never saw.
      const older = new Graph({
        id: 'support',
        nodes: [(buildSupportGraph().nodes.get('triage') as AgentNode).agent],
        edges: [],
      });
      installMultiagent(older, { gate: policyGate(policy) });
      writeFileSync(join(dir, 'older.json'), JSON.stringify(audit(older)));
      const unseen = await observedJson(gated.traces, '--audit', at('older.json'));
      expect(unseen.report.notes.map((n) => `${n.kind} ${n.path?.join('/')} ${n.tool}`)).toEqual([
        'unaudited support/researcher web_search',
      ]);
      const text = (await cli('observed', gated.traces, '--audit', at('older.json'))).out;
      expect(text).toContain('Notes (held against the audit of support):');
      expect(text).toMatch(
        /support › researcher had 1 call of "web_search" decided, but the audit of "support" never saw it/,
      );
      // An observed report is not an audit.
      writeFileSync(join(dir, 'observed.json'), (await cli('observed', gated.traces, '--format', 'json')).out);
      const wrong = await cli('observed', gated.traces, '--audit', at('observed.json'));
      expect(wrong.code).toBe(2);
      expect(wrong.err).toMatch(/it is an observed report, not an audit/);
    });
  });
});

describe('gate-audit merge <observed.json...>', () => {
  describe('when given the observed reports of several hosts', () => {
    it('joins the observed reports of two hosts, and refuses to mix them with an audit report', async () => {
      const host = (name: string): string =>
        readFileSync(join(root, gated.traces), 'utf8').replace(/unknown_service:[^"]*/g, name);
      writeFileSync(join(dir, 'a.jsonl'), host('host-a'));
      writeFileSync(join(dir, 'b.jsonl'), host('host-b'));
      writeFileSync(join(dir, 'a.json'), (await cli('observed', at('a.jsonl'), '--format', 'json')).out);
      writeFileSync(join(dir, 'b.json'), (await cli('observed', at('b.jsonl'), '--format', 'json')).out);
      const merged = await cli('merge', at('a.json'), at('b.json'), '--format', 'json');
      expect(merged.code).toBe(1);
      const report = ObservedReportSchema.parse(JSON.parse(merged.out));
      expect(report.hosts).toEqual(['host-a', 'host-b']);
      expect(report.summary).toEqual({ calls: 14, decided: 4, undecided: 8, refused: 2, rows: 7 });
      expect(counts(report)[0]).toBe('helper read_file 2/0/2/0');
      expect(merged.err).toMatch(/2 observed reports, 2 hosts, 8 of 14 tool calls undecided/);

      const shipped = buildSupportGraph();
      installMultiagent(shipped, { gate: policyGate(policy) });
      writeFileSync(join(dir, 'audit-report.json'), JSON.stringify(audit(shipped)));
      for (const order of [
        [at('a.json'), at('audit-report.json')],
        [at('audit-report.json'), at('a.json')],
      ]) {
        const mixed = await cli('merge', ...order, '--format', 'json');
        expect(mixed.code).toBe(2);
        expect(mixed.out).toBe('');
        expect(mixed.err).toContain(
          `report=<${at('audit-report.json')}> | it is an audit report, and ${at('a.json')} is an observed report: merge joins reports of one kind`,
        );
      }
      const ratio = await cli('merge', at('a.json'), at('b.json'), '--min-coverage', '80');
      expect(ratio.code).toBe(2);
      expect(ratio.err).toMatch(/option=<--min-coverage> \| it applies to audit reports/);
    });
  });
});

describe('gate-audit observed <traces>, on hostile values', () => {
  const ATTACKS = [
    'publisher\r✔ forged  row\n\n✔ every tool call decided',
    '\u001b]52;c;cm0gLXJmIH4=\u0007',
    '\u202e\u2066',
    '<script>alert(1)</script>',
    '| ✔ | `x` |',
    '::error::fake',
    '%0A::notice::x',
    ']]></testcase>',
    '"quoted" & \'single\'',
    '**bold** [link](javascript:x)',
  ];

  /** One OTLP line with tool spans whose agent, place, tool and host are hostile. */
  function hostileLine(): string {
    const value = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const spans = ATTACKS.map((attack, i) => ({
      traceId: `${i.toString(16).padStart(2, '0')}${'ab'.repeat(15)}`,
      spanId: `${i.toString(16).padStart(2, '0')}${'cd'.repeat(7)}`,
      name: `execute_tool ${attack}`,
      startTimeUnixNano: String(1_800_000_000_000_000_000n + BigInt(i)),
      attributes: [
        value('gen_ai.operation.name', 'execute_tool'),
        value('gen_ai.tool.name', attack),
        value('gate_audit.agent_id', attack),
        ...(i % 2 === 0 ? [value('gate_audit.path', `root/${encodeURIComponent(attack)}`)] : []),
        ...(i % 3 === 0 ? [value('gate_audit.verdict', 'allow')] : []),
      ],
    }));
    return JSON.stringify({
      resourceSpans: [
        { resource: { attributes: [value('host.name', ATTACKS[0]!)] }, scopeSpans: [{ scope: { name: 'x' }, spans }] },
      ],
    });
  }

  describe('when span and attribute values are hostile', () => {
    it('every format shows them escaped: no control, bidi or invisible character, no forged row, valid markup', async () => {
      writeFileSync(join(dir, 'hostile.jsonl'), `${hostileLine()}\n`);
      const file = at('hostile.jsonl');
      for (const format of ['text', 'json', 'markdown', 'sarif', 'junit', 'github', 'html']) {
        const { code, out } = await cli('observed', file, '--format', format);
        expect(code, format).toBe(1);
        const bad = out.split('\n').find((line) => hasHiddenCharacters(line));
        expect(bad, `${format}: a line with a hidden or control character`).toBeUndefined();
      }
      const text = (await cli('observed', file)).out;
      const lines = text.trimEnd().split('\n');
      expect(lines.slice(0, -1).filter((l) => /^[✘✔] /.test(l))).toHaveLength(ATTACKS.length);
      expect(lines.at(-1)).toMatch(/^✘ \d+ tool calls ran undecided · /);
      expect(text.split('\n').filter((l) => l.startsWith('✔ every tool call decided'))).toEqual([]);
      const json = ObservedReportSchema.parse(JSON.parse((await cli('observed', file, '--format', 'json')).out));
      expect(json.rows.map((r) => r.tool).sort()).toEqual([...ATTACKS].sort());
      expect(json.hosts).toEqual([ATTACKS[0]]);
      expect(XMLValidator.validate((await cli('observed', file, '--format', 'junit')).out)).toBe(true);
      const github = (await cli('observed', file, '--format', 'github')).out.trimEnd().split('\n');
      expect(github.every((line) => /^::(error|warning|notice) title=[^:]*::/.test(line))).toBe(true);
      expect(github).toHaveLength(ATTACKS.filter((_, i) => i % 3 !== 0).length + 1);
      const html = (await cli('observed', file, '--format', 'html')).out;
      expect(html).not.toMatch(/<script>alert/);
      expect(html.match(/<tr class=/g)).toHaveLength(ATTACKS.length);
      const markdown = (await cli('observed', file, '--format', 'markdown')).out;
      expect(markdown.split('\n').filter((l) => /^\| [✘✔] \|/.test(l))).toHaveLength(ATTACKS.length);
    });
  });
});
