/** `gate-audit init`: write a starter gate-audit.config and print the CI step. */
import type { CliCommand } from './command.js';

/** The `init` subcommand. */
export const init: CliCommand = {
  name: 'init',
  help: ['  gate-audit init                               write a starter gate-audit.config and print the CI step'],
  textOnly: true,
  run: async (argv, { streams, cwd }) =>
    await Promise.resolve((await import('./init-command.js')).initCommand(argv, streams, cwd)),
};
