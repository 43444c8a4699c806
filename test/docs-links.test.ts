/**
 * The README and the pages under docs/ (and CONTRIBUTING.md, bench/README.md) link each other by relative path
 * and `#anchor`: every such link resolves to a file of the repository, and every anchor to a heading of it, as
 * GitHub names headings (lower case, punctuation dropped, spaces as hyphens, a repeated heading numbered).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pages = [
  'README.md',
  'CONTRIBUTING.md',
  'bench/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Markdown outside fenced code blocks. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for each heading of a page. */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = match[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
      .replaceAll(' ', '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Every relative link of a page: `[text](target)`, outside code. */
function linksOf(text: string): string[] {
  return [...prose(text).matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('links between the README and the docs', () => {
  describe('when the pages are collected', () => {
    it('finds the pages and their links (the check is not empty)', () => {
      expect(pages).toContain('docs/guarantees.md');
      expect(linksOf(readFileSync(join(root, 'README.md'), 'utf8')).length).toBeGreaterThan(10);
    });
  });

  describe('when a page links by relative path or #anchor', () => {
    it.each(pages)('%s: every relative link and #anchor resolves', (page) => {
      const text = readFileSync(join(root, page), 'utf8');
      const broken: string[] = [];
      for (const link of linksOf(text)) {
        const [path, anchor] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? join(root, page) : normalize(join(root, dirname(page), path));
        if (!existsSync(target)) {
          broken.push(`${link}: no file ${relative(root, target)}`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (!target.endsWith('.md')) {
          broken.push(`${link}: an anchor into a file that is not Markdown`);
          continue;
        }
        if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${link}: no heading #${anchor} in ${relative(root, target)}`);
        }
      }
      expect(broken).toEqual([]);
    });
  });

  describe('when headings are turned into anchors', () => {
    it('the anchors follow GitHub: punctuation dropped, repeats numbered', () => {
      const anchors = anchorsOf(
        '# A `b` (c)\n\n## Where, and why?\n\n## Where, and why?\n\n```\n# not a heading\n```\n',
      );
      expect([...anchors]).toEqual(['a-b-c', 'where-and-why', 'where-and-why-1']);
    });
  });
});
