/**
 * The interactive view (ink, React) and the HTML page's picture (@viz-js/viz) come from packages that are not
 * runtime dependencies. Each case runs the real command with those packages made unresolvable the way Node says a
 * package is missing (test/helpers/missing-packages-hook.mjs, registered with `--import`), so what an app
 * without them sees is checked in `npm test`, not only by the packed install. A terminal is a real pseudo-terminal
 * (tmux, from Debian; .ci/run installs it). `npm test` builds dist/ first.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminal } from '../../helpers/terminal.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const hook = pathToFileURL(join(root, 'test/helpers/missing-packages-register.mjs')).href;
const INSTALL = 'npm i -D ink@^6 react@^19';

const term = terminal('optional');

/** Runs the command in a pseudo-terminal without the packages; the screen once it printed its exit code. */
async function onTerminal(missing: string, args: string): Promise<string> {
  term.start(
    200,
    `env -u CI GATE_AUDIT_TEST_MISSING=${missing} node --import ${hook} bin/gate-audit.js ${args}; echo EXIT=$?; sleep 30`,
    50,
  );
  try {
    return await term.waitForScreen((text) => /EXIT=\d/.test(text), 'the exit code', { joined: true, tries: 600 });
  } finally {
    term.killSession();
  }
}

beforeAll(() => term.open());
afterAll(() => term.close());

describe('audit without its optional packages', () => {
  describe('when ink is not installed and a person runs it on a terminal', () => {
    it('prints the text report, says once on stderr what to install, and keeps the exit code', async () => {
      const screen = await onTerminal('ink', 'fixtures/graphs/mixed-graph.ts');
      expect(screen).toContain(`gate-audit: the interactive view needs ink, which is not installed | ${INSTALL}`);
      expect(screen.split(INSTALL)).toHaveLength(2);
      expect(screen).toContain('coverage 75% of 4 tool-running nodes');
      expect(screen).toContain('EXIT=1');
    });

    it('names react when React is the one missing', async () => {
      const screen = await onTerminal('react', 'fixtures/graphs/mixed-graph.ts');
      expect(screen).toContain(`the interactive view needs react, which is not installed | ${INSTALL}`);
      expect(screen).toContain('EXIT=1');
    });
  });

  describe('when the view is asked for with --format tui', () => {
    it('exits 2 with the same line, and prints no report', async () => {
      const screen = await onTerminal('ink', 'fixtures/graphs/gated-app.ts --format tui');
      expect(screen).toContain(`gate-audit: the interactive view needs ink, which is not installed | ${INSTALL}`);
      expect(screen).not.toContain('coverage');
      expect(screen).toContain('EXIT=2');
    });
  });

  describe('when @viz-js/viz is not installed and the HTML page is written', () => {
    it('writes the page without its picture, says why on stderr, and keeps the exit code', () => {
      const run = spawnSync(
        process.execPath,
        ['--import', hook, 'bin/gate-audit.js', 'fixtures/graphs/mixed-graph.ts', '--format', 'html'],
        { cwd: root, encoding: 'utf8', env: { ...process.env, GATE_AUDIT_TEST_MISSING: '@viz-js/viz' } },
      );
      expect(run.stderr).toMatch(/the HTML page has no picture: .*@viz-js\/viz/);
      expect(run.stdout).toContain('<html');
      expect(run.stdout).toContain('The picture could not be drawn');
      expect(run.status).toBe(1);
    });
  });
});
