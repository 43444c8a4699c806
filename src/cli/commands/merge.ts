/** `gate-audit merge <report.json...>`: join the JSON reports of several jobs or shards into one. */
import type { CliCommand } from './command.js';

/** The `merge` subcommand. */
export const merge: CliCommand = {
  name: 'merge',
  help: ['  gate-audit merge <report.json...>             join the JSON reports of several jobs or shards into one'],
  textOnly: false,
  run: async (argv, { streams, cwd }) => (await import('./merge-command.js')).mergeCommand(argv, streams, cwd),
};
