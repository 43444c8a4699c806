/**
 * docs/shell-programs.md is generated from the program families (`npm run docs:programs`): it lists exactly the
 * programs the tables know, each family's with its one-line summary, so a program added to, removed from or moved
 * between families shows on the page or fails here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES, familyPrograms } from '../../../../src/policy/shell/programs/index.js';

const root = new URL('../../../../', import.meta.url);
const page = readFileSync(new URL('docs/shell-programs.md', root), 'utf8');

describe('the program families, as docs/shell-programs.md shows them', () => {
  describe('when the page is generated', () => {
    it('the page is what `npm run docs:programs` writes', () => {
      const script = spawnSync(process.execPath, ['scripts/shell-programs.mjs'], {
        cwd: root,
        encoding: 'utf8',
      });
      expect(script.status, script.stderr).toBe(0);
      expect(page, 'docs/shell-programs.md is behind the tables: run `npm run docs:programs`').toBe(script.stdout);
    });

    it('the page is written by the docs:programs script', () => {
      const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
        scripts: Record<string, string>;
      };
      expect(manifest.scripts['docs:programs']).toBe('node scripts/shell-programs.mjs docs/shell-programs.md');
    });
  });

  describe('when a family is read on the page', () => {
    it.each(FAMILIES.map((family) => [family.title, family] as const))(
      'the page lists the %s family with its summary and every program',
      (title, family) => {
        const section = page.split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';
        expect(section.toLowerCase()).toContain(family.summary.toLowerCase());
        for (const name of familyPrograms(family)) expect(section).toContain(`\`${name}\``);
      },
    );
  });
});
