/**
 * Programs that never read standard input, whatever their words (`ls`, `mkdir`, `stat`, …). For the persistent
 * bash tool, whose script is that input, a line may go on after them. Not `date` (`-f -`), `hostname` (`-F`),
 * `du` (`--files0-from=-`): each of those reads its input given an option. Builtins and wrappers that never read
 * it are listed with their families.
 */
import type { ProgramFamily } from './specs.js';

/** Programs that never read standard input. */
export const noInput: ProgramFamily = {
  title: 'Programs that never read standard input',
  summary: 'a line may go on after them in the persistent bash tool, whose script is that input.',
  noInput: [
    'ls',
    'mkdir',
    'touch',
    'whoami',
    'id',
    'uname',
    'sleep',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'stat',
    'df',
    'which',
    'mktemp',
    'seq',
    'nproc',
  ],
};
