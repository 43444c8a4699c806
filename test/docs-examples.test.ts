/**
 * Every TypeScript example in docs/ compiles as a user would paste it, against the package's published types
 * (`gate-audit` resolves to dist/ by its own name, as in an app). Examples are often fragments: the names they use
 * without defining (`graph`, `policy`) come from a hidden comment right above the block,
 *
 *     <!-- example
 *     import type { Graph } from '@strands-agents/sdk/multiagent';
 *     declare const graph: Graph;
 *     // file: src/graph.ts
 *     export { graph } from '…';
 *     -->
 *
 * whose lines before the first `// file:` go before the example, and each `// file: <path>` section becomes a file
 * beside it (the example itself is `test/example.ts` in its own folder, so `../src/graph.js` resolves).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));
const scratch = join(root, 'test/.generated/docs-examples');

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** One `ts` block of a page: where it is, the code, and what its hidden comment gives it. */
interface Example {
  readonly id: string;
  readonly page: string;
  readonly line: number;
  readonly code: string;
  readonly prelude: string;
  readonly files: ReadonlyMap<string, string>;
}

function examples(): Example[] {
  const pages = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md'));
  return pages.flatMap((name) => {
    const text = readFileSync(join(root, 'docs', name), 'utf8');
    return [...text.matchAll(/(?:<!-- example\n([\s\S]*?)-->\n)?```ts\n([\s\S]*?)```/g)].map((match, n) => {
      const [prelude = '', ...sections] = (match[1] ?? '').split(/^\/\/ file: /m);
      const files = new Map(
        sections.map((section) => {
          const newline = section.indexOf('\n');
          return [section.slice(0, newline).trim(), section.slice(newline + 1)] as const;
        }),
      );
      const line = text.slice(0, (match.index ?? 0) + match[0].indexOf('```ts')).split('\n').length;
      return {
        id: `${name.replace(/\.md$/, '')}-${n + 1}`,
        page: `docs/${name}`,
        line,
        code: match[2]!,
        prelude,
        files,
      };
    });
  });
}

/** Writes each example into a folder of its own and type-checks them all in one program. */
function compile(all: readonly Example[]): Map<string, string[]> {
  const entries = new Map<string, Example>();
  for (const example of all) {
    const dir = join(scratch, example.id);
    const file = join(dir, 'test/example.ts');
    mkdirSync(dirname(file), { recursive: true });
    // `export {}` keeps a fragment a module (top-level await, no global names shared between examples).
    writeFileSync(file, `${example.prelude}${example.code}\nexport {};\n`);
    for (const [path, text] of example.files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    entries.set(file, example);
  }
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const program = ts.createProgram([...entries.keys()], { ...options, noEmit: true });
  const found = new Map<string, string[]>(all.map((example) => [example.id, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const fileName = diagnostic.file?.fileName ?? '';
    const example = [...entries.values()].find((e) => fileName.startsWith(`${join(scratch, e.id)}/`));
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const at =
      diagnostic.file && diagnostic.start !== undefined
        ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
        : undefined;
    const where = at === undefined ? fileName : `${fileName.slice(scratch.length + 1)}:${at.line + 1}`;
    const key = example?.id ?? '(outside the examples)';
    found.set(key, [...(found.get(key) ?? []), `${where}: ${message}`]);
  }
  return found;
}

describe('the TypeScript examples of docs/', () => {
  const all = examples();

  describe('when the pages are read', () => {
    it('finds the examples the pages show (every page with a ts block)', () => {
      expect(all.length).toBeGreaterThanOrEqual(14);
      expect(new Set(all.map((e) => e.page)).size).toBeGreaterThanOrEqual(8);
    });
  });

  describe('when each is compiled against the published types', () => {
    const errors = compile(all);
    it.each(all.map((e) => [`${e.page}:${e.line}`, e.id] as const))('%s compiles', (_, id) => {
      expect(errors.get(id)).toEqual([]);
    });

    it('leaves no error outside the examples (their hidden files included)', () => {
      expect(errors.get('(outside the examples)') ?? []).toEqual([]);
    });
  });
});
