/**
 * `find`: it runs the command between an exec action and its `;` or `+` once per file found, so that command is
 * a part of its own with more operands (`{}` words unknown). Any word that is not a literal makes `find` opaque:
 * an action could hide in it.
 */
import type { ProgramFamily, WrapperSpec } from './specs.js';

/** The actions that run a command: `-exec CMD… ;` (or `+`), and the same in the file's directory or after asking. */
export const FIND_ACTIONS: readonly string[] = ['-exec', '-execdir', '-ok', '-okdir'];

/** `find` as a wrapper (its actions are read in `analyze.ts`). */
export const FIND: Readonly<Record<string, WrapperSpec>> = {
  find: { kind: 'find' },
};

/** `find`. */
export const find: ProgramFamily = {
  title: 'find',
  summary: `the command of each action (${FIND_ACTIONS.map((a) => `\`${a}\``).join(', ')}) up to its \`;\` or \`+\` is a part of its own with more operands; words that are not literals make it opaque.`,
  wrappers: FIND,
};
