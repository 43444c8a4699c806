/**
 * A `shell` condition judged on one part of a command line, with three-valued truth: a word that is not
 * known exactly makes a criterion `maybe` (holds for deny and ask, never for allow). On an opaque part
 * that runs code nobody can see every criterion is `maybe`; an allow rule never holds on an opaque part.
 * An allow rule also needs: every environment name the part sets listed in `assigns`, every file it
 * writes (other than `/dev/null`) matched by `writesTo`, and a program path with `/` listed as such.
 */
import { RE2JS } from 're2js';
import { compilePath, normalizePath, type PathTest } from '../paths-urls/file-path.js';
import type { ShellCondition } from '../schema.js';
import { and, MAYBE, NO, or, type Truth, YES } from '../truth.js';
import { basename, type ShellPart } from './analyze.js';

/** A compiled shell condition. */
export type ShellTest = (part: ShellPart, allow: boolean) => Truth;

type Problem = (field: string, message: string) => void;
type WordTest = (word: string | undefined, part: ShellPart) => Truth;

function compilePattern(pattern: string, field: string, problem: Problem): RE2JS | undefined {
  try {
    return RE2JS.compile(pattern);
  } catch (error) {
    problem(
      field,
      `not a pattern that runs in linear time (${error instanceof Error ? error.message : 'invalid'}) | use RE2 syntax: no backreferences or lookaround`,
    );
    return undefined;
  }
}

function wordTest(spec: { matches?: string; path?: PathTestInput }, field: string, problem: Problem): WordTest {
  if (spec.matches !== undefined) {
    const re = compilePattern(spec.matches, `${field}.matches`, problem);
    return (word) => (word === undefined ? MAYBE : re?.test(word) === true ? YES : NO);
  }
  const path: PathTest = compilePath(spec.path ?? {});
  return (word, part) => path.test(word, part.cwdUnknown);
}

type PathTestInput = NonNullable<NonNullable<ShellCondition['args']>['path']>;

/**
 * A written path as the kernel resolves it, lexically (`.`, `..` and `//` resolved), or `undefined` when that is
 * not known: a relative path that climbs above where it starts (`../x`) depends on a working directory the line
 * does not fix.
 */
function lexicalPath(path: string): string | undefined {
  if (path.startsWith('/')) return normalizePath(path);
  if (!/(^|\/)\.{1,2}(\/|$)|\/\//.test(path)) return path;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(segment);
  }
  return out.join('/');
}

/**
 * `writesTo.matches`: a pattern tested on the written path as given and as resolved (`/tmp/../etc/x` is
 * `/etc/x`). A refusing rule holds when either matches; an allowing rule only when both do; a path whose
 * resolution is unknown may match (refuse) and is never proven to (allow).
 */
function writesTest(spec: { matches?: string; path?: PathTestInput }, field: string, problem: Problem): WordTest {
  const test = wordTest(spec, field, problem);
  if (spec.matches === undefined) return test;
  return (word, part) => {
    const raw = test(word, part);
    if (word === undefined) return raw;
    const resolved = lexicalPath(word);
    if (resolved === word) return raw;
    const normal = resolved === undefined ? MAYBE : test(resolved, part);
    // YES only when both are YES; NO only when both are NO; anything else may be.
    return raw === YES && normal === YES ? YES : raw === NO && normal === NO ? NO : MAYBE;
  };
}

/** Whether a word of the part may be a flag: before `--` (for most programs), starting with `-`, not `-` alone. */
interface Words {
  readonly flags: readonly (string | undefined)[];
  readonly operands: readonly (string | undefined)[];
}

const splitCache = new WeakMap<ShellPart, Words>();

function splitWords(part: ShellPart): Words {
  const cached = splitCache.get(part);
  if (cached !== undefined) return cached;
  const words = split(part);
  splitCache.set(part, words);
  return words;
}

/**
 * Programs whose `--` ends only their leading options, not the words that act as flags: find's expression
 * (`-delete`, `-exec`, `-fprint`) goes on after `find -- DIR`.
 */
const NO_END_OF_FLAGS = new Set(['find']);

function split(part: ShellPart): Words {
  const flags: (string | undefined)[] = [];
  const operands: (string | undefined)[] = [];
  let ended = false;
  const ends = part.program === undefined || !NO_END_OF_FLAGS.has(basename(part.program));
  for (const word of part.args) {
    if (ended) operands.push(word);
    else if (word === '--' && ends) ended = true;
    else if (word === undefined) {
      // Not known: it may be a flag or an operand.
      flags.push(undefined);
      operands.push(undefined);
    } else if (word.startsWith('-') && word !== '-') flags.push(word);
    else operands.push(word);
  }
  return { flags, operands };
}

/** Whether one word (a flag) is the listed flag. */
function flagTruth(word: string, flag: string): Truth {
  if (word === flag) return YES;
  if (flag.startsWith('--')) {
    if (!word.startsWith('--')) return NO;
    const name = word.includes('=') ? word.slice(0, word.indexOf('=')) : word;
    // A long option may be abbreviated to any prefix the program accepts.
    return name === flag || (name.length > 2 && flag.startsWith(name)) ? YES : NO;
  }
  if (flag.length === 2 && !word.startsWith('--')) return word.slice(1).includes(flag[1] ?? '') ? YES : NO;
  return NO;
}

