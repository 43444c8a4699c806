import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, root } from '../../helpers/cli.js';

const scratch = join(root, 'test/.generated/cli-policy');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('gate-audit check-policy <policy> <module>', () => {
  describe('when the policy and the module load', () => {
    it('shows each agent, each tool, its verdict and rule, and what depends on the input', async () => {
      const { code, out } = await cli(
        'check-policy',
        'fixtures/policies/app-policy.yaml',
        'fixtures/graphs/policy-app.ts',
      );
      expect(code).toBe(0);
      expect(out).toContain('gate-audit check-policy: fixtures/policies/app-policy.yaml (5 rules, default deny)');
      expect(out).toContain('fixtures/graphs/policy-app.ts#graph');
      expect(out).toMatch(/research › planner\n {4}web_search {2}allow {4}rule research-tools\n/);
      expect(out).toMatch(/strands_structured_output {2}allow {4}rule swarm-handoff/);
      expect(out).toMatch(/write_file {2}ask {6}rule writes-need-approval/);
      expect(out).toMatch(/shell {7}depends {2}deny if no-recursive-delete matches, else allow \(writer-shell\)/);
      expect(out).toMatch(
        /0 tools fall to the default \(deny\)\nnote: a deny or ask condition holds when its argument is present with the wrong type/,
      );
    });

    it('makes tools that fall to the default visible', async () => {
      const policy = join(scratch, 'narrow.yaml');
      writeFileSync(policy, 'version: 1\nrules:\n  - id: search\n    tools: [web_search]\n    verdict: allow\n');
      const { code, out } = await cli('check-policy', policy, 'fixtures/graphs/research-graph.ts');
      expect(code).toBe(0);
      expect(out).toMatch(/ {4}read_file +deny +default: no rule covers it\n/);
      expect(out).toMatch(/5 tools fall to the default \(deny\)/);
    });
  });

  describe('when the policy is invalid, the arguments wrong or the module missing', () => {
    it('exits 2 with the PolicyError message on an invalid policy', async () => {
      const policy = join(scratch, 'bad.yaml');
      writeFileSync(policy, 'version: 1\nrules:\n  - id: r1\n    tools: [x]\n    verdict: maybe\n');
      const { code, out, err } = await cli('check-policy', policy, 'fixtures/graphs/research-graph.ts');
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err).toMatch(/^gate-audit: file=<.*bad\.yaml>, rule=<r1>, field=<rules\[0\]\.verdict> \| /);
    });

    it('exits 2 on a usage error or a module that cannot be loaded', async () => {
      expect((await cli('check-policy')).code).toBe(2);
      const missing = await cli('check-policy', 'fixtures/policies/app-policy.yaml', 'fixtures/graphs/absent.ts');
      expect(missing.code).toBe(2);
      expect(missing.err).toMatch(/cannot load "fixtures\/graphs\/absent\.ts": no such file/);
    });
  });

  describe('when --help is asked', () => {
    it('--help lists the subcommands; each subcommand has its own help', async () => {
      expect((await cli('--help')).out).toMatch(/check-policy <policy> \[module\.\.\.\][\s\S]*verify-log <file>/);
      const help = await cli('verify-log', '--help');
      expect(help.code).toBe(0);
      expect(help.out).toContain('Exit codes: 0 intact · 1 a record is broken or missing');
    });
  });
});
