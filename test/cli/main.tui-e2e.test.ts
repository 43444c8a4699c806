import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../helpers/cli.js';
import { terminal } from '../helpers/terminal.js';

// The real command in a real pseudo-terminal: keys in, screen out. `npm test` builds dist/ first.
const { open, close, start, screen, keys, waitForScreen, killSession } = terminal('test');

beforeAll(open);
afterEach(killSession);
afterAll(close);

describe('gate-audit in a terminal', () => {
  describe('when a person runs it (no CI variable)', () => {
    it('shows the interactive tree with the ungated node highlighted, answers keys, and exits with the audit code', async () => {
      // A person's terminal: no CI variable (the suite itself may run in CI).
      const command = `env -u CI node bin/gate-audit.js fixtures/graphs/mixed-graph.ts; echo EXIT=$?; sleep 30`;
      start(100, command);
      const first = await waitForScreen((s) => s.includes('75% coverage'), 'the view');
      expect(first).toMatch(/^>✘ ▾ pricing +graph +ungated/m);
      expect(screen({ colour: true })).toContain('\u001b[31m✘');
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
