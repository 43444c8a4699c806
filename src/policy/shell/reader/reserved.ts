/**
 * Bash's reserved words, each a small number (a bit in the set of words that end a list), and which of them dash
 * does not have. A reserved word counts only as the first word of a command, unquoted, as a whole word.
 */

/** `if`; each reserved word is a small number. */
export const IF = 1;
/** `then` */
export const THEN = 2;
/** `else` */
export const ELSE = 3;
/** `elif` */
export const ELIF = 4;
/** `fi` */
export const FI = 5;
/** `do` */
export const DO = 6;
/** `done` */
export const DONE = 7;
/** `case` */
export const CASE = 8;
/** `esac` */
export const ESAC = 9;
/** `while` */
export const WHILE = 10;
/** `until` */
export const UNTIL = 11;
/** `for` */
export const FOR = 12;
/** `in` */
export const IN = 13;
/** `{` */
export const LBRACE_WORD = 14;
/** `}` */
export const RBRACE_WORD = 15;
/** `!` */
export const BANG_WORD = 16;
/** `select` */
export const SELECT = 17;
/** `function` */
export const FUNCTION = 18;
/** `time` */
export const TIME = 19;
/** `coproc` */
export const COPROC = 20;
/** `[[` */
export const OPEN_TEST = 21;
/** `]]` */
export const CLOSE_TEST = 22;

/** Reserved words by their text. */
export const RESERVED: ReadonlyMap<string, number> = new Map([
  ['if', IF],
  ['then', THEN],
  ['else', ELSE],
  ['elif', ELIF],
  ['fi', FI],
  ['do', DO],
  ['done', DONE],
  ['case', CASE],
  ['esac', ESAC],
  ['while', WHILE],
  ['until', UNTIL],
  ['for', FOR],
  ['in', IN],
  ['{', LBRACE_WORD],
  ['}', RBRACE_WORD],
  ['!', BANG_WORD],
  ['select', SELECT],
  ['function', FUNCTION],
  ['time', TIME],
  ['coproc', COPROC],
  ['[[', OPEN_TEST],
  [']]', CLOSE_TEST],
]);
/** Reserved words by their number. */
export const NAMES: ReadonlyMap<number, string> = new Map([...RESERVED].map(([name, id]) => [id, name]));
/** Reserved in bash only: plain words in dash. */
export const BASH_ONLY = new Set([SELECT, FUNCTION, TIME, COPROC, OPEN_TEST, CLOSE_TEST]);
/** The reserved words that start a compound command. */
export const COMPOUND = new Set([LBRACE_WORD, IF, WHILE, UNTIL, FOR, CASE, SELECT, OPEN_TEST]);

/** The set holding one reserved word. */
export function bit(id: number): number {
  return 1 << id;
}
