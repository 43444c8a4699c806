/**
 * The shell corpus, judged two ways: each line's verdict under a deny policy and under the read-only
 * allowlist, and each line's parts against what bash itself runs (stub programs in a throwaway root record
 * every program run and its arguments; every run must be a part the analysis found, with the same words
 * when it knew them all).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision, Gate, ToolCallRequest } from '../../../src/index.js';
import { policyGate } from '../../../src/index.js';
import { analyzeShell, basename, type ShellPart } from '../../../src/policy/shell/analyze.js';
import { CORPUS, type CorpusLine } from './corpus.js';
import { available, Oracle } from './oracle.js';

function request(toolName: string, command: string): ToolCallRequest {
  return {
    toolUseId: 't',
    toolName,
    input: { mode: 'execute', command },
    agentId: 'a',
    agentName: 'a',
    path: ['app', 'a'],
    paths: [['app', 'a']],
    toolKind: 'function',
  };
}

const denyPolicy = policyGate({ version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' });
const readOnly = policyGate({ version: 1, extends: ['gate-audit:read-only-shell'] });

function verdict(gate: Gate, entry: CorpusLine): string {
  return (gate.decide(request(entry.dialect === 'sh' ? 'shell' : 'bash', entry.line)) as Decision).verdict;
}

describe('the shell corpus', () => {
  it('holds at least 300 lines, each line once', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    expect(new Set(CORPUS.map((c) => `${c.dialect ?? 'bash'} ${c.line}`)).size).toBe(CORPUS.length);
  });

  it('gets the expected verdict for every line under the deny policy and under read-only-shell', () => {
    const wrong = CORPUS.flatMap((entry) => {
      const got = { deny: verdict(denyPolicy, entry), readOnly: verdict(readOnly, entry) };
      return got.deny === entry.deny && got.readOnly === entry.readOnly
        ? []
        : [
            `${JSON.stringify(entry.line)} (${entry.family}): deny policy ${got.deny} (expected ${entry.deny}), read-only ${got.readOnly} (expected ${entry.readOnly})`,
          ];
    });
    expect(wrong).toEqual([]);
  });
});

describe.skipIf(!available())('the shell corpus against bash itself', () => {
  let oracle: Oracle;
  const analyses = new Map<CorpusLine, readonly ShellPart[]>();
  beforeAll(() => {
    const programs = new Set<string>(['ls', 'cat', 'rm', 'echo', 'git', 'sudo', 'env']);
    for (const entry of CORPUS) {
      const parts = analyzeShell(entry.line, entry.dialect ?? 'bash');
      analyses.set(entry, parts);
      for (const part of parts) if (part.program !== undefined) programs.add(basename(part.program));
    }
    oracle = new Oracle(programs);
  });
  afterAll(() => oracle.dispose());

  it('finds every program bash runs, with its exact words when it knows them', { timeout: 180_000 }, () => {
    const missed: string[] = [];
    let runs = 0;
    const observed = oracle.runAll(CORPUS.map((entry) => ({ line: entry.line, dialect: entry.dialect ?? 'bash' })));
    CORPUS.forEach((entry, index) => {
      const parts = analyses.get(entry) ?? [];
      if (parts.some((p) => p.opaque?.kind === 'code')) return; // anything may run; the verdict already assumes it
      for (const run of observed[index] ?? []) {
        runs += 1;
        const explained = parts.some(
          (p) =>
            p.program !== undefined &&
            basename(p.program) === run.program &&
            (p.moreArgs ||
              p.args.some((a) => a === undefined) ||
              (p.args.length === run.args.length && p.args.every((a, i) => a === run.args[i]))),
        );
        if (!explained)
          missed.push(`${JSON.stringify(entry.line)}: bash ran ${run.program} ${JSON.stringify(run.args)}`);
      }
    });
    expect(missed).toEqual([]);
    expect(runs).toBeGreaterThan(200);
  });

  it('sees the oracle catch a part the analysis would miss (the check can fail)', () => {
    const runs = oracle.run('rm >/dev/null -rf /etc', 'bash');
    expect(runs).toEqual([{ program: 'rm', args: ['-rf', '/etc'] }]);
    // A reading that attaches the words after a redirection to it would see a bare `rm`: not the same words.
    const bare: ShellPart = {
      program: 'rm',
      args: [],
      moreArgs: false,
      assigns: [],
      writes: [],
      reads: [],
      cwdUnknown: false,
      opaque: undefined,
    };
    expect(bare.args).not.toEqual(runs[0]?.args);
  });
});
