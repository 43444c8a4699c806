/**
 * Words: the pieces a shell word is made of, read as bash (or dash) reads them in each place a word occurs. Quoting
 * changes with the place: a `'` quotes in a command word but is a plain character in double quotes and here-document
 * bodies, and inside `${…}` it depends on the dialect and on whether the `${…}` itself is quoted. Where bash's
 * reading of a piece is not certain (an expansion inside an extended glob, `\"` in backquotes outside double quotes
 * and command words), the reader refuses the line instead of guessing.
 */
import type { CmdSubst, ExtGlob, ParamExp, Stmt, Word, WordPart } from './nodes.js';
import { unescapeBackquoted } from './backquotes.js';
import { OP } from './nodes.js';
import {
  AT,
  BACKQUOTE,
  BACKSLASH,
  BANG,
  DOLLAR,
  DQUOTE,
  EOF,
  GT,
  isBreak,
  isDigit,
  isNameChar,
  isNameStart,
  isSpecialParam,
  LBRACE,
  LBRACK,
  LPAREN,
  LT,
  NL,
  PIPE,
  PLUS,
  QUEST,
  RBRACE,
  RBRACK,
  RPAREN,
  Scanner,
  SLASH,
  SQUOTE,
  STAR,
  TAB,
  SPACE,
} from './scanner.js';

/** A command word: ends at a blank or an operator. */
export const UNQUOTED = 0;
/** The right side of `=~` in `[[ ]]`: `|` is a character, `( … )` a group that may hold blanks. */
export const REGEX = 1;
/** Inside `"…"`. */
export const DQUOTED = 2;
/** A here-document body: like double quotes, but `"` is a plain character. */
export const HEREDOC = 3;
/** The word of a `${x-word}`-style expansion: ends at `}`. */
export const BRACE = 4;
/** The pattern of `${x/pattern/string}`: ends at `/` or `}`. */
export const BRACE_PATTERN = 5;
/** An array subscript (`a[…]=`, `${a[…]}`): ends at its `]`. */
export const SUBSCRIPT = 6;
/** An arithmetic operand: ends at a blank, an operator or a parenthesis. */
export const ARITHMETIC = 7;

/** ASCII characters that never start a piece nor end a command word (1): letters, digits, most punctuation. */
const PLAIN_UNQUOTED = plainTable('\\\'"$`<>@*+?!()|&; \t\n');
/** The same inside double quotes or a here-document body. */
const PLAIN_QUOTED = plainTable('\\"$`');

function plainTable(special: string): Uint8Array {
  const table = new Uint8Array(128).fill(1);
  for (const c of special) table[c.charCodeAt(0)] = 0;
  return table;
}

/** The characters that end an arithmetic operand (operators, parentheses and what may close the expression). */
const ARITH_ENDS = new Set('+-*/%<>=!~&|^?:,();}]'.split('').map((c) => c.charCodeAt(0)));

/**
 * Reads words and their pieces. The constructs a word may hold that are read by later layers (statements inside
 * `$( )`, `${…}`, arithmetic) are abstract here.
 */
export abstract class WordReader extends Scanner {
  /** The constructs read so far by where they start, with where they end (see `once`). */
  private readonly _readAt = new Map<number, { part: WordPart; end: number }>();

  /** `${…}`: `this.pos` is at its `{`; returns with `this.pos` after its `}`. */
  abstract braced(quoted: boolean): ParamExp;
  /** `$((…))`, or `$( (…) )` when bash reads it so: `this.pos` at the second `(`. */
  abstract dollarParens(): WordPart;
  /** `$[…]`: `this.pos` after the `[`. */
  abstract bracketArithmetic(): WordPart;
  /** Statements up to a `)`, which is read too (`$( … )`, `<( … )`). */
  abstract nestedStatements(): Stmt[];
  /** A whole script read on its own (the text of a backquoted command once bash removed its escapes). */
  abstract script(text: string, base: number): readonly Stmt[];

  /** A word of the given kind, from `this.pos`; it may have no parts (nothing there to read). */
  word(kind: number, quoted = false): Word {
    return { type: 'Word', Parts: this.parts(kind, quoted) };
  }

