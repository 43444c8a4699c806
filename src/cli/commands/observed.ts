/** `gate-audit observed <traces...>`: which tool calls in OTLP JSON traces were decided, refused or undecided. */
import type { CliCommand } from './command.js';

/** The `observed` subcommand. */
export const observed: CliCommand = {
  name: 'observed',
  help: [
    '  gate-audit observed <traces...>               which tool calls in OTLP JSON traces were decided, refused or undecided',
  ],
  textOnly: false,
  run: async (argv, { streams, cwd }) => (await import('./observed-command.js')).observedCommand(argv, streams, cwd),
};
