/**
 * The subcommands are a table (`src/cli/commands/index.ts`): every module under `src/cli/commands/` but the
 * audit's, the table's own and the bodies the entries load is in it, the first argument dispatches to it, and the
 * audit's help lists it from it. A body (`<name>-command.ts`, `<name>-commands.ts`) is loaded by an entry only when
 * its command runs, so the audit's start loads none of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS, subcommandOf } from '../../../src/cli/commands/index.js';
import { cli, root } from '../../helpers/cli.js';

const NOT_SUBCOMMANDS = new Set(['audit.ts', 'command.ts', 'index.ts']);

/** A command's body, which its entry loads when it runs. */
const isBody = (file: string): boolean => /-commands?\.ts$/.test(file);

describe('the table of subcommands', () => {
  describe('when compared with the command modules', () => {
    it('holds every command module, each once, named as its file', () => {
      const files = readdirSync(join(root, 'src/cli/commands')).filter((f) => !NOT_SUBCOMMANDS.has(f) && !isBody(f));
      expect(SUBCOMMANDS.map((c) => `${c.name}.ts`).sort()).toEqual(files.sort());
      expect(new Set(SUBCOMMANDS.map((c) => c.name)).size).toBe(SUBCOMMANDS.length);
    });

    it('has each body loaded by an entry of the table, lazily (await import), and by no entry statically', () => {
      const dir = join(root, 'src/cli/commands');
      const entries = SUBCOMMANDS.map((c) => readFileSync(join(dir, `${c.name}.ts`), 'utf8'));
      const bodies = readdirSync(dir).filter(isBody);
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) {
        const specifier = `'./${body.replace(/\.ts$/, '.js')}'`;
        expect(
          entries.some((text) => text.includes(`import(${specifier})`)),
          body,
        ).toBe(true);
        expect(
          entries.some((text) => text.includes(`from ${specifier}`)),
          body,
        ).toBe(false);
      }
    });
  });

  describe('when the first argument is not a subcommand', () => {
    it('gives the audit for any other first argument', () => {
      expect(subcommandOf(undefined)).toBeUndefined();
      expect(subcommandOf('fixtures/graphs/mixed-graph.ts')).toBeUndefined();
      expect(subcommandOf('toString')).toBeUndefined();
    });
  });

  describe('when --help is asked', () => {
    it('gate-audit --help lists every subcommand, from the table, in its order', async () => {
      const help = await cli('--help');
      expect(help.code).toBe(0);
      const listed = help.out.slice(help.out.indexOf('Commands:'), help.out.indexOf('Exit codes:'));
      expect(listed).toBe(`Commands:\n${SUBCOMMANDS.flatMap((c) => c.help.map((line) => `${line}\n`)).join('')}\n`);
      for (const command of SUBCOMMANDS) expect(listed).toContain(`gate-audit ${command.name}`);
    });

    for (const command of SUBCOMMANDS) {
      it(`gate-audit ${command.name} --help: its own help, exit 0`, async () => {
        const help = await cli(command.name, '--help');
        expect(help.code).toBe(0);
        expect(help.out + help.err).toContain(`gate-audit ${command.name}`);
        expect(help.out).not.toContain('Commands:\n  gate-audit init');
      });
    }
  });
});
