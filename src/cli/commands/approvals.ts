/** `gate-audit approvals …`: make approver keys; answer pending approvals from any process. */
import type { CliCommand } from './command.js';

/** The `approvals` subcommand. */
export const approvals: CliCommand = {
  name: 'approvals',
  help: [
    '  gate-audit approvals keygen|list|show|approve|deny|watch --store <url> --key <file>',
    '                                                make approver keys; answer pending approvals from any process',
  ],
  textOnly: true,
  run: async (argv, { streams, cwd, context }) =>
    (await import('./approvals-command.js')).approvalsCommand(argv, streams, cwd, {
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    }),
};
