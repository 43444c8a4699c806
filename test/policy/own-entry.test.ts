/**
 * Names that come from the judged input (a command word, a long option, a tool name) are looked up in the
 * shell analysis' and the policy's name tables by own entry only: `constructor`, `toString` or `__proto__` are
 * unknown names, not `Object.prototype`'s members. Read as members they hid a command: `timeout --toString rm`
 * read as `timeout` alone, and `constructor rm -rf /` as a builtin that runs code.
 */
import { Graph } from '@strands-agents/sdk/multiagent';
import { describe, expect, it } from 'vitest';
import { checkStrandsTree } from '../../src/policy/check-strands.js';
import { parsePolicy } from '../../src/policy/load.js';
import { ownEntry } from '../../src/policy/own-entry.js';
import { analyzeShell } from '../../src/policy/shell/analyze.js';
import { recordingTool, say, scriptedAgent } from '../helpers/sdk.js';

const INHERITED = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

describe('ownEntry', () => {
  describe('when a table is looked up', () => {
    it("answers a table's own entries and nothing it inherits", () => {
      const table: Readonly<Record<string, number>> = { a: 1, zero: 0 };
      expect(ownEntry(table, 'a')).toBe(1);
      expect(ownEntry(table, 'zero')).toBe(0);
      expect(ownEntry(table, 'b')).toBeUndefined();
      for (const name of INHERITED) expect(ownEntry(table, name)).toBeUndefined();
    });
  });

  describe('when the shell analysis meets an inherited name', () => {
    it('reads an inherited name as a command word like any unknown program', () => {
      for (const name of INHERITED) {
        const parts = analyzeShell(`${name} rm -rf /`, 'bash');
        expect(parts).toEqual([expect.objectContaining({ program: name, args: ['rm', '-rf', '/'] })]);
        expect(parts[0]?.opaque).toBeUndefined();
      }
    });

    it('takes an inherited name as an unknown option of a wrapper or a shell: opaque, never a hidden command', () => {
      for (const name of INHERITED) {
        for (const line of [`timeout --${name} rm -rf /`, `sudo --${name} rm -rf /`, `bash --${name} -c 'rm -rf /'`]) {
          const parts = analyzeShell(line, 'bash');
          expect(parts[0]?.opaque?.kind, line).toBe('code');
          expect(parts[0]?.opaque?.reason, line).toContain(`--${name}`);
        }
      }
    });

    it('still reads the known names of each table', () => {
      expect(analyzeShell('timeout --signal KILL 5 rm -rf /', 'bash').map((p) => p.program)).toEqual(['timeout', 'rm']);
      expect(analyzeShell('source x.sh', 'bash')[0]?.opaque?.kind).toBe('code');
      expect(analyzeShell('cd /tmp', 'bash')[0]?.opaque?.kind).toBe('state');
    });
  });

  describe('when check-policy meets a tool named like an inherited member', () => {
    it('does not call it a vended tool', () => {
      const agent = scriptedAgent('a', [say('x')], { tools: [recordingTool('constructor'), recordingTool('bash')] });
      const graph = new Graph({ id: 'g', nodes: [agent], edges: [] });
      const [verdicts] = checkStrandsTree(parsePolicy({ version: 1, default: 'deny' }), graph);
      const byName = new Map(verdicts?.tools.map((t) => [t.tool, t]));
      expect(byName.get('constructor')).not.toHaveProperty('vended');
      expect(byName.get('bash')).toHaveProperty('vended');
    });
  });
});
