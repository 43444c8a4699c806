/**
 * read-only-shell against OpenAI Codex's command-safety cases (`codex-cases.ts`): the README's comparison only holds
 * while the verdicts recorded there are the ones the shipped preset gives, so a preset change that moves a case fails
 * here until the data, its reasons and `docs/codex-comparison.md` are updated. The programs read-only-shell adopted
 * from Codex's lists, and those it left out, are checked the same way.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Decision, Gate, ToolCallRequest } from '../../../src/index.js';
import { policyGate } from '../../../src/index.js';
import {
  agreement,
  CASES,
  type CodexCase,
  type Counts,
  lineOf,
  PROGRAMS,
  SKIPPED,
  SOURCES,
  tally,
  type Verdict,
} from './codex-cases.js';

function request(command: string): ToolCallRequest {
  return {
    toolUseId: 't',
    toolName: 'bash',
    input: { mode: 'execute', command },
    agentId: 'a',
    agentName: 'a',
    path: ['app', 'a'],
    paths: [['app', 'a']],
    toolKind: 'function',
  };
}

function verdictOf(gate: Gate, line: string): Verdict {
  return (gate.decide(request(line)) as Decision).verdict;
}

/** The cases whose recorded verdict is not the one `gate` gives now, each as a line saying both. */
function drifted(gate: Gate, cases: readonly CodexCase[]): string[] {
  return cases.flatMap((entry) => {
    const now = verdictOf(gate, lineOf(entry.argv));
    return now === entry.ours ? [] : [`${JSON.stringify(lineOf(entry.argv))}: recorded ${entry.ours}, now ${now}`];
  });
}

const readOnly = policyGate({ version: 1, extends: ['gate-audit:read-only-shell'] });
const docs = readFileSync(new URL('../../../docs/codex-comparison.md', import.meta.url), 'utf8');

/** A line as the docs' tables show it: in backquotes, with `|` escaped. */
function cell(line: string): string {
  return `\`${line.replaceAll('|', '\\|')}\``;
}

describe("read-only-shell against Codex's command-safety cases", () => {
  describe('when the case data is read', () => {
    it('names each Codex source at a commit, and the tests it leaves out', () => {
      for (const source of Object.values(SOURCES)) expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(SKIPPED.every((s) => /windows|powershell/i.test(s.test))).toBe(true);
    });

    it('turns an argv into the line both tools run: the script of `bash -lc`, else the words quoted', () => {
      expect(lineOf(['bash', '-lc', 'git status'])).toBe('git status');
      expect(lineOf(['zsh', '-lc', 'ls'])).toBe('ls');
      expect(lineOf(['bash', '-lc', 'git', 'status'])).toBe("'bash' '-lc' 'git' 'status'");
      expect(lineOf(['find', '.', '-name', "it's"])).toBe(`'find' '.' '-name' 'it'"'"'s'`);
    });

    it('holds each argv once per source', () => {
      const keys = CASES.map((entry) => `${entry.source} ${JSON.stringify(entry.argv)}`);
      expect(new Set(keys).size).toBe(keys.length);
    });
  });

  describe('when the shipped preset judges each case', () => {
    it('records for every case the verdict the shipped preset gives now', () => {
      expect(drifted(readOnly, CASES)).toEqual([]);
    });

    it('sees a changed verdict (the check can fail)', () => {
      const stricter = policyGate({
        version: 1,
        extends: ['gate-audit:read-only-shell'],
        rules: [
          { id: 'no-ls', tools: ['bash'], when: [{ arg: 'command', shell: { program: ['ls'] } }], verdict: 'ask' },
        ],
      });
      expect(drifted(stricter, CASES)).toContain(`"ls": recorded allow, now ask`);
    });

    it('gives a reason for every disagreement, and none where the two agree', () => {
      const wrong = CASES.filter((entry) => {
        const agrees = agreement(entry.codex, entry.ours) === 'agree';
        return agrees ? entry.reason !== undefined : (entry.reason ?? '').trim() === '';
      });
      expect(wrong.map((entry) => lineOf(entry.argv))).toEqual([]);
    });
  });

  describe('when the docs state the comparison', () => {
    it('counts agreements and both kinds of disagreement, as the docs state them', () => {
      const counts = tally(CASES);
      console.info(
        `codex comparison: ${counts.cases} cases, ${counts.agree} agree, ${counts.weRefuse} we refuse what Codex allows, ${counts.weAllow} we allow what Codex refuses`,
      );
      expect(counts.agree + counts.weRefuse + counts.weAllow).toBe(counts.cases);
      const row = (name: string, n: Counts): string =>
        `| ${name} | ${n.cases} | ${n.agree} | ${n.weRefuse} | ${n.weAllow} |`;
      expect(docs).toContain(row('all', counts));
      for (const source of Object.keys(SOURCES)) {
        expect(docs).toContain(row(`\`${source}\``, tally(CASES.filter((entry) => entry.source === source))));
      }
    });

    it('lists every disagreement in the docs, and each source at its commit', () => {
      const missing = CASES.filter(
        (entry) => agreement(entry.codex, entry.ours) !== 'agree' && !docs.includes(cell(lineOf(entry.argv))),
      );
      expect(missing.map((entry) => lineOf(entry.argv))).toEqual([]);
      for (const source of Object.values(SOURCES)) expect(docs).toContain(source.commit);
    });
  });

  describe("when a program of Codex's lists is adopted or left out", () => {
    it.each(PROGRAMS.map((p) => [p.program, p] as const))('%s: allowed, refused and asked lines', (_, entry) => {
      const got = [
        ...entry.allowed.map((a) => (typeof a === 'string' ? a : a.line)).map((l) => [l, 'allow'] as const),
        ...entry.refused.map((r) => [r.line, 'ask'] as const),
        ...(entry.asked ?? []).map((l) => [l, 'ask'] as const),
      ].flatMap(([line, expected]) => {
        const now = verdictOf(readOnly, line);
        return now === expected ? [] : [`${JSON.stringify(line)}: expected ${expected}, now ${now}`];
      });
      expect(got).toEqual([]);
      if (entry.asked !== undefined) expect(entry.reason ?? '').not.toBe('');
    });

    it('lists each program in the docs, on one row with the options refused for it', () => {
      const rows = docs.split('\n');
      const missing = PROGRAMS.flatMap((entry) => {
        const row = rows.find((r) => r.startsWith(`| \`${entry.program}\` |`));
        if (row === undefined) return [`${entry.program}: no row`];
        return entry.refused
          .filter((r) => !row.includes(`\`${r.option}\``))
          .map((r) => `${entry.program}: ${r.option}`);
      });
      expect(missing).toEqual([]);
    });
  });
});