function anyFlag(words: Words, part: ShellPart, flags: readonly string[]): Truth {
  let result: Truth = NO;
  for (const word of words.flags) {
    if (word === undefined) result = or(result, MAYBE);
    else for (const flag of flags) result = or(result, flagTruth(word, flag));
    if (result === YES) return YES;
  }
  return part.moreArgs ? or(result, MAYBE) : result;
}

/**
 * The first operand (a subcommand). It is unknown when an option before it may take it as its value: any
 * flag without `=` except those the condition lists, which are taken to have no value.
 */
function firstOperand(part: ShellPart, test: RE2JS | undefined, listed: ReadonlySet<string>): Truth {
  let uncertain = false;
  for (let i = 0; i < part.args.length; i += 1) {
    const word = part.args[i];
    if (word === undefined) return MAYBE;
    if (word === '--') {
      const next = part.args[i + 1];
      if (next === undefined) return i + 1 < part.args.length || part.moreArgs ? MAYBE : NO;
      return uncertain ? MAYBE : test?.test(next) === true ? YES : NO;
    }
    if (word.startsWith('-') && word !== '-') {
      // An option that may take the next word as its value hides which word is the first operand.
      if (!word.includes('=') && !listed.has(word)) uncertain = true;
      continue;
    }
    if (uncertain) return MAYBE;
    return test?.test(word) === true ? YES : NO;
  }
  return part.moreArgs ? MAYBE : NO;
}

/**
 * Compiles a shell condition.
 *
 * @param spec - the validated condition
 * @param field - where it is in the policy, for problems
 * @param problem - reports a pattern that cannot be compiled
 */
export function compileShell(spec: ShellCondition, field: string, problem: Problem): ShellTest {
  const programs = spec.program ?? [];
  const names = new Set(programs.map((p) => basename(p)));
  const paths = new Set(programs.filter((p) => p.includes('/')).map((p) => normalizePath(p) ?? p));
  const assigns = new Set(spec.assigns ?? []);
  const args = spec.args;
  const argsTest =
    args === undefined || args.first !== undefined ? undefined : wordTest(args, `${field}.args`, problem);
  const first = args?.first === undefined ? undefined : compilePattern(args.first, `${field}.args.first`, problem);
  const writes = spec.writesTo === undefined ? undefined : writesTest(spec.writesTo, `${field}.writesTo`, problem);
  const listed = new Set([...(spec.anyFlag ?? []), ...(spec.allFlags ?? [])]);

  return (part, allow) => {
    if (part.opaque !== undefined) {
      if (allow) return NO;
      if (part.opaque.kind === 'code') return MAYBE;
    }
    if (allow) {
      // Prove allow: nothing the part does may go beyond what the rule lists.
      if (part.assigns.some((name) => !assigns.has(name))) return NO;
      if (part.program?.includes('/') === true) {
        const normal = normalizePath(part.program);
        if (normal === undefined || !paths.has(normal) || part.cwdUnknown) return NO;
      }
      const written = part.writes.filter((w) => w !== '/dev/null');
      if (written.length > 0 && writes === undefined) return NO;
    }
    let result: Truth = YES;
    if (programs.length > 0) {
      if (part.program === undefined) return NO;
      const name = basename(part.program);
      result = and(result, allow && part.program.includes('/') ? YES : names.has(name) ? YES : NO);
      if (result === NO) return NO;
    }
    const words = splitWords(part);
    if (spec.anyFlag !== undefined) result = and(result, anyFlag(words, part, spec.anyFlag));
    if (spec.allFlags !== undefined) {
      for (const flag of spec.allFlags) result = and(result, anyFlag(words, part, [flag]));
    }
    if (result === NO) return NO;
    if (args?.first !== undefined) result = and(result, firstOperand(part, first, listed));
    else if (argsTest !== undefined) {
      // Deny and ask: some operand matches. Allow: every operand does.
      let some: Truth = NO;
      let every: Truth = YES;
      // A file read through `< FILE` is read as an operand would be (`cat < /etc/shadow` reads /etc/shadow).
      for (const operand of [...words.operands, ...part.reads]) {
        const t = argsTest(operand, part);
        some = or(some, t);
        every = and(every, t);
      }
      if (part.moreArgs) {
        some = or(some, MAYBE);
        every = and(every, MAYBE);
      }
      result = and(result, allow ? every : some);
    }
    if (writes !== undefined) {
      let some: Truth = NO;
      let every: Truth = YES;
      for (const target of part.writes) {
        const t = writes(target, part);
        some = or(some, t);
        if (!allow || target !== '/dev/null') every = and(every, t);
      }
      result = and(result, allow ? every : some);
    }
    if (!allow && spec.assigns !== undefined) result = and(result, part.assigns.some((n) => assigns.has(n)) ? YES : NO);
    return result;
  };
}
