/**
 * Presets: shipped policy files pulled with `extends`, that only add rules, loosened with `disable`, whose
 * "for the rest" is their `default` unless the policy sets its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Decision, PolicyError, type PolicyInput, policyGate } from '../../src/index.js';
import { parsePolicy } from '../../src/policy/load.js';
import { PRESETS } from '../../src/policy/schema.js';
import { root } from '../helpers/cli.js';
import { request } from '../helpers/conditions.js';

function decide(policy: Parameters<typeof policyGate>[0], toolName: string, input: unknown): Decision {
  return policyGate(policy).decide(request(input, toolName)) as Decision;
}

describe('presets (loadPolicy)', () => {
  describe('when shipped in the package', () => {
    it('ship as policy files in the package', () => {
      const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
      expect(pkg.files).toContain('presets');
      for (const name of PRESETS) {
        const compiled = parsePolicy({ version: 1, extends: [name] });
        const prefix = `${name.slice('gate-audit:'.length)}:`;
        expect(compiled.policy.rules.length).toBeGreaterThan(3);
        for (const rule of compiled.policy.rules) {
          expect(rule.id.startsWith(prefix)).toBe(true);
          expect(compiled.origins.get(rule.id)).toBe(name);
        }
      }
    });
  });

  describe('when a policy names them', () => {
    it("come first and only add rules; the policy's own rules follow", () => {
      const compiled = parsePolicy({
        version: 1,
        extends: ['gate-audit:read-only-shell'],
        rules: [{ id: 'mine', tools: ['x'], verdict: 'allow' }],
      });
      expect(compiled.policy.rules.at(-1)?.id).toBe('mine');
      expect(compiled.origins.has('mine')).toBe(false);
    });

    it("give their default for the rest, and the policy's own default wins", () => {
      expect(parsePolicy({ version: 1, extends: ['gate-audit:read-only-shell'] }).policy.default).toBe('ask');
      expect(parsePolicy({ version: 1, extends: ['gate-audit:vended-tools'] }).policy.default).toBe('deny');
      expect(parsePolicy({ version: 1, extends: ['gate-audit:read-only-shell'], default: 'deny' }).policy.default).toBe(
        'deny',
      );
      expect(
        parsePolicy({ version: 1, extends: ['gate-audit:vended-tools', 'gate-audit:read-only-shell'] }).policy.default,
      ).toBe('ask');
    });

    it('are loosened with disable, which must name a preset rule', () => {
      const strict: PolicyInput = { version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' };
      const line = { mode: 'execute', command: 'git reset --hard' };
      expect(decide(strict, 'bash', line).verdict).toBe('deny');
      expect(decide({ ...strict, disable: ['vended-tools:git-reset-hard'] }, 'bash', line).verdict).toBe('allow');
      expect(() => parsePolicy({ ...strict, disable: ['vended-tools:git-reset-hrad'] })).toThrow(
        /field=<disable\[0\]> \| "vended-tools:git-reset-hrad" names no rule of the presets it extends \| did you mean "vended-tools:git-reset-hard"\?/,
      );
      expect(() => parsePolicy({ version: 1, disable: ['x'] })).toThrow(PolicyError);
    });

    it('refuse an own rule that reuses a preset rule id', () => {
      expect(() =>
        parsePolicy({
          version: 1,
          extends: ['gate-audit:vended-tools'],
          rules: [{ id: 'vended-tools:git-reset-hard', tools: ['bash'], verdict: 'allow' }],
        }),
      ).toThrow(/is also a rule of gate-audit:vended-tools/);
    });

    it("place $WORKSPACE at the policy's workspace", () => {
      const policy: PolicyInput = {
        version: 1,
        extends: ['gate-audit:vended-tools'],
        default: 'allow',
        workspace: '/srv/app',
      };
      const edit = (path: string): string =>
        decide(policy, 'fileEditor', { command: 'create', path, file_text: 'x' }).verdict;
      expect(edit('/srv/app/src/a.ts')).toBe('allow');
      expect(edit('/srv/app/../etc/cron.d/x')).toBe('deny');
      expect(edit('/srv/application/x')).toBe('deny');
      expect(edit('/srv/app/.git/hooks/pre-commit')).toBe('deny');
      expect(decide(policy, 'fileEditor', { command: 'view', path: '/etc/passwd' }).verdict).toBe('allow');
      const bash = (command: string): string => decide(policy, 'bash', { mode: 'execute', command }).verdict;
      expect(bash('rm -rf build')).toBe('allow');
      expect(bash('rm -rf ../other')).toBe('deny');
      expect(bash('echo x > notes.txt')).toBe('allow');
    });
  });

  describe('when vended-tools judges a request to a private address', () => {
    it('vended-tools denies requests to private addresses, however spelled', () => {
      const policy: PolicyInput = { version: 1, extends: ['gate-audit:vended-tools'], default: 'allow' };
      for (const url of [
        'http://169.254.169.254/latest',
        'http://0x7f.1/',
        'http://[::ffff:10.0.0.1]/',
        'http://x.localhost/',
        'not a url',
      ]) {
        expect(decide(policy, 'http_request', { method: 'GET', url }).verdict).toBe('deny');
        expect(decide(policy, 'web_fetch', { url }).verdict).toBe('deny');
      }
      expect(decide(policy, 'web_fetch', { url: 'https://example.com/' }).verdict).toBe('allow');
    });
  });
});