  /**
   * The pieces of a word from `this.pos` up to what ends a word of this kind (left unread).
   *
   * @param kind - where the word is (UNQUOTED, DQUOTED, …)
   * @param quoted - for BRACE and BRACE_PATTERN: whether the `${…}` is inside double quotes or a here-document
   */
  parts(kind: number, quoted: boolean): WordPart[] {
    const out: WordPart[] = [];
    let p = this.skipJoins(this.pos);
    let lit = p;
    let depth = 0;
    // Plain characters, the most of any word, are skipped in a tight loop; a word kind without one (UNQUOTED is
    // kind 0, DQUOTED 2, HEREDOC 3) takes every character through the loop below.
    const plain = kind === UNQUOTED ? PLAIN_UNQUOTED : kind === DQUOTED || kind === HEREDOC ? PLAIN_QUOTED : undefined;
    const src = this.src;
    for (;;) {
      if (plain !== undefined) {
        const limit = this.limit;
        for (let d = src.charCodeAt(p); p < limit && (d >= 128 || plain[d] === 1); d = src.charCodeAt(p)) p += 1;
      }
      const c = this.at(p);
      if (c === EOF) break;
      if (c === BACKSLASH) {
        // A backslash ending the text joins it to whatever the shell reads next (the bash tool's own next line).
        if (p + 1 === this.src.length) this.fail('a backslash at the end of the line (it joins the line to the next)');
        // An escaped character (or a line join) stays in the literal: the walk removes the backslash.
        p = this.at(p + 1) === EOF ? p + 1 : this.skipJoins(p + 2);
        continue;
      }
      let part: WordPart | undefined;
      const start = p;
      this.pos = p;
      if ((c === LT || c === GT) && this.at(this.step(p)) === LPAREN) {
        // `<(…)` anywhere in a command word is a process substitution in bash (`a<(ls)` too), not a redirection.
        if (kind === UNQUOTED && this.bash) part = this.once(p, () => this.processSubstitution(c));
        else if (kind === BRACE || kind === BRACE_PATTERN)
          this.fail('a process substitution inside ${…} (bash may run it)');
      }
      if (part === undefined && this.ends(kind, c, depth)) break;
      switch (part === undefined ? c : EOF) {
        case SQUOTE:
          part = this.singleQuote(kind, quoted);
          break;
        case DQUOTE:
          if (kind !== DQUOTED && kind !== HEREDOC) part = this.doubleQuote(false);
          break;
        case DOLLAR:
          part = this.dollar(kind, quoted);
          break;
        case BACKQUOTE:
          part = this.once(p, () => this.backquote(kind, quoted));
          break;
        case AT:
        case STAR:
        case PLUS:
        case QUEST:
        case BANG:
          if (kind === UNQUOTED && this.bash && this.at(this.step(p)) === LPAREN) part = this.extglob(c);
          break;
        case LPAREN:
          if (kind === REGEX) depth += 1;
          break;
        case RPAREN:
          if (kind === REGEX) depth -= 1;
          break;
        case LBRACK:
          if (kind === SUBSCRIPT || kind === ARITHMETIC) depth += 1;
          break;
        case RBRACK:
          if (kind === SUBSCRIPT || kind === ARITHMETIC) depth -= 1;
          break;
        default:
          break;
      }
      if (part === undefined) {
        // A plain character, or a quote that only hides characters: `this.pos` is on the last one it took.
        p = this.step(this.pos);
        continue;
      }
      if (start > lit) out.push({ type: 'Lit', Value: this.src.slice(lit, start) });
      out.push(part);
      p = this.skipJoins(this.pos);
      lit = p;
    }
    if (p > lit) out.push({ type: 'Lit', Value: this.src.slice(lit, p) });
    this.pos = p;
    return out;
  }

  /**
   * A command substitution (or other construct holding commands) starting at `start`, read once: bash decides
   * between `$((…))` and `$( (…) )` by reading ahead, so a construct inside may be reached twice, and reading it again
   * each time would take time exponential in how deeply such constructs nest. A construct that leaves here-documents
   * pending is read again (its here-documents must be registered where it is finally read).
   */
  private once(start: number, read: () => WordPart): WordPart {
    const known = this._readAt.get(start);
    if (known !== undefined) {
      this.pos = known.end;
      return known.part;
    }
    const pending = this.pending.length;
    const part = read();
    if (this.pending.length === pending) this._readAt.set(start, { part, end: this.pos });
    return part;
  }

