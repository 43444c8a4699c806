/** `gate-audit store migrate --store <url>`: create or upgrade the PostgreSQL schema (an admin role). */
import type { CliCommand } from './command.js';

/** The `store` subcommand. */
export const store: CliCommand = {
  name: 'store',
  help: ['  gate-audit store migrate --store <url>        create or upgrade the PostgreSQL schema (an admin role)'],
  textOnly: true,
  run: async (argv, { streams, cwd }) => (await import('./store-commands.js')).storeCommand(argv, streams, cwd),
};
