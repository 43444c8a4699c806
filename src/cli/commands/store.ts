/** `gate-audit store migrate --store <url>`: create or upgrade the PostgreSQL schema (an admin role). */
import { storeCommand } from '../store-commands.js';
import type { CliCommand } from './command.js';

/** The `store` subcommand. */
export const store: CliCommand = {
  name: 'store',
  help: ['  gate-audit store migrate --store <url>        create or upgrade the PostgreSQL schema (an admin role)'],
  textOnly: true,
  run: async (argv, { streams, cwd }) => await storeCommand(argv, streams, cwd),
};
