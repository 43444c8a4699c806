/**
 * `npm run fuzz:shell -- [--seconds N] [--mode bash|sh|both] [--seed S]`: lines from the seeded grammar
 * generator and mutations of the corpus's lines, each run in real bash (or dash) through the oracle and
 * held against the analysis, for a given time. Each disagreement (a program run that the analysis did not
 * find, a preset allowing a line that ran more than it lists, a line still running after 2 s) is written to
 * fuzz-found.json, which the test suite runs as corpus lines from then on; the counts per mode go to
 * fuzz-counts.json (the README states them). Fuzzed lines share a root in batches, so writes are checked by
 * the test suite's lines, not here.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { analyzeShell, basename } from '../../../src/policy/shell/analyze.js';
import { CORPUS } from './corpus.js';
import { classLines, grammarLines, mutate, random } from './generated.js';
import { type Finding, judge } from './oracle-check.js';
import { type Mode, Oracle, oracleSupport, shellVersions } from './oracle.js';

interface FoundLine {
  readonly line: string;
  readonly dialect: Mode;
  readonly family: string;
  readonly finding: string;
}

interface Counts {
  readonly shells: { readonly bash: string; readonly dash: string };
  readonly commit: string;
  readonly modes: Record<Mode, { lines: number; disagreements: number; timeouts: number; seconds: number }>;
}

const FOUND = new URL('./fuzz-found.json', import.meta.url);
const COUNTS = new URL('./fuzz-counts.json', import.meta.url);

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

/** The lines found so far (the suite runs them). */
export function foundLines(): FoundLine[] {
  try {
    return JSON.parse(readFileSync(FOUND, 'utf8')) as FoundLine[];
  } catch {
    return [];
  }
}

function commitOf(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const support = oracleSupport();
  if (!support.ok) throw new Error(`the bash oracle cannot run here: ${support.why}`);
  const seconds = Number(option('seconds', '60'));
  const modes: Mode[] = option('mode', 'both') === 'both' ? ['bash', 'sh'] : [option('mode', 'bash') as Mode];
  const seed = Number(option('seed', String(Date.now() % 1_000_000)));
  const next = random(seed);
  const seeds = [...CORPUS.map((c) => c.line), ...classLines().map((c) => c.line)];
  const stubs = new Set(['ls', 'cat', 'rm', 'touch', 'git', 'grep', 'find', 'sudo', 'xargs', 'printf', 'head', 'sh']);
  for (const line of seeds)
    for (const part of analyzeShell(line, 'bash')) if (part.program !== undefined) stubs.add(basename(part.program));
  const oracle = new Oracle({ stubs });
  const found = foundLines();
  const known = new Set(found.map((f) => `${f.dialect}\0${f.line}`));
  const previous = (() => {
    try {
      return JSON.parse(readFileSync(COUNTS, 'utf8')) as Counts;
    } catch {
      return undefined;
    }
  })();
  const counts: Counts = {
    shells: shellVersions(),
    commit: commitOf(),
    modes: {
      bash: { lines: 0, disagreements: 0, timeouts: 0, seconds: 0, ...previous?.modes.bash },
      sh: { lines: 0, disagreements: 0, timeouts: 0, seconds: 0, ...previous?.modes.sh },
    },
  };
  let batchSeed = seed;
  try {
    for (const mode of modes) {
      const end = Date.now() + (seconds * 1000) / modes.length;
      const started = Date.now();
      const worker = async (): Promise<void> => {
        while (Date.now() < end) {
          batchSeed += 1;
          const lines = grammarLines(batchSeed, 50)
            .map((l) => l.line)
            .concat(Array.from({ length: 50 }, () => mutate(seeds[Math.floor(next() * seeds.length)] ?? 'ls', next)))
            .filter((l) => !l.includes('\0'))
            .map((line) => ({ line, mode }));
          let seen: Awaited<ReturnType<Oracle['observeBatch']>>;
          try {
            seen = await oracle.observeBatch(lines);
          } catch (error) {
            console.log(`the harness failed on a batch: ${error instanceof Error ? error.message : String(error)}`);
            continue;
          }
          lines.forEach((entry, i) => {
            const observed = seen[i];
            if (observed === undefined) return;
            const findings: Finding[] = judge(entry.line, mode, { ...observed, writes: [] });
            counts.modes[mode].lines += 1;
            // A line still running after 2 s (a loop, a program waiting on its input) says nothing either way.
            if (observed.timedOut) {
              counts.modes[mode].timeouts += 1;
              return;
            }
            if (findings.length === 0) return;
            counts.modes[mode].disagreements += 1;
            const key = `${mode}\0${entry.line}`;
            if (known.has(key)) return;
            known.add(key);
            const finding = findings.map((f) => `${f.kind}: ${f.detail}`).join('; ');
            found.push({ line: entry.line, dialect: mode, family: 'fuzz', finding });
            console.log(`${mode}: ${JSON.stringify(entry.line)}: ${finding}`);
          });
        }
      };
      await Promise.all([worker(), worker()]);
      counts.modes[mode].seconds += Math.round((Date.now() - started) / 1000);
      console.log(
        `${mode}: ${counts.modes[mode].lines} lines fuzzed in total, ${counts.modes[mode].disagreements} disagreements`,
      );
    }
  } finally {
    oracle.dispose();
    writeFileSync(FOUND, `${JSON.stringify(found, null, 2)}\n`);
    writeFileSync(COUNTS, `${JSON.stringify(counts, null, 2)}\n`);
  }
}

if (process.argv[1]?.endsWith('fuzz.ts')) await main();