  /** Whether `c` ends a word of this kind here. */
  private ends(kind: number, c: number, depth: number): boolean {
    switch (kind) {
      case UNQUOTED:
        return isBreak(c);
      case REGEX:
        // `|` is a character of the regular expression; blanks and operators end it outside a group.
        if (depth > 0) return false;
        return c !== PIPE && c !== LPAREN && isBreak(c);
      case DQUOTED:
        return c === DQUOTE;
      case HEREDOC:
        return false;
      case BRACE:
        return c === RBRACE;
      case BRACE_PATTERN:
        return c === RBRACE || c === SLASH;
      case SUBSCRIPT:
        return c === RBRACK && depth === 0;
      default:
        // ARITHMETIC: brackets are a subscript, in which parentheses are refused (bash counts them, we would not).
        if (depth > 0) {
          if (c === LPAREN || c === RPAREN) this.fail('a parenthesis inside an arithmetic subscript');
          return false;
        }
        return c === SPACE || c === TAB || c === NL || ARITH_ENDS.has(c);
    }
  }

  /** `'…'` where it quotes; `undefined` where `'` is a plain character. */
  private singleQuote(kind: number, quoted: boolean): WordPart | undefined {
    if (kind === DQUOTED || kind === HEREDOC) return undefined;
    if (kind === UNQUOTED || kind === REGEX || (!quoted && (kind === BRACE || kind === BRACE_PATTERN))) {
      const start = this.pos + 1;
      const end = this.src.indexOf("'", start);
      if (end === -1 || end >= this.limit) this.fail('a single quote is not closed');
      this.pos = end + 1;
      return { type: 'SglQuoted', Value: this.src.slice(start, end), Dollar: false };
    }
    if ((kind === BRACE || kind === BRACE_PATTERN) && !this.bash) {
      if (this.ksh) this.fail('a single quote inside a quoted ${…} in a ksh script');
      return undefined;
    }
    // Inside a quoted `${…}` (bash), a subscript or arithmetic: the quotes only hide what ends the construct; what is
    // inside is still expanded, so a quoted `$` or backquote is refused.
    this.skipLiteralQuote(this.pos + 1);
    return undefined;
  }

  /** Skips the text of a quote that hides characters but not expansions; refuses one holding `$` or a backquote. */
  private skipLiteralQuote(start: number): void {
    const end = this.src.indexOf("'", start);
    if (end === -1 || end >= this.limit) this.fail('a single quote is not closed');
    const inside = this.src.slice(start, end);
    if (inside.includes('$') || inside.includes('`')) {
      this.fail('an expansion inside single quotes where bash still expands it (a subscript, arithmetic, or "${…}")');
    }
    // Leave the position on the closing quote: the caller steps over it as a plain character.
    this.pos = end;
  }

  /** `"…"` (`$"…"` when `dollar`): `this.pos` at the quote. */
  doubleQuote(dollar: boolean): WordPart {
    this.pos += 1;
    const parts = this.parts(DQUOTED, true);
    if (this.at(this.pos) !== DQUOTE) this.fail('a double quote is not closed');
    this.pos += 1;
    return { type: 'DblQuoted', Parts: parts, Dollar: dollar };
  }

  /** What starts with `$` at `this.pos`: an expansion, a quote, or `undefined` for a plain `$`. */
  private dollar(kind: number, quoted: boolean): WordPart | undefined {
    const start = this.pos;
    const next = this.step(start);
    const c = this.at(next);
    switch (c) {
      case LBRACE:
        this.pos = next;
        // A `${…}` inside another takes its quoting; inside double quotes, a body or arithmetic it is quoted.
        return this.braced(kind === BRACE || kind === BRACE_PATTERN ? quoted : kind !== UNQUOTED && kind !== REGEX);
      case LPAREN:
        return this.once(start, () => {
          const after = this.step(next);
          this.pos = after;
          if (this.at(after) === LPAREN) return this.dollarParens();
          return { type: 'CmdSubst', Stmts: this.nestedStatements(), Backquotes: false };
        });
      case LBRACK:
        if (!this.bash) return undefined;
        this.pos = this.step(next);
        return this.bracketArithmetic();
      case SQUOTE:
      case DQUOTE:
        return this.dollarQuote(kind, quoted, next, c);
      default:
        break;
    }
    if (isNameStart(c)) {
      let end = this.step(next);
      while (isNameChar(this.at(end))) end = this.step(end);
      this.pos = end;
      return shortParam(this.cooked(next, end));
    }
    if (isDigit(c) || isSpecialParam(c)) {
      this.pos = this.step(next);
      return shortParam(String.fromCharCode(c));
    }
    return undefined;
  }

