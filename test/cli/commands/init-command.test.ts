/**
 * `gate-audit init` (`initCommand`), through the built command (`dist/`, `npm test` builds it) in its own
 * process: the starter configuration it writes for a project, and that the audit then reads it. Moved from
 * test/cli/main.adopt.test.ts, where the rest of adopting the CLI (configuration, file selection, reports) is.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helpdeskGateAudit, reportOf as json } from '../../helpers/built-command.js';
import { root } from '../../helpers/cli.js';

const scratch = join(root, 'test/.generated/init-command');
const helpdesk = join(root, 'fixtures/apps/helpdesk');
const marker = join(scratch, 'jobs-ran.txt');

/** Runs the built command; every run can tell the helpdesk app's jobs where to note that they ran. */
const gateAudit = helpdeskGateAudit(marker);

beforeAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.concurrent('gate-audit init', { timeout: 240_000 }, () => {
  describe('when the project has modules that build a Graph or Swarm', () => {
    it('writes a starter config listing the modules that build a Graph or Swarm, and prints the CI step', async () => {
      const dir = join(scratch, 'init');
      cpSync(join(helpdesk, 'src/legacy'), join(dir, 'src/legacy'), { recursive: true });
      cpSync(join(helpdesk, 'src/util'), join(dir, 'src/util'), { recursive: true });
      writeFileSync(join(dir, 'tsconfig.json'), '{}');
      writeFileSync(
        join(dir, 'src/desk.ts'),
        "import { Agent } from '@strands-agents/sdk';\nimport { Graph } from '@strands-agents/sdk/multiagent';\n" +
          "export const desk = new Graph({ id: 'desk', nodes: [new Agent({ id: 'a', printer: false })], edges: [] });\n",
      );
      const init = await gateAudit(['init'], { cwd: dir });
      expect(init.status).toBe(0);
      expect(init.stdout).toContain('--reporter sarif=gate-audit.sarif');
      expect(init.stdout).toMatch(/upload-sarif@v3\n\s+if: always\(\)/);
      const config = readFileSync(join(dir, 'gate-audit.config.ts'), 'utf8');
      expect(config).toContain("'src/desk.ts',");
      expect(config).toContain("'src/legacy/old-desk.ts',");
      expect(config).toContain('satisfies GateAuditConfig;');
      const again = await gateAudit(['init'], { cwd: dir });
      expect(again.status).toBe(2);
      expect(again.stderr).toContain('a configuration already exists here');
      // The starter config is valid and used.
      const audit = await gateAudit(['--format', 'json'], { cwd: dir });
      expect(audit.stderr).not.toContain('config=');
      expect(json(audit).sources.map((s) => s.module)).toEqual(['src/desk.ts', 'src/legacy/old-desk.ts']);
    });
  });

  describe('when a start script or bin names an entry point', () => {
    it('proposes the entry point a start script or bin names (not a library main), and audits it', async () => {
      const dir = join(scratch, 'init-entry');
      mkdirSync(join(dir, 'src'), { recursive: true });
      writeFileSync(join(dir, 'tsconfig.json'), '{}');
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'app', main: 'src/lib.ts', scripts: { start: 'tsx src/main.ts --port 3000' } }),
      );
      writeFileSync(join(dir, 'src/lib.ts'), 'export const x = 1;\n');
      writeFileSync(
        join(dir, 'src/main.ts'),
        "import { Agent } from '@strands-agents/sdk';\nimport { Graph } from '@strands-agents/sdk/multiagent';\n" +
          "const desk = new Graph({ id: 'desk', nodes: [new Agent({ id: 'a', printer: false })], edges: [] });\n" +
          "await desk.invoke('go');\n",
      );
      const init = await gateAudit(['init'], { cwd: dir });
      expect(init.status).toBe(0);
      expect(init.stderr).toContain('wrote gate-audit.config.ts (entry: src/main.ts)');
      const config = readFileSync(join(dir, 'gate-audit.config.ts'), 'utf8');
      expect(config).toContain("entry: ['src/main.ts'],");
      expect(config).toMatch(/ENTRY point .* MODULES .* FACTORIES/s);
      expect(config).not.toContain('src/lib.ts');
      // The app's own package.json: its entry runs where its dependencies resolve (the tree it runs is ungated).
      const audit = await gateAudit(['--format', 'json'], { cwd: dir });
      expect(audit.status).toBe(1);
      expect(json(audit).entries).toEqual([
        { module: 'src/main.ts', invocations: 1, ended: 'exit', exitCode: 0, processGuard: { installed: false } },
      ]);
      expect(json(audit).nodes.map((n) => [n.id, n.status])).toEqual([
        ['desk', 'ungated'],
        ['a', 'ungated'],
      ]);
    });
  });
});
