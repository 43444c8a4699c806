/**
 * `git`: most of its subcommands may read standard input (`git apply`, `git commit` with an editor, hooks,
 * `--stdin`), which the persistent bash tool's script is; the few listed here never do, after global options
 * that are read here too. What git runs (hooks, pagers, gpg) is for the policy's rules on its words.
 */
import type { ProgramFamily } from './specs.js';

/** git subcommands that never read standard input. */
export const GIT_NO_INPUT: ReadonlySet<string> = new Set([
  'status',
  'log',
  'diff',
  'show',
  'branch',
  'rev-parse',
  'ls-files',
]);

/** git global options that take no value. */
export const GIT_GLOBAL_FLAGS: ReadonlySet<string> = new Set(['-P', '-p', '--no-pager', '--paginate', '--bare']);

/**
 * `git [global options] SUBCOMMAND …` with a subcommand that never reads standard input.
 *
 * @param args - git's words, all literal
 * @returns whether git leaves standard input alone
 */
export function gitLeavesInput(args: readonly string[]): boolean {
  if (args.some((a) => a.startsWith('--std'))) return false;
  for (let i = 0; i < args.length; i += 1) {
    const word = args[i] ?? '';
    if (word === '-C' || word === '-c') i += 1;
    else if (/^--[a-z-]+=/.test(word) || GIT_GLOBAL_FLAGS.has(word)) continue;
    else return GIT_NO_INPUT.has(word);
  }
  return true;
}

/** `git`. */
export const git: ProgramFamily = {
  title: 'git',
  summary: `reads standard input except for the subcommands ${[...GIT_NO_INPUT].map((s) => `\`${s}\``).join(', ')} (after global options, without \`--stdin\`).`,
  inputRules: { git: gitLeavesInput },
};
