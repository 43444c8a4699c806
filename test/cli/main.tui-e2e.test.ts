import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

// The real command in a real pseudo-terminal (tmux, from Debian; .ci/run installs it): keys in, screen out.
// `npm test` builds dist/ first.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const socket = `gate-audit-test-${process.pid}`;
const tmux = (...args: string[]): string =>
  execFileSync('tmux', ['-L', socket, ...args], { cwd: root, encoding: 'utf8' });
let session = '';
let sessions = 0;
const screen = (colour = false): string => tmux('capture-pane', '-t', session, '-p', ...(colour ? ['-e'] : []));
/** Starts `command` in a fresh session of its own (no session is reused, none is killed under another). */
const start = (width: number, command: string): void => {
  sessions += 1;
  session = `audit-${sessions}`;
  tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', '30', command);
};
const keys = (...pressed: string[]): void => void tmux('send-keys', '-t', session, ...pressed);

async function waitForScreen(expected: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const text = screen();
    if (expected(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${screen()}`);
}

// One session lives for the whole file, so killing a test's session never empties the server: an empty tmux
// server exits, and a `new-session` that reached it while it was exiting failed with "server exited unexpectedly".
beforeAll(() => {
  tmux('new-session', '-d', '-s', 'keeper', 'sleep 600');
});
afterEach(() => {
  try {
    tmux('kill-session', '-t', session);
  } catch {
    // already gone
  }
});
afterAll(() => {
  try {
    tmux('kill-server');
  } catch {
    // already gone
  }
});

describe('gate-audit in a terminal', () => {
  describe('when a person runs it (no CI variable)', () => {
    it('shows the interactive tree with the ungated node highlighted, answers keys, and exits with the audit code', async () => {
      // A person's terminal: no CI variable (the suite itself may run in CI).
      const command = `env -u CI node bin/gate-audit.js fixtures/graphs/mixed-graph.ts; echo EXIT=$?; sleep 30`;
      start(100, command);
      const first = await waitForScreen((s) => s.includes('75% coverage'), 'the view');
      expect(first).toMatch(/^>✘ ▾ pricing +graph +ungated/m);
      expect(screen(true)).toContain('\u001b[31m✘');
      keys('j', 'j', 'j');
      const moved = await waitForScreen((s) => /^>✘ +publisher/m.test(s), 'publisher selected');
      expect(moved).toContain('fix      call installMultiagent(root) at startup, or give the agent a GatePlugin');
      keys('u');
      const filtered = await waitForScreen((s) => s.includes('not gated only'), 'the not-gated filter');
      expect(filtered).not.toContain('collector');
      keys('q');
      await waitForScreen((s) => s.includes('EXIT=1'), 'the exit code');
    });
  });

  describe('when the README shows its screen', () => {
    it('opens on the bundled example with the screen README.md shows, and exits 0 on q', async () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const shown = /```console\n\$ npx gate-audit fixtures\/graphs\/gated-app\.ts\n([\s\S]*?)```/.exec(readme)?.[1];
      expect(shown).toBeDefined();
      start(100, `env -u CI node bin/gate-audit.js fixtures/graphs/gated-app.ts; echo EXIT=$?; sleep 30`);
      const first = await waitForScreen((s) => s.includes('q quit'), 'the view');
      const lines = (text: string): string[] =>
        text
          .replaceAll(/process:[0-9a-f]{8}/g, 'process:…')
          .split('\n')
          .map((line) => line.trimEnd())
          .filter((line, i, all) => line !== '' || all.slice(i).some((rest) => rest !== ''));
      expect(lines(first)).toEqual(lines(shown!));
      keys('q');
      await waitForScreen((s) => s.includes('EXIT=0'), 'the exit code');
    });
  });

  describe('when it runs in CI', () => {
    it('in CI, even on a terminal, prints the text report instead of waiting for keys', async () => {
      start(120, 'env CI=true node bin/gate-audit.js fixtures/graphs/mixed-graph.ts; echo EXIT=$?; sleep 30');
      const text = await waitForScreen((s) => s.includes('EXIT='), 'the exit code');
      expect(text).toContain('coverage 75% of 4 tool-running nodes');
      expect(text).toContain('EXIT=1');
    });
  });

  describe('when --format text is given', () => {
    it('--format text in a terminal prints the plain report instead', async () => {
      start(120, 'env -u CI node bin/gate-audit.js --format text fixtures/graphs/gated-app.ts; echo EXIT=$?; sleep 30');
      const text = await waitForScreen((s) => s.includes('EXIT='), 'the exit code');
      expect(text).toContain('coverage 100% of 4 tool-running nodes');
      expect(text).toContain('EXIT=0');
    });
  });
});
