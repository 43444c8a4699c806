import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';

// The README's library example, run exactly as written (the package name resolves to src/ here).
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const scratch = join(root, 'test/.generated/readme');

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('the README library example runs as written and prints what its comments say', async () => {
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
