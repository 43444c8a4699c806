import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The real command, as a user runs it: the built bin in its own process, piped or in a pseudo-terminal.
// `npm test` builds dist/ first.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const scratch = join(root, 'test/.generated/bin');
const bin = join(root, 'bin/gate-audit.js');

function run(
  args: string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs the command under `script`, which gives it a pseudo-terminal (stdout.isTTY is true). */
function runInTerminal(args: string[]): { status: number | null; screen: string } {
  const command = [process.execPath, bin, ...args].map((a) => `'${a}'`).join(' ');
  const result = spawnSync('script', ['-qefc', command, '/dev/null'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, screen: result.stdout };
}

beforeAll(() => {
  mkdirSync(scratch, { recursive: true });
  writeFileSync(
    join(scratch, 'noisy.ts'),
    [
      "import { Agent } from '@strands-agents/sdk';",
      "import { Graph } from '@strands-agents/sdk/multiagent';",
      "console.log('hello from the module');",
      'console.info({ booting: true });',
      "export const graph = new Graph({ id: 'noisy', nodes: [new Agent({ id: 'a', printer: false })], edges: [] });",
    ].join('\n'),
  );
  writeFileSync(
    join(scratch, 'hangs.ts'),
    'export function build() { setInterval(() => undefined, 1000); return new Promise(() => undefined); }\n',
  );
}, 60_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the gate-audit command', () => {
  describe('when its output is piped', () => {
    it('piped: prints the plain text report with no escape codes and exits 1 on an ungated node', () => {
      const { status, stdout } = run(['fixtures/graphs/mixed-graph.ts']);
      expect(status).toBe(1);
      expect(stdout).not.toContain('\u001b');
      expect(stdout).toMatch(/✘ {3}publisher +agent +ungated/);
    });
  });

  describe('when it runs in a terminal', () => {
    it('in a terminal with --format text: prints the text report and keeps the exit code', () => {
      const gated = runInTerminal(['--format', 'text', 'fixtures/graphs/gated-app.ts']);
      expect(gated.status).toBe(0);
      expect(gated.screen).toContain('coverage 100%');
      expect(runInTerminal(['--format', 'text', 'fixtures/graphs/mixed-graph.ts']).status).toBe(1);
    });
  });

  describe('when piped with --format tui or json', () => {
    it('piped with --format tui: falls back to the text report and says so', () => {
      const { status, stdout, stderr } = run(['--format', 'tui', 'fixtures/graphs/gated-app.ts']);
      expect(status).toBe(0);
      expect(stdout).toContain('coverage 100%');
      expect(stderr).toContain('not a terminal, printing the text report');
    });

    it('--format json stays valid JSON while the module logs to stdout', () => {
      const { status, stdout, stderr } = run(['--format', 'json', 'test/.generated/bin/noisy.ts']);
      expect(status).toBe(1);
      expect((JSON.parse(stdout) as { root: { id: string } }).root.id).toBe('noisy');
      expect(stderr).toContain('hello from the module');
      expect(stderr).toContain('booting');
    });
  });

  describe('when a factory hangs', () => {
    it('ends a hanging factory with exit 2 at --timeout, even when it keeps timers alive', () => {
      // Had the live timer kept the process alive, spawnSync would kill it at its own timeout (status null).
      const { status, stderr } = run(['--timeout', '300', '--export', 'build', 'test/.generated/bin/hangs.ts']);
      expect(status).toBe(2);
      expect(stderr).toMatch(/load failed: .*hangs\.ts: factory "build" did not return within 300 ms/);
    });
  });
});
