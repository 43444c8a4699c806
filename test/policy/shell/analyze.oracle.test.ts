/**
 * Bash is the oracle, in the test suite: every corpus line, every generated class line and a seeded sample
 * of the grammar run in real bash (and dash, for the `shell` tool) in throwaway roots, and what ran and what
 * was written is held against the analysis (see oracle-check.ts for the rule). An under-report is a failing
 * test; the lines read-only-shell refuses although bash shows them harmless are the over-report table
 * (over-reports.json, shown in the README), which must match what this run finds.
 *
 * A machine that cannot run the oracle fails here, unless `GATE_AUDIT_ORACLE=off` says to skip it (the
 * suite's closing line says so, and CI refuses the setting).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeShell, basename, type ShellPart } from '../../../src/policy/shell/analyze.js';
import { CORPUS } from './corpus.js';
import { foundLines } from './fuzz.js';
import { classLines, type GeneratedLine, grammarLines } from './generated.js';
import { type Finding, judge, overReported } from './oracle-check.js';
import { type Observation, Oracle, oracleOff, oracleSupport, shellVersions } from './oracle.js';

/** The seed of the grammar sample run in every test run (`npm run fuzz:shell` runs others). */
const GRAMMAR_SEED = 35;
const GRAMMAR_COUNT = 300;

const RECORD = new URL('./over-reports.json', import.meta.url);

/** The over-report table as checked in: the shells it was found with, and the lines. */
interface OverReports {
  readonly shells: { readonly bash: string; readonly dash: string };
  readonly lines: readonly { readonly line: string; readonly dialect: 'bash' | 'sh'; readonly family: string }[];
}

const LINES: readonly GeneratedLine[] = [
  ...CORPUS.map((c) => ({ line: c.line, dialect: c.dialect ?? ('bash' as const), family: c.family })),
  ...classLines(),
  ...grammarLines(GRAMMAR_SEED, GRAMMAR_COUNT),
  ...foundLines(),
];

const support = oracleSupport();

/**
 * What bash did with each line, from this machine's cache where the same harness, the same shells and the same
 * stubs already ran the line (CI runs the suite twice, once per Node version; bash does not change between
 * them). The cache lives in `node_modules/.cache`, so a fresh clone starts without it;
 * `GATE_AUDIT_ORACLE_FRESH=1` ignores it.
 */
async function observeCached(
  oracle: Oracle,
  stubs: ReadonlySet<string>,
  lines: readonly GeneratedLine[],
): Promise<Observation[]> {
  const harness = readFileSync(new URL('./oracle.ts', import.meta.url), 'utf8');
  const key = createHash('sha256')
    .update(JSON.stringify([harness, shellVersions(), [...stubs].sort()]))
    .digest('hex')
    .slice(0, 32);
  const file = join(CACHE, `${key}.json`);
  let cached: Record<string, Observation> = {};
  if (process.env.GATE_AUDIT_ORACLE_FRESH !== '1') {
    try {
      cached = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Observation>;
    } catch {
      cached = {};
    }
  }
  const id = (l: GeneratedLine): string => `${l.dialect}\0${l.line}`;
  const missing = lines.filter((l) => cached[id(l)] === undefined);
  const observed = await oracle.observeAll(missing.map((l) => ({ line: l.line, mode: l.dialect })));
  const fresh = new Map<string, Observation>();
  missing.forEach((l, i) => {
    const observation = observed[i];
    if (observation === undefined) return;
    fresh.set(id(l), observation);
    // A line that ran out of time is not kept: the next run tries it again.
    if (!observation.timedOut) cached[id(l)] = observation;
  });
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(file, JSON.stringify(cached));
  return lines.map((l) => fresh.get(id(l)) ?? cached[id(l)] ?? { runs: [], writes: [], timedOut: true });
}

const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/gate-audit-oracle/', import.meta.url));

