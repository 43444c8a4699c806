/**
 * No output can be made to start a CI runner's workflow command (issue 37, item 8): whatever a report holds,
 * no line of any format, of the audit or of the observed report, is read by GitHub's runner as a command, but
 * the `github` format's own one per line. The checker (`runner-commands.ts`) is the runner's rule, written apart
 * from the code under test: a line is a command when it holds `##[` anywhere, or starts with `::` after white
 * space as .NET counts it (the Unicode spaces included); lines end at `\n`, `\r` or `\r\n`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ExitRule } from '../../../src/report/exit.js';
import { FORMAT_NAMES, renderFormat } from '../../../src/report/render/index.js';
import { OBSERVED_FORMAT_NAMES, OBSERVED_RENDERERS } from '../../../src/report/render/observed/index.js';
import { type CoverageReport, CoverageReportSchema } from '../../../src/report/schema.js';
import { CommandNeutralizer, neutralizeCommands, visible } from '../../../src/escape.js';
import { ATTACKS, COMMAND_ATTACKS, hostileObservedReport, hostileReport } from '../../helpers/hostile-report.js';
import { OWN_COMMAND, runnerCommands } from '../../helpers/runner-commands.js';

const RUNS = { numRuns: Number(process.env.HOSTILE_RUNS ?? 60) };

const ALL_ATTACKS = [...COMMAND_ATTACKS, ...ATTACKS];

const exitRule: fc.Arbitrary<ExitRule> = fc.record(
  { minCoverage: fc.integer({ min: 0, max: 100 }), exitZero: fc.boolean() },
  { requiredKeys: [] },
);

/** Checks an output of one format: nothing a runner reads as a command, but `github`'s own lines. */
function expectNoForgedCommand(format: string, output: string): void {
  const commands = runnerCommands(output);
  if (format !== 'github') {
    expect(commands, `${format}: lines a runner reads as commands`).toEqual([]);
    return;
  }
  const lines = output.trimEnd().split('\n');
  expect(output).not.toContain('##[');
  expect(lines.filter((line) => !OWN_COMMAND.test(line))).toEqual([]);
  expect(commands).toHaveLength(lines.length);
}

describe('the runner rule the tests check by', () => {
  describe('when it reads a line as a runner would', () => {
    it('reads `##[` anywhere in a line and `::` after any white space .NET counts, and nothing else', () => {
      expect(runnerCommands('a ##[error]b')).toEqual(['a ##[error]b']);
      expect(runnerCommands('ok\n  ::error::x')).toEqual(['  ::error::x']);
      expect(runnerCommands('ok\r\u3000\u00a0::warning::x')).toEqual(['\u3000\u00a0::warning::x']);
      expect(runnerCommands('x ::error::y\n#[x]\n# #[x]\n:: is not at the start? it is')).toEqual([
        ':: is not at the start? it is',
      ]);
      expect(runnerCommands('##\\x5b error]\n\\x3a:error::x\n&#91;')).toEqual([]);
    });
  });
  describe('when an output is printed raw', () => {
    it('catches the lines an output printed raw would give a runner', () => {
      const raw = ['research\n::error::forged', 'src/##[stop-commands]x.ts', '\u2003::notice::x'].join('\n');
      expect(runnerCommands(raw)).toEqual(['::error::forged', 'src/##[stop-commands]x.ts', '\u2003::notice::x']);
      // Escaping the controls and spaces alone leaves the older syntax, read anywhere in the one line left.
      expect(runnerCommands(visible(raw))).toHaveLength(1);
      expect(runnerCommands(neutralizeCommands(visible(raw), 'text'))).toEqual([]);
    });
  });
});

