import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';

// The README's library example, run exactly as written (the package name resolves to src/ here).
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = join(root, 'test/.generated/readme');

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('README.md', () => {
  describe('when measured', () => {
    // A first page, not a manual: the references are in docs/, contributing in CONTRIBUTING.md.
    it('is at most 200 lines, and links the reference pages in docs/', () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      expect(readme.split('\n').length).toBeLessThanOrEqual(200);
      for (const page of ['guarantees', 'compatibility', 'policies', 'cli'])
        expect(readme).toContain(`docs/${page}.md`);
      expect(readme).toContain('CONTRIBUTING.md');
    });
  });
});

describe('the README library example', () => {
  describe('when run as written', () => {
    it('prints what its comments say', async () => {
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      const section = readme.slice(readme.indexOf('## Library'));
      const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
      expect(code).toBeDefined();
      mkdirSync(scratch, { recursive: true });
      writeFileSync(join(scratch, 'example.ts'), code!);
      const logged: unknown[] = [];
      vi.spyOn(console, 'log').mockImplementation((value: unknown) => void logged.push(value));
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      const example = (await import(join(scratch, 'example.ts'))) as { graph: unknown };
      vi.restoreAllMocks();
      expect(example.graph).toBeDefined();
      const comments = [...code!.matchAll(/^\/\/ (.+)$/gm)].map((m) => m[1]!).filter((c) => c.startsWith('['));
      expect(logged[0]).toEqual(JSON.parse(comments[0]!.replaceAll("'", '"')));
      expect(logged[1]).toBe(1);
    });
  });
});

/** A command run shown in a page: `$ npx gate-audit …` opening a `text` block, its output, and its exit code. */
interface ShownRun {
  readonly page: string;
  readonly args: string;
  readonly output: string;
  readonly exit: number | undefined;
}

/** Every run shown in README.md and CONTRIBUTING.md, with the exit code the paragraph above it names. */
function shownRuns(): ShownRun[] {
  return ['README.md', 'CONTRIBUTING.md'].flatMap((page) => {
    const text = readFileSync(join(root, page), 'utf8');
    return [...text.matchAll(/((?:[^\n]+\n)+)\n```text\n\$ npx gate-audit (.*)\n([\s\S]*?)```/g)].map((m) => {
      const exit = /\bexit (\d)\)/.exec(m[1]!)?.[1];
      return { page, args: m[2]!, output: m[3]!, exit: exit === undefined ? undefined : Number(exit) };
    });
  });
}

/** A report's per-process gate ids, which differ from run to run, written as the pages write them. */
const samePerRun = (text: string): string => text.replaceAll(/process:[0-9a-f]{8}/g, 'process:…');

describe('the command runs shown in README.md and CONTRIBUTING.md', () => {
  const runs = shownRuns();

  describe('when the pages are read', () => {
    it('include the quick start: the bundled example on a terminal and a CI run', () => {
      // The terminal's screen is a `console` block, checked against a real pseudo-terminal in
      // test/cli/main.tui-e2e.test.ts; the CI run is a `text` block, run here.
      const readme = readFileSync(join(root, 'README.md'), 'utf8');
      expect(readme).toContain('```console\n$ npx gate-audit fixtures/graphs/gated-app.ts\n');
      expect(runs.filter((r) => r.page === 'README.md').map((r) => `${r.args} (exit ${String(r.exit)})`)).toEqual([
        'fixtures/graphs/mixed-graph.ts --format github (exit 1)',
      ]);
    });
  });

  describe('when each is run with the command', () => {
    it.each(runs.map((run) => [`${run.page}: ${run.args}`, run] as const))(
      '%s prints what is shown, and exits as said',
      (_, run) => {
        const done = spawnSync(process.execPath, [join(root, 'bin/gate-audit.js'), ...run.args.split(' ')], {
          cwd: root,
          encoding: 'utf8',
          env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
          timeout: 60_000,
        });
        expect(samePerRun(done.stdout)).toBe(run.output);
        if (run.exit !== undefined) expect(done.status).toBe(run.exit);
      },
      60_000,
    );
  });
});
