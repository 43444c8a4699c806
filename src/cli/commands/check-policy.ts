/**
 * `gate-audit check-policy <policy> [module...]`: what a policy says about each agent's tools. The modules it
 * loads run in an audit child, as an audit's do; in that child it runs here.
 */
import type { CliCommand } from './command.js';

/** The `check-policy` subcommand. */
export const checkPolicy: CliCommand = {
  name: 'check-policy',
  help: ["  gate-audit check-policy <policy> [module...]  what a policy says about each agent's tools"],
  textOnly: true,
  run: async (argv, { streams, cwd, context }) => {
    if (context.inChild === true)
      return await (await import('./policy-commands.js')).checkPolicyCommand(argv, streams, cwd);
    const { runCommandSupervised } = await import('../load-supervised.js');
    const done = await runCommandSupervised(
      ['check-policy', ...argv],
      cwd,
      (chunk) => void streams.stderr.write(chunk),
    );
    streams.stdout.write(done.out);
    streams.stderr.write(done.err);
    return done.code;
  },
};
