/**
 * The subcommands are a table (`src/cli/commands/index.ts`): every module under `src/cli/commands/` but the
 * audit's and the table's own is in it, the first argument dispatches to it, and the audit's help lists it from
 * it.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUBCOMMANDS, subcommandOf } from '../../../src/cli/commands/index.js';
import { cli, root } from '../../helpers/cli.js';

const NOT_SUBCOMMANDS = new Set(['audit.ts', 'command.ts', 'index.ts']);

describe('the table of subcommands', () => {
  it('holds every command module, each once, named as its file', () => {
    const files = readdirSync(join(root, 'src/cli/commands')).filter((f) => !NOT_SUBCOMMANDS.has(f));
    expect(SUBCOMMANDS.map((c) => `${c.name}.ts`).sort()).toEqual(files.sort());
    expect(new Set(SUBCOMMANDS.map((c) => c.name)).size).toBe(SUBCOMMANDS.length);
  });

  it('gives the audit for any other first argument', () => {
    expect(subcommandOf(undefined)).toBeUndefined();
    expect(subcommandOf('fixtures/graphs/mixed-graph.ts')).toBeUndefined();
    expect(subcommandOf('toString')).toBeUndefined();
  });

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