  /** `$'…'` and `$"…"`: quotes in bash where a quote starts a string; a `$` and a quote elsewhere. */
  private dollarQuote(kind: number, quoted: boolean, next: number, c: number): WordPart | undefined {
    if (this.ksh) this.fail('$\'…\' or $"…" in a ksh script');
    if (!this.bash || kind === DQUOTED || kind === HEREDOC) return undefined;
    if (kind === SUBSCRIPT || kind === ARITHMETIC) this.fail('$\'…\' or $"…" inside a subscript or arithmetic');
    const braced = kind === BRACE || kind === BRACE_PATTERN;
    if (c === DQUOTE) {
      this.pos = next;
      return this.doubleQuote(true);
    }
    if (braced && quoted) {
      // bash's extquote: $'…' quotes inside "${…}" too; what it holds is refused if it could expand.
      this.skipLiteralQuote(next + 1);
      return undefined;
    }
    // `\'` does not end a $'…' string.
    let end = next + 1;
    for (let d = this.at(end); d !== SQUOTE; d = this.at(end)) {
      if (d === EOF) this.fail("a $'…' string is not closed");
      end += d === BACKSLASH ? 2 : 1;
    }
    this.pos = end + 1;
    return { type: 'SglQuoted', Value: this.src.slice(next + 1, end), Dollar: true };
  }

  /**
   * A backquoted command: `this.pos` at the opening backquote. Bash ends it at the first backquote not escaped,
   * removes the backslashes before `$`, a backquote and `\` (and before `"` inside double quotes), and reads what is
   * left as a script of its own.
   */
  private backquote(kind: number, quoted: boolean): CmdSubst {
    const start = this.pos + 1;
    let end = start;
    for (let c = this.at(end); c !== BACKQUOTE; c = this.at(end)) {
      if (c === EOF) this.fail('a backquote is not closed');
      end += c === BACKSLASH ? 2 : 1;
    }
    this.pos = end + 1;
    const raw = this.src.slice(start, end);
    const inDoubleQuotes = kind === DQUOTED;
    const unsure =
      kind === HEREDOC ||
      kind === SUBSCRIPT ||
      kind === ARITHMETIC ||
      (quoted && (kind === BRACE || kind === BRACE_PATTERN));
    if (unsure && raw.includes('\\"')) {
      this.fail('\\" inside backquotes here (whether bash removes the backslash first is not certain)');
    }
    const text = unescapeBackquoted(raw, inDoubleQuotes);
    this.enter();
    const stmts = this.script(text, this.offset(start));
    this.leave();
    return { type: 'CmdSubst', Stmts: stmts, Backquotes: true };
  }

  /** `<(…)` or `>(…)`: `this.pos` at `<` or `>`. */
  private processSubstitution(c: number): WordPart {
    this.pos = this.step(this.step(this.pos));
    return { type: 'ProcSubst', Op: c === LT ? OP.procIn : OP.procOut, Stmts: this.nestedStatements() };
  }

  /**
   * An extended glob `@(…)` (bash reads it so with `extglob` on, which a line before may have set; with it off, the
   * line does not parse, except `!(…)` at a command's start, which is then `! ( … )`: either way the word is a
   * pattern, so not known, which covers both). An expansion inside it is refused.
   */
  private extglob(c: number): ExtGlob {
    const open = this.step(this.pos);
    let p = open + 1;
    let depth = 1;
    for (;;) {
      const d = this.at(p);
      if (d === EOF) this.fail('an extended glob is not closed');
      if (d === BACKSLASH) p += 2;
      else if (d === SQUOTE) {
        const end = this.src.indexOf("'", p + 1);
        if (end === -1 || end >= this.limit) this.fail('a single quote is not closed');
        p = end + 1;
      } else if (d === DOLLAR || d === BACKQUOTE) {
        this.fail('an expansion inside an extended glob');
      } else {
        if (d === LPAREN) depth += 1;
        else if (d === RPAREN) {
          depth -= 1;
          if (depth === 0) break;
        }
        p += 1;
      }
    }
    this.pos = p + 1;
    return { type: 'ExtGlob', Op: c, Pattern: { type: 'Lit', Value: this.src.slice(open + 1, p) } };
  }
}

function shortParam(name: string): ParamExp {
  return {
    type: 'ParamExp',
    Short: true,
    Excl: false,
    Length: false,
    Names: 0,
    Param: { type: 'Lit', Value: name },
  };
}
