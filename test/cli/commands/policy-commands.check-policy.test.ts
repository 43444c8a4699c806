/**
 * `gate-audit check-policy <policy> [module...]`: the policy alone, `--format json|sarif`, `--strict`, "did
 * you mean", the vended tools each agent has and the rules that cover them, the structured-output tool, a
 * Swarm that can never hand off, agents at several places, and hostile names made visible.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/policy/load.js';
import { cli } from '../../helpers/cli.js';

const scratch = join(dirname(fileURLToPath(import.meta.url)), '../../.generated/check-policy');
beforeAll(() => mkdirSync(scratch, { recursive: true }));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

const APP = 'fixtures/graphs/vended-tools-app.ts';

/** Covers every tool of the app: strict finds nothing, though the preset has rules for tools the app lacks. */
const covering = `version: 1
extends: [gate-audit:vended-tools]
default: deny
rules:
  - { id: shell-ok, tools: [bash], verdict: allow }
  - { id: edits-ok, tools: [fileEditor], verdict: allow }
  - { id: fetch-ok, tools: [http_request, fetcher], verdict: allow }
  - { id: handoff, tools: [strands_structured_output], verdict: allow }
`;

describe('gate-audit check-policy', () => {
  describe('when given a policy alone (no module)', () => {
    it('validates a policy alone (no module): exit 0', async () => {
      const { code, out } = await cli('check-policy', file('alone.yaml', covering));
      expect(code).toBe(0);
      const rules = parsePolicy({ version: 1, extends: ['gate-audit:vended-tools'] }).policy.rules.length + 4;
      expect(out).toContain(`(${rules} rules, default deny, extends gate-audit:vended-tools)`);
      expect(out).toContain('note: no module given: the policy was validated alone');
    });

    it('names an unknown field with a "did you mean", exit 2', async () => {
      const { code, err } = await cli(
        'check-policy',
        file('typo.yaml', 'version: 1\nrules:\n  - id: r\n    tools: [x]\n    verdcit: deny\n'),
      );
      expect(code).toBe(2);
      expect(err).toMatch(/unknown key "verdcit" \| did you mean "verdict"\?/);
    });
  });

  describe('when given a policy and modules', () => {
    it("lists each agent's vended tools with the rules that cover them, the structured-output tool, and shared agents", async () => {
      const { code, out } = await cli('check-policy', file('cover.yaml', covering), APP);
      expect(code).toBe(0);
      expect(out).toMatch(
        /app › support › triage\n {4}bash +depends +deny if vended-tools:code-that-cannot-be-seen matches, [^\n]*, else allow \(shell-ok\)\n +\(SDK vended-tools\/bash; rules: vended-tools:code-that-cannot-be-seen, [^\n]*, shell-ok\)\n/,
      );
      expect(out).toMatch(
        /app › reporter\n[\s\S]*strands_structured_output +allow +rule handoff\n +\(added at run time for the structured output schema\)/,
      );
      expect(out).toContain('(also at app › reporter › fetcher: path rules hold for every place)');
    });
  });

  describe('when given --strict', () => {
    it("--strict does not count a preset's rules for tools the app lacks, and exits 0 when everything is covered", async () => {
      const { code, out } = await cli('check-policy', '--strict', file('strict-ok.yaml', covering), APP);
      expect(code).toBe(0);
      expect(out).not.toMatch(/^error:/m);
    });

    it('--strict exits 1 for a rule that matches no tool (with a "did you mean") and for tools at the default', async () => {
      const policy = file(
        'strict.yaml',
        'version: 1\nextends: [gate-audit:vended-tools]\nrules:\n  - { id: typo, tools: [htpp_request], verdict: allow }\n',
      );
      const lenient = await cli('check-policy', policy, APP);
      expect(lenient.code).toBe(0);
      expect(lenient.out).toMatch(
        /^warning: rule typo: its tools \(htpp_request\) match no tool of the checked agents \| did you mean "http_request"\?$/m,
      );
      const strict = await cli('check-policy', '--strict', policy, APP);
      expect(strict.code).toBe(1);
      expect(strict.out).toMatch(/^error: rule typo: /m);
      expect(strict.out).toMatch(
        /^error: fileEditor of app › support › fixer falls to the default \(deny\) \| add a rule for it$/m,
      );
    });
  });

  describe("when a Swarm member's handoff tool is denied", () => {
    it('warns about a Swarm member whose handoff tool is denied', async () => {
      const policy = file(
        'handoff.yaml',
        `${covering}  - { id: no-handoff, tools: [strands_structured_output], paths: ["app/support/*"], verdict: deny }\n`,
      );
      const { out } = await cli('check-policy', policy, APP);
      expect(out).toMatch(
        /^warning: app › support › triage is a Swarm member whose handoff tool \(strands_structured_output\) is denied: it can never hand off/m,
      );
    });
  });

  describe('when asked for --format json or sarif', () => {
    it('--format json and --format sarif carry the same problems', async () => {
      const policy = file('formats.yaml', 'version: 1\nrules:\n  - { id: typo, tools: [bsah], verdict: allow }\n');
      const json = await cli('check-policy', '--format', 'json', '--strict', policy, APP);
      expect(json.code).toBe(1);
      const parsed = JSON.parse(json.out) as {
        id: string;
        modules: { agents: { path: string[]; tools: { tool: string; verdict: string }[] }[] }[];
        problems: { level: string; code: string; rule?: string }[];
      };
      expect(parsed.id).toMatch(/^[0-9a-f]{64}$/);
      expect(parsed.modules[0]?.agents.map((a) => a.path.join('/'))).toContain('app/reporter');
      expect(parsed.problems).toContainEqual(
        expect.objectContaining({ level: 'error', code: 'rule-matches-no-tool', rule: 'typo' }),
      );
      const sarif = await cli('check-policy', '--format', 'sarif', '--strict', policy, APP);
      const log = JSON.parse(sarif.out) as {
        version: string;
        runs: { results: { ruleId: string; level: string; message: { text: string } }[] }[];
      };
      expect(log.version).toBe('2.1.0');
      expect(log.runs[0]?.results).toContainEqual(
        expect.objectContaining({
          ruleId: 'rule-matches-no-tool',
          level: 'error',
          message: { text: expect.stringContaining('did you mean "bash"?') as unknown },
        }),
      );
      expect((await cli('check-policy', '--format', 'xml', policy)).code).toBe(2);
    });
  });

  describe('when the data or the policy keys are hostile', () => {
    it('shows every value from data visibly escaped: an agent id cannot forge a row or clear the screen', async () => {
      const module = file(
        'hostile-app.ts',
        `import { Agent } from '@strands-agents/sdk';
import { Graph } from '@strands-agents/sdk/multiagent';
import { ScriptedModel, say } from '../../../fixtures/support/scripted-model.js';
const evil = new Agent({ id: 'evil\\u001b[2J\\r    bash  allow  rule ok', model: new ScriptedModel([say('x')]), printer: false });
export const graph = new Graph({ id: 'hostile\\u202e', nodes: [evil], edges: [] });
`,
      );
      const { code, out } = await cli('check-policy', file('any.yaml', 'version: 1\n'), module);
      expect(code).toBe(0);
      for (const raw of ['\u001b', '\r', '\u202e']) expect(out).not.toContain(raw);
      expect(out).toContain('hostile\\u202e › evil\\x1b[2J\\r    bash  allow  rule ok');
    });

    it("escapes hostile keys in an invalid policy's error", async () => {
      const { code, err } = await cli('check-policy', file('hostile.yaml', 'version: 1\n"bad\\e[2Jkey": 1\n'));
      expect(code).toBe(2);
      expect(err).not.toContain('\u001b');
      expect(err).toContain('\\x1b[2J');
    });
  });
});