describe('analyzeShell against bash itself (the oracle)', () => {
  describe('when the machine is checked for what the oracle needs', () => {
    it.skipIf(oracleOff())('has root or a user namespace, strace, bash and dash (or GATE_AUDIT_ORACLE=off)', () => {
      expect(support.ok ? 'ok' : support.why).toBe('ok');
    });
  });

  describe.skipIf(!support.ok || oracleOff())('when every line runs in bash itself', () => {
    let oracle: Oracle;
    let seen: Observation[] = [];
    const analyses: ShellPart[][] = [];
    beforeAll(async () => {
      const stubs = new Set(['ls', 'cat', 'rm', 'touch', 'git', 'grep', 'sudo', 'printf']);
      for (const entry of LINES) {
        const parts = [...analyzeShell(entry.line, entry.dialect)];
        analyses.push(parts);
        for (const part of parts) if (part.program !== undefined) stubs.add(basename(part.program));
      }
      oracle = new Oracle({ stubs });
      seen = await observeCached(oracle, stubs, LINES);
    }, 600_000);
    afterAll(() => oracle?.dispose());

    it('checks at least 1,500 distinct lines', () => {
      expect(new Set(LINES.map((l) => `${l.dialect}\0${l.line}`)).size).toBeGreaterThanOrEqual(1500);
    });

    it('finds every program bash runs and every file it writes, and no preset allows more than it lists', () => {
      const findings: Finding[] = LINES.flatMap((entry, i) => {
        const observed = seen[i];
        return observed === undefined ? [] : judge(entry.line, entry.dialect, observed, analyses[i]);
      });
      expect(findings.map((f) => `${f.kind}: ${JSON.stringify(f.line)} (${f.dialect}): ${f.detail}`)).toEqual([]);
    });

    it('sees programs run in most lines (the stubs and the trace work)', () => {
      const ran = seen.filter((s) => s.runs.length > 0).length;
      expect(ran).toBeGreaterThan(LINES.length * 0.8);
      expect(seen.some((s) => s.writes.length > 0)).toBe(true);
    });

    it('finds the over-reports recorded in over-reports.json (the README table), with the shells recorded there', () => {
      const found = CORPUS.flatMap((entry, i) => {
        const observed = seen[i];
        const dialect: 'bash' | 'sh' = entry.dialect ?? 'bash';
        return observed !== undefined && overReported(entry.line, dialect, observed, analyses[i])
          ? [{ line: entry.line, dialect, family: entry.family }]
          : [];
      });
      const current: OverReports = { shells: shellVersions(), lines: found };
      if (process.env.GATE_AUDIT_ORACLE_UPDATE === '1') writeFileSync(RECORD, `${JSON.stringify(current, null, 2)}\n`);
      const recorded = JSON.parse(readFileSync(RECORD, 'utf8')) as OverReports;
      expect(
        current.shells,
        `the corpus was checked against bash ${recorded.shells.bash} and dash ${recorded.shells.dash}; re-run with GATE_AUDIT_ORACLE_UPDATE=1 and review the differences`,
      ).toEqual(recorded.shells);
      expect(current.lines).toEqual(recorded.lines);
    });
  });

  describe.skipIf(!support.ok || oracleOff())('when the oracle is fed lines it must catch (it can fail)', () => {
    let oracle: Oracle;
    beforeAll(() => {
      oracle = new Oracle({ stubs: ['ls', 'rm', 'touch'] });
    });
    afterAll(() => oracle?.dispose());

    it('catches a part a reading would miss, a write it would miss, and a line still running', async () => {
      const [after, write, loop, hidden] = await oracle.observeAll([
        { line: 'rm >/dev/null -rf /etc', mode: 'bash' },
        { line: 'echo hi > /work/../work/x', mode: 'sh' },
        { line: 'while :; do :; done', mode: 'bash' },
        { line: "STUBLOG=/dev/null BASH_ENV= rm -rf /; exec 9>&-; ls ''#;touch p", mode: 'bash' },
      ]);
      expect(after?.runs).toEqual([{ program: 'rm', args: ['-rf', '/etc'] }]);
      expect(write?.writes).toEqual(['/work/x']);
      expect(loop?.timedOut).toBe(true);
      // The record is not the line's to change: nothing it sets or closes hides what ran.
      expect(hidden?.runs.map((r) => [r.program, ...r.args].join(' '))).toEqual(['rm -rf /', 'ls #', 'touch p']);
      // A reading that takes the `#` for a comment misses `touch p`: the rule reports it.
      const misread: ShellPart = {
        program: 'ls',
        args: [],
        moreArgs: false,
        assigns: [],
        writes: [],
        reads: [],
        cwdUnknown: false,
        opaque: undefined,
      };
      expect(
        judge("ls ''#;touch p", 'bash', hidden ?? { runs: [], writes: [], timedOut: false }, [misread]).map(
          (f) => f.kind,
        ),
      ).toContain('program');
      expect(
        judge('echo hi > x', 'sh', write ?? { runs: [], writes: [], timedOut: false }, [misread]).map((f) => f.kind),
      ).toEqual(['write']);
    });

    it('logs bash builtins that run nothing else (echo, printf, test) through stubs, and runs wrappers for real', async () => {
      const [builtins, wrapped] = await oracle.observeAll([
        { line: 'echo a; printf %s b; test -f a; [ x ]; true', mode: 'bash' },
        { line: 'echo a | xargs rm; env nice timeout 1 rm -f', mode: 'bash' },
      ]);
      expect(builtins?.runs.map((r) => r.program)).toEqual(['echo', 'printf', 'test', '[', 'true']);
      expect(wrapped?.runs.map((r) => [r.program, ...r.args].join(' '))).toEqual(
        expect.arrayContaining([
          'xargs rm',
          'rm a',
          'env nice timeout 1 rm -f',
          'nice timeout 1 rm -f',
          'timeout 1 rm -f',
          'rm -f',
        ]),
      );
    });
  });
});