describe('the final pass (CommandNeutralizer)', () => {
  describe('when it rewrites a line', () => {
    it("writes the `[` of `##[` and a leading `::`'s first `:` in each syntax, and leaves the rest as it is", () => {
      const text = '##[error]a\n \u3000::warning::b\nc ::d ##x [e';
      expect(neutralizeCommands(text, 'text')).toBe('##\\x5berror]a\n \u3000\\x3a:warning::b\nc ::d ##x [e');
      expect(neutralizeCommands(text, 'json')).toBe('##\\u005berror]a\n \u3000\\u003a:warning::b\nc ::d ##x [e');
      expect(neutralizeCommands(text, 'xml')).toBe('##&#91;error]a\n \u3000&#58;:warning::b\nc ::d ##x [e');
      expect(neutralizeCommands(text, 'backslash')).toBe('##\\[error]a\n \u3000\\::warning::b\nc ::d ##x [e');
      expect(neutralizeCommands('::error::x', 'text', true)).toBe('::error::x');
      expect(neutralizeCommands(':a\n:', 'text')).toBe(':a\n:');
    });
  });
  describe('when the output comes in pieces', () => {
    it('holds across pieces: the pieces of an output, however cut, give no command', () => {
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...ALL_ATTACKS, '#', ':', '\n', ' ', '\u3000', 'x'), { maxLength: 30 }),
          fc.array(fc.nat(), { maxLength: 6 }),
          (parts, cuts) => {
            const text = parts.join('');
            const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
            const pass = new CommandNeutralizer('text');
            let out = '';
            let from = 0;
            for (const cut of [...at, text.length]) {
              out += pass.push(text.slice(from, cut), cut === text.length);
              from = cut;
            }
            expect(runnerCommands(out)).toEqual([]);
            // Only the two characters change: undoing their escapes gives the text back.
            expect(out.replaceAll('\\x5b', '[').replaceAll('\\x3a', ':')).toBe(text);
          },
        ),
        { numRuns: 500 },
      );
    });
  });
});

describe('every format of the audit report', () => {
  describe('when the data holds workflow commands (property)', () => {
    for (const format of FORMAT_NAMES) {
      const runs = format === 'html' ? { numRuns: Math.min(RUNS.numRuns, 15) } : RUNS;
      it(`${format}: no line a runner reads as a command${format === 'github' ? ' but its own' : ''}`, async () => {
        await fc.assert(
          fc.asyncProperty(
            hostileReport({ attacks: ALL_ATTACKS, notes: true, maxNodes: 8 }),
            exitRule,
            fc.boolean(),
            async (report, rule, quiet) => {
              const output = await renderFormat(format, report, { exitRule: rule, quiet, version: '0.0.0' });
              expectNoForgedCommand(format, output);
              if (format === 'json') expect(CoverageReportSchema.parse(JSON.parse(output))).toEqual(report);
            },
          ),
          runs,
        );
      }, 120_000);
    }

    it('keeps the data: the JSON and the HTML page parse back to the very report, `##[` and all', async () => {
      const report: CoverageReport = CoverageReportSchema.parse({
        schemaVersion: 2,
        mode: 'audit',
        root: { id: '##[error]root', kind: 'graph' },
        nodes: [
          {
            path: ['##[error]root'],
            id: '##[error]root',
            kind: 'graph',
            status: 'ungated',
            reason: '\n::error::x',
            tools: [],
            toolsUnknownUntilInit: false,
            warnings: [],
          },
        ],
        edges: [],
        summary: {
          total: 1,
          gated: 0,
          attested: 0,
          accepted: 0,
          ungated: 1,
          ungateable: 0,
          blocked: 0,
          toolRunning: 0,
          coverage: 1,
        },
        refusals: [],
        sources: [],
      });
      const json = await renderFormat('json', report, {});
      expect(json).toContain('##\\u005berror]root');
      expect(JSON.parse(json)).toEqual(report);
      const page = await renderFormat('html', report, {});
      const data = /<script type="application\/json" id="gate-audit-report">([^<]*)<\/script>/.exec(page)?.[1];
      expect(JSON.parse(data ?? 'null')).toEqual(report);
    });
  });
});

describe('every format of the observed report', () => {
  describe('when the data holds workflow commands (property)', () => {
    for (const format of OBSERVED_FORMAT_NAMES) {
      it(`${format}: no line a runner reads as a command${format === 'github' ? ' but its own' : ''}`, () => {
        fc.assert(
          fc.property(hostileObservedReport(ALL_ATTACKS), (report) => {
            expectNoForgedCommand(format, OBSERVED_RENDERERS[format](report, { version: '0.0.0' }));
          }),
          RUNS,
        );
      });
    }
  });
});
