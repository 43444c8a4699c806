/**
 * The shell corpus's expected verdicts: each line under a deny policy and under the read-only allowlist.
 * What bash itself runs for each line is checked in analyze.oracle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { Decision, Gate, ToolCallRequest } from '../../../src/index.js';
import { policyGate } from '../../../src/index.js';
import { CORPUS, type CorpusLine } from './corpus.js';

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
  describe('when its lines are read', () => {
    it('holds at least 300 lines, each line once', () => {
      expect(CORPUS.length).toBeGreaterThanOrEqual(300);
      expect(new Set(CORPUS.map((c) => `${c.dialect ?? 'bash'} ${c.line}`)).size).toBe(CORPUS.length);
    });
  });

  describe('when each line is judged under the deny policy and read-only-shell', () => {
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
});
