/**
 * The map of formats (`FORMATS`) is the only list of them: the names, the config's enum, the CLI's choices and
 * the docs' list are read from it, and every format in it, whatever it is, goes through the hostile-data checks
 * (nothing hidden, no line a CI runner reads as a command but `github`'s own) without being named here.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORTER_FORMATS, ReporterSchema } from '../../../src/config.js';
import { FORMAT_NAMES, FORMATS, PAGE_RENDERERS, RENDERERS, renderFormat } from '../../../src/report/render/index.js';
import { hasHiddenCharacters } from '../../../src/escape.js';
import { root } from '../../helpers/cli.js';
import { ATTACKS, COMMAND_ATTACKS, hostileReport } from '../../helpers/hostile-report.js';
import { OWN_COMMAND, runnerCommands } from '../../helpers/runner-commands.js';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 40);

/** The formats as the map names them, read apart from the exports derived from it. */
const MAP_NAMES = Object.keys(FORMATS);

describe('the map of formats', () => {
  describe('when the CLI, the config and the reporters read it', () => {
    it('is where the names, the text and page renderers, the enum of the config and the reporter names come from', () => {
      expect([...FORMAT_NAMES]).toEqual(MAP_NAMES);
      expect([...Object.keys(RENDERERS), ...Object.keys(PAGE_RENDERERS)].sort()).toEqual([...MAP_NAMES].sort());
      expect([...REPORTER_FORMATS]).toEqual([...MAP_NAMES, 'tui']);
      for (const format of MAP_NAMES) expect(ReporterSchema.safeParse({ format }).success).toBe(true);
      for (const format of ['toString', 'constructor', 'xml', '']) {
        expect(ReporterSchema.safeParse({ format }).success, format).toBe(false);
      }
    });
  });

  describe('when docs/cli.md lists the formats', () => {
    const doc = readFileSync(join(root, 'docs/cli.md'), 'utf8');

    it('is what `npm run docs:formats` writes from the map (its --format row and its list of formats)', () => {
      const script = spawnSync(process.execPath, ['scripts/docs-formats.mjs'], { cwd: root, encoding: 'utf8' });
      expect(script.status, script.stderr).toBe(0);
      expect(doc, 'docs/cli.md is behind the map of formats: run `npm run docs:formats`').toBe(script.stdout);
    });

    it('describes exactly the formats of the map under "Output formats", each with its doc', () => {
      const section = /\n## Output formats\n([\s\S]*?)\n##/.exec(doc)?.[1] ?? '';
      const listed = [...section.matchAll(/^- `([a-z]+)`:/gm)].map((m) => m[1] ?? '');
      expect(listed).toEqual(MAP_NAMES);
    });

    it('names exactly the reporter formats in the row of --format', () => {
      const row = doc.split('\n').find((line) => line.startsWith('| `--format <name>`')) ?? '';
      const described = row.split(' | ')[1] ?? '';
      const named = [...described.matchAll(/`([a-z]+)` \(/g)].map((m) => m[1] ?? '');
      expect(named.sort()).toEqual([...REPORTER_FORMATS].sort());
    });
  });
});

describe('every format of the map', () => {
  describe('when the data is hostile (property)', () => {
    for (const format of MAP_NAMES as (keyof typeof FORMATS)[]) {
      const runs = 'page' in FORMATS[format] ? Math.min(RUNS, 10) : RUNS;
      it(`${format}: no hidden character and no line a runner reads as a command${format === 'github' ? ' but its own' : ''}`, async () => {
        await fc.assert(
          fc.asyncProperty(
            hostileReport({ attacks: [...COMMAND_ATTACKS, ...ATTACKS], notes: true, maxNodes: 6 }),
            fc.boolean(),
            async (report, quiet) => {
              const output = await renderFormat(format, report, { quiet, version: '0.0.0' });
              expect(output.length).toBeGreaterThan(0);
              const hidden = output.split('\n').find((line) => hasHiddenCharacters(line));
              expect(hidden, 'a line with a hidden or control character').toBeUndefined();
              const commands = runnerCommands(output);
              if (FORMATS[format].escape === 'own') {
                expect(output).not.toContain('##[');
                expect(commands.filter((line) => !OWN_COMMAND.test(line))).toEqual([]);
              } else {
                expect(commands).toEqual([]);
              }
            },
          ),
          { numRuns: runs },
        );
      }, 120_000);
    }
  });
});
