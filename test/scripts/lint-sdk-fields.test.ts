/**
 * `scripts/lint-sdk-fields.mjs` (run by `npm run lint`): only src/frameworks/strands/ names the SDK's private
 * fields. Each case writes a small source file and runs the script on it, as `npm run lint` runs it on src/.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const script = join(root, 'scripts/lint-sdk-fields.mjs');

function lint(...files: string[]): { status: number | null; out: string } {
  // Without NO_COLOR: beside the config's FORCE_COLOR, Node would print a warning into the one line checked.
  const env = { ...process.env };
  delete env.NO_COLOR;
  const run = spawnSync(process.execPath, [script, ...files], { cwd: root, encoding: 'utf8', env });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function source(text: string): string {
  const dir = join(root, 'test/.generated');
  mkdirSync(dir, { recursive: true });
  const probe = mkdtempSync(join(dir, 'lint-sdk-fields-'));
  made.push(probe);
  const file = join(probe, 'probe.ts');
  writeFileSync(file, text);
  return file;
}

describe('lint-sdk-fields', () => {
  describe('when run on src/ as it is', () => {
    it('passes on src/ as it is', () => {
      const { status, out } = lint();
      expect(out).toContain('none outside src/frameworks/strands/');
      expect(status).toBe(0);
    });
  });

  describe('when a file outside the folder names a private SDK field', () => {
    it.each([
      ['a quoted field read', "readData(agent, '_hooksRegistry');"],
      ['a quoted field of orchestrators', 'freezeFields(graph, ["_hookRegistry"]);'],
      ['a segment of a dotted path', "const path = '_backgroundTasks._manager';"],
      ['a template text', 'const key = `_toolRegistry`;'],
      ['a property access on another object', 'const tasks = (agent as any)._backgroundTasks;'],
      ['an optional property access', 'const inner = tool?._agent;'],
    ])('fails on %s outside the folder', (_name, text) => {
      const { status, out } = lint(source(`${text}\n`));
      expect(status).toBe(1);
      expect(out).toContain("names the SDK's private");
    });
  });

  describe("when a file outside the folder imports the folder's constants that hold field names", () => {
    it.each([
      ['a *_FIELD constant', "import { HOOK_REGISTRY_FIELD } from '../frameworks/strands/sdk-internals.js';"],
      [
        'one renamed on import',
        "import { GRAPH_SOURCES_FIELD as sources } from '../frameworks/strands/sdk-internals.js';",
      ],
      ['the registry field list', "import { agentRegistryFields } from '../frameworks/strands/sdk-internals.js';"],
      ['one re-exported', "export { TOOL_EXECUTOR_FIELD } from '../frameworks/strands/sdk-internals.js';"],
    ])('fails on %s', (_name, text) => {
      const { status, out } = lint(source(`${text}\n`));
      expect(status).toBe(1);
      expect(out).toContain("which names the SDK's private fields");
    });

    it("leaves the folder's readers alone", () => {
      const text = "import { graphSourcesRead, agentRegistryProblem } from '../frameworks/strands/sdk-internals.js';\n";
      const { status, out } = lint(source(text));
      expect(out).not.toContain('imports');
      expect(status).toBe(0);
    });
  });

  describe('when a file names only other private fields', () => {
    it("leaves gate-audit's own private fields, comments and other names alone", () => {
      const text = [
        '// the SDK keeps it in `_hooksRegistry` (a comment may say so)',
        'class Own { private _agent = 1; read(): number { return this._agent; } }',
        "const name = '_notAnSdkField';",
        'const other = { _lines: 1 }._lines;',
      ].join('\n');
      const { status, out } = lint(source(text));
      expect(out).toBe(`${out.split('\n')[0]}\n`);
      expect(status).toBe(0);
    });
  });
});
