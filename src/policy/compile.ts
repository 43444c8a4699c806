/**
 * The rules engine: a validated policy compiled once into matchers, indexed by tool name, and decided
 * in time linear in the input.
 *
 * - Regular expressions (`matches`) and globs run on RE2 (`re2js`): matching is linear in the input, so no
 *   pattern can make a decision take super-linear time; patterns RE2 cannot run in linear time
 *   (backreferences, lookaround) are refused when the policy is loaded. Globs match every character,
 *   newlines included.
 * - Input is read through own data properties only, so keys such as `__proto__` or `constructor` are plain
 *   data, never the prototype chain, and no getter ever runs.
 * - Conditions are three-valued (see `truth.ts`): an argument that is present with the wrong type, a shell
 *   word or a path that is not known exactly, holds for deny and ask rules and never for allow rules.
 * - A call whose rules have `shell` conditions is judged once per part of its command line; the most
 *   restrictive verdict wins.
 * - Path rules hold conservatively over every place the calling agent may be running at.
 * - Rules naming exact tools sit in a map by name; only rules with wildcard tool globs are tested on every
 *   name, and the merged, ordered candidate list is cached per tool name.
 */
import { RE2JS } from 're2js';
import type { Decision, ToolCallRequest, Verdict } from '../enforce/gate.js';
import { messageOf, type PolicyIssue } from '../errors.js';
import { joinPath } from '../tree-paths.js';
import { compilePath } from './paths-urls/file-path.js';
import { compileUrl } from './paths-urls/url.js';
import { OPERATORS, type Policy, type PolicyCondition, type PolicyRule } from './schema.js';
import { analyzeShell, basename, type ShellPart } from './shell/analyze.js';
import { compileShell } from './shell/condition.js';
import type { Dialect } from './shell/syntax.js';
import { holds, MAYBE, NO, type Truth, truth } from './truth.js';

/** How restrictive each verdict is: the most restrictive matching rule decides. */
const SEVERITY: Record<Verdict, number> = { deny: 2, ask: 1, allow: 0 };

const MAX_CACHED_TOOLS = 1024;
/** Most combinations of parts judged for one call (several shell arguments multiply). */
const MAX_COMBINATIONS = 4096;

/** What reading an argument found. */
export type ArgumentRead =
  | { readonly kind: 'absent' }
  | { readonly kind: 'wrong'; readonly why: string }
  | { readonly kind: 'value'; readonly value: unknown };

const ABSENT: ArgumentRead = { kind: 'absent' };

/**
 * Reads a dotted path through own data properties of objects and arrays. The argument is absent only when
 * its first segment is; past that, anything that is not a plain step (a getter, a missing key, a scalar in
 * the middle, an array step that is not an index) is present with the wrong type.
 *
 * @param input - the call's input
 * @param path - the segments of `arg`
 */
export function readArgument(input: unknown, path: readonly string[]): ArgumentRead {
  let value: unknown = input;
  for (const [depth, key] of path.entries()) {
    const miss: ArgumentRead = depth === 0 ? ABSENT : { kind: 'wrong', why: `no plain value at "${key}"` };
    if (typeof value !== 'object' || value === null) return miss;
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(key) || Number(key) >= value.length) {
        return depth === 0 ? ABSENT : { kind: 'wrong', why: `an array where "${key}" was expected` };
      }
    } else if (!Object.hasOwn(value, key)) return miss;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined) return miss;
    if (!('value' in descriptor)) return { kind: 'wrong', why: `"${key}" is a getter` }; // never run a getter
    value = descriptor.value as unknown;
  }
  return { kind: 'value', value };
}

/**
 * Reads a dotted path; `undefined` when absent or not a plain value.
 *
 * @param input - the call's input
 * @param path - the segments of `arg`
 */
export function readArg(input: unknown, path: readonly string[]): unknown {
  const read = readArgument(input, path);
  return read.kind === 'value' ? read.value : undefined;
}

interface CompiledCondition {
  readonly arg: readonly string[];
  /** `arg` as written. */
  readonly argText: string;
  readonly text: string;
  /** For shell and shellOpaque conditions: the dialect written, if any. */
  readonly shell?: { readonly dialect: Dialect | undefined };
  /** The truth of the condition for what was read (and, for shell conditions, the part judged). */
  test(read: ArgumentRead, allow: boolean, part: ShellPart | undefined): Truth;
}

/** One compiled rule. */
export interface CompiledRule {
  /** The rule as written. */
  readonly rule: PolicyRule;
  /** Its position in the policy (earlier wins among rules of the same verdict). */
  readonly order: number;
  /** Whether its verdict depends on the input (it has `when` conditions). */
  readonly conditional: boolean;
  /** Its conditions that judge a shell line. */
  readonly shellConditions: readonly { readonly arg: string; readonly dialect: Dialect | undefined }[];
  /**
   * Program basenames one of its shell conditions requires (a quick test that skips the rule for a part
   * whose program is known to be another; `undefined` when no condition names programs).
   */
  readonly programs: ReadonlySet<string> | undefined;
  matchesTool(name: string): boolean;
  /** Whether its `paths:` hold at these places (joined paths), conservatively for its verdict. */
  matchesPlaces(places: readonly string[]): boolean;
  /** Whether its conditions hold for this input (and these parts, for shell conditions). */
  matchesInput(
    input: unknown,
    parts?: ReadonlyMap<string, ShellPart | undefined>,
    toolName?: string,
    reads?: Map<string, ArgumentRead>,
  ): boolean;
}

/** The static verdict of a tool at a path: what the policy says before seeing the input. */
export interface StaticVerdict {
  /** The verdict when it does not depend on the input; `depends` when a conditional rule could change it. */
  readonly verdict: Verdict | 'depends';
  /** The rule that decides (or `default`), for a fixed verdict; the fallback's rule for `depends`. */
  readonly rule: string;
  /** For `depends`: the conditional rules that could decide, most restrictive first. */
  readonly conditional: readonly { readonly rule: string; readonly verdict: Verdict }[];
  /** For `depends`: the verdict when none of the conditional rules match. */
  readonly otherwise?: Verdict;
}

/** A compiled policy: decides calls, and says what it would decide for a tool before any input is known. */
export interface CompiledPolicy {
  /** The validated policy, presets resolved. */
  readonly policy: Policy;
  /** For each rule that came from a preset, the preset's name. */
  readonly origins: ReadonlyMap<string, string>;
  /** Decides one call. */
  decide(
    request: Pick<ToolCallRequest, 'toolName' | 'input'> & Partial<Pick<ToolCallRequest, 'path' | 'paths'>>,
  ): Decision;
  /**
   * The verdict for a tool when it does not depend on the input, for an agent that may run at any of
   * `places` (path rules hold conservatively, as in `decide`).
   */
  staticVerdict(toolName: string, places: readonly (readonly string[])[]): StaticVerdict;
  /** The compiled rules in policy order. */
  readonly rules: readonly CompiledRule[];
}

/** Escapes a literal for RE2. */
function quote(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

/** `*` any run of characters, `?` one character; the rest is literal. */
function toolGlobSource(glob: string): string {
  return `^${[...glob].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : quote(c))).join('')}$`;
}

/**
 * Path globs over segments joined with `/`: `**` (a whole segment) is zero or more segments, `*` any run
 * within a segment, `?` one character within a segment.
 */
function pathGlobSource(glob: string): string | { error: string } {
  const segments = glob.split('/');
  let source = '';
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    if (segment === '**') {
      source += last ? (index === 0 ? '.*' : '(?:/.*)?') : index === 0 ? '(?:[^/]+/)*' : '(?:/[^/]+)*/';
      continue;
    }
    if (segment.includes('**')) return { error: '"**" must be a whole path segment, as in "pipeline/**"' };
    const body = [...segment].map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : quote(c))).join('');
    const previous = segments[index - 1];
    source += index === 0 || previous === '**' ? body : `/${body}`;
  }
  return `^${source}$`;
}

/** Compiles a glob's RE2 source so that `.` matches every character, newlines included. */
function globPattern(source: string): RE2JS {
  return RE2JS.compile(source, RE2JS.DOTALL);
}

type Problem = (field: string, message: string) => void;

type JsonType = 'string' | 'number' | 'boolean' | 'null';

function jsonType(value: unknown): JsonType | undefined {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : undefined;
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value as JsonType;
  return undefined;
}

/**
 * The type rule: absent fails the condition; present but of the wrong type (or not finite, or wrapped in
 * an array or object) is `maybe`; of the right type, the operator decides.
 */
function typed(read: ArgumentRead, accepts: (value: unknown) => boolean, judge: (value: never) => Truth): Truth {
  if (read.kind === 'absent') return NO;
  if (read.kind === 'wrong' || !accepts(read.value)) return MAYBE;
  return judge(read.value as never);
}

const isString = (v: unknown): boolean => typeof v === 'string';

function compileCondition(condition: PolicyCondition, field: string, problem: Problem): CompiledCondition {
  const arg = condition.arg.split('.');
  const op = OPERATORS.find((o) => condition[o] !== undefined);
  const text = `${condition.arg} ${op ?? '?'} ${JSON.stringify(op === undefined ? null : condition[op])}`;
  const argText = condition.arg;
  const is = (test: CompiledCondition['test']): CompiledCondition => ({ arg, argText, text, test });
  switch (op) {
    case 'matches': {
      const pattern = condition.matches ?? '';
      try {
        const re = RE2JS.compile(pattern);
        return is((read) => typed(read, isString, (v: string) => truth(re.test(v))));
      } catch (error) {
        const why = messageOf(error);
        problem(
          `${field}.matches`,
          `not a pattern that runs in linear time (${why}) | use RE2 syntax: no backreferences or lookaround`,
        );
        return is(() => NO);
      }
    }
    case 'equals': {
      const expected = condition.equals;
      const type = jsonType(expected);
      return is((read) =>
        typed(
          read,
          (v) => jsonType(v) === type,
          (v: unknown) => truth(v === expected),
        ),
      );
    }
    case 'in': {
      const options = condition.in ?? [];
      const types = new Set(options.map(jsonType));
      return is((read) =>
        typed(
          read,
          (v) => types.has(jsonType(v)),
          (v: unknown) => truth(options.some((o) => o === v)),
        ),
      );
    }
    case 'contains': {
      const needle = condition.contains;
      const type = jsonType(needle);
      const accepts = (v: unknown): boolean =>
        (type === 'string' && typeof v === 'string') || (Array.isArray(v) && v.every((e) => jsonType(e) === type));
      return is((read) =>
        typed(read, accepts, (v: string | unknown[]) =>
          truth(typeof v === 'string' ? v.includes(needle as string) : v.some((e) => e === needle)),
        ),
      );
    }
    case 'startsWith': {
      const prefix = condition.startsWith ?? '';
      return is((read) => typed(read, isString, (v: string) => truth(v.startsWith(prefix))));
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte': {
      const bound = condition[op] ?? 0;
      const compare = {
        lt: (n: number) => n < bound,
        lte: (n: number) => n <= bound,
        gt: (n: number) => n > bound,
        gte: (n: number) => n >= bound,
      }[op];
      return is((read) =>
        typed(
          read,
          (v) => typeof v === 'number' && Number.isFinite(v),
          (v: number) => truth(compare(v)),
        ),
      );
    }
    case 'path': {
      const path = compilePath(condition.path ?? {});
      return is((read) => typed(read, isString, (v: string) => path.test(v)));
    }
    case 'url': {
      const url = compileUrl(condition.url ?? {});
      if ('invalid' in url) {
        problem(
          `${field}.url.hosts`,
          `"${url.invalid}" is not a host name | write a host such as "api.example.com" or "*.example.org"`,
        );
        return is(() => NO);
      }
      return is((read) => typed(read, isString, (v: string) => url.test(v)));
    }
    case 'shell': {
      const shell = compileShell(condition.shell ?? {}, `${field}.shell`, problem);
      return {
        arg,
        argText,
        text,
        shell: { dialect: condition.dialect },
        test: (read, allow, part) => typed(read, isString, () => (part === undefined ? MAYBE : shell(part, allow))),
      };
    }
    case 'shellOpaque': {
      const wanted = condition.shellOpaque === true;
      return {
        arg,
        argText,
        text,
        shell: { dialect: condition.dialect },
        test: (read, _allow, part) =>
          typed(read, isString, () => (part === undefined ? MAYBE : truth((part.opaque !== undefined) === wanted))),
      };
    }
    default:
      // The schema requires exactly one operator; a condition without one never matches.
      return is(() => NO);
  }
}

/** The dialect a shell condition parses in: its own, else `sh` for a tool named `shell`, else bash. */
function dialectOf(dialect: Dialect | undefined, toolName: string): Dialect {
  return dialect ?? (toolName === 'shell' ? 'sh' : 'bash');
}

function shellKey(arg: string, dialect: Dialect): string {
  return `${dialect}\u0000${arg}`;
}

function compileRule(rule: PolicyRule, order: number, problem: Problem): CompiledRule {
  const field = `rules[${order}]`;
  const tools = rule.tools.map((glob) => globPattern(toolGlobSource(glob)));
  const paths = (rule.paths ?? []).map((glob, i) => {
    const source = pathGlobSource(glob);
    if (typeof source === 'string') return globPattern(source);
    problem(`${field}.paths[${i}]`, source.error);
    return RE2JS.compile('$^');
  });
  const conditions = (rule.when ?? []).map((c, i) => compileCondition(c, `${field}.when[${i}]`, problem));
  const allow = rule.verdict === 'allow';
  const matchesPath = (place: string): boolean => paths.some((re) => re.matches(place));
  return {
    rule,
    order,
    conditional: conditions.length > 0,
    programs: (() => {
      const lists = (rule.when ?? []).filter((c) => c.shell?.program !== undefined);
      return lists.length === 0 ? undefined : new Set((lists[0]?.shell?.program ?? []).map(basename));
    })(),
    shellConditions: conditions.flatMap((c) =>
      c.shell === undefined ? [] : [{ arg: c.arg.join('.'), dialect: c.shell.dialect }],
    ),
    matchesTool: (name) => tools.some((re) => re.matches(name)),
    matchesPlaces: (places) => {
      if (paths.length === 0) return true;
      // Refusals hold when any known place matches, or when no place is known; an allowance only when
      // every known place matches, and never when none is known.
      if (allow) return places.length > 0 && places.every(matchesPath);
      return places.length === 0 || places.some(matchesPath);
    },
    matchesInput: (input, parts, toolName = '', reads = new Map<string, ArgumentRead>()) => {
      for (const condition of conditions) {
        const key = condition.argText;
        let read = reads.get(key);
        if (read === undefined) {
          read = readArgument(input, condition.arg);
          reads.set(key, read);
        }
        const part =
          condition.shell === undefined
            ? undefined
            : parts?.get(shellKey(key, dialectOf(condition.shell.dialect, toolName)));
        if (!holds(condition.test(read, allow, part), allow)) return false;
      }
      return true;
    },
  };
}

function isWildcard(glob: string): boolean {
  return glob.includes('*') || glob.includes('?');
}

/** The places a request may be running at, as joined path strings (none when none is known). */
function placesOf(request: Partial<Pick<ToolCallRequest, 'path' | 'paths'>>): string[] {
  const { paths } = request;
  if (!Array.isArray(paths)) return [];
  const out: string[] = [];
  for (const place of paths) {
    if (Array.isArray(place) && place.every((s) => typeof s === 'string')) out.push(joinPath(place));
  }
  return out;
}

const SHORT = 80;

function describePart(part: ShellPart): string {
  const words = [part.program ?? '', ...part.args]
    .map((w) => (w === undefined ? '…' : w))
    .join(' ')
    .trim();
  const shown = words === '' ? '(no program)' : words.length > SHORT ? `${words.slice(0, SHORT - 1)}…` : words;
  return part.opaque === undefined ? shown : `${shown}: opaque, ${part.opaque.reason}`;
}

/**
 * Compiles a validated policy.
 *
 * @param policy - a policy with its presets resolved
 * @param origins - for rules that came from a preset, the preset's name
 * @returns the compiled policy, or the problems found (patterns and globs that cannot be compiled)
 */
export function compilePolicy(
  policy: Policy,
  origins: ReadonlyMap<string, string> = new Map(),
): CompiledPolicy | { issues: PolicyIssue[] } {
  const issues: PolicyIssue[] = [];
  const rules = policy.rules.map((rule, order) =>
    compileRule(rule, order, (field, message) => issues.push({ rule: rule.id, field, message })),
  );
  if (issues.length > 0) return { issues };
  const exact = new Map<string, CompiledRule[]>();
  const wildcard: CompiledRule[] = [];
  for (const rule of rules) {
    if (rule.rule.tools.some(isWildcard)) {
      wildcard.push(rule);
      continue;
    }
    for (const name of new Set(rule.rule.tools)) {
      const list = exact.get(name) ?? [];
      list.push(rule);
      exact.set(name, list);
    }
  }
  interface Candidates {
    readonly rules: readonly CompiledRule[];
    readonly shell: readonly { readonly key: string; readonly arg: string[]; readonly dialect: Dialect }[];
    /**
     * For a part whose program is known, the rules that can match it: those naming its basename and those
     * naming no program (`other`, for basenames no rule names), in the order of `rules`.
     */
    readonly byProgram: ReadonlyMap<string, readonly CompiledRule[]>;
    readonly other: readonly CompiledRule[];
  }
  const byTool = new Map<string, Candidates>();
  const candidates = (name: string): Candidates => {
    const cached = byTool.get(name);
    if (cached !== undefined) return cached;
    const list = [...(exact.get(name) ?? [])];
    for (const rule of wildcard) if (rule.matchesTool(name)) list.push(rule);
    list.sort((a, b) => SEVERITY[b.rule.verdict] - SEVERITY[a.rule.verdict] || a.order - b.order);
    const shell = new Map<string, { key: string; arg: string[]; dialect: Dialect }>();
    for (const rule of list) {
      for (const c of rule.shellConditions) {
        const dialect = dialectOf(c.dialect, name);
        const key = shellKey(c.arg, dialect);
        shell.set(key, { key, arg: c.arg.split('.'), dialect });
      }
    }
    const named = new Set<string>();
    for (const rule of list) for (const program of rule.programs ?? []) named.add(program);
    const byProgram = new Map<string, CompiledRule[]>();
    for (const program of named) {
      byProgram.set(
        program,
        list.filter((rule) => rule.programs === undefined || rule.programs.has(program)),
      );
    }
    const other = list.filter((rule) => rule.programs === undefined);
    const entry = { rules: list, shell: [...shell.values()], byProgram, other };
    if (byTool.size >= MAX_CACHED_TOOLS) byTool.clear();
    byTool.set(name, entry);
    return entry;
  };
  const fallback = (toolName: string): Decision =>
    policy.default === 'allow'
      ? { verdict: 'allow', rule: 'default' }
      : {
          verdict: policy.default,
          reason: `no rule of the policy covers tool "${toolName}" (policy default: ${policy.default})`,
          rule: 'default',
        };
  const decisionOf = (rule: PolicyRule): Decision =>
    rule.verdict === 'allow'
      ? { verdict: 'allow', rule: rule.id }
      : { verdict: rule.verdict, reason: rule.reason ?? `rule "${rule.id}"`, rule: rule.id };
  const judge = (
    candidates: Candidates,
    toolName: string,
    input: unknown,
    places: readonly string[],
    parts?: ReadonlyMap<string, ShellPart | undefined>,
    reads: Map<string, ArgumentRead> = new Map(),
  ): Decision => {
    // With one line, a part whose program is known skips the rules that name only other programs (their
    // shell condition cannot hold on it); a part whose program is not known, or that runs unseen code,
    // meets every rule.
    const only = parts !== undefined && parts.size === 1 ? parts.values().next().value : undefined;
    const program = only?.program !== undefined && only.opaque?.kind !== 'code' ? basename(only.program) : undefined;
    const list = program === undefined ? candidates.rules : (candidates.byProgram.get(program) ?? candidates.other);
    for (const rule of list) {
      if (rule.matchesPlaces(places) && rule.matchesInput(input, parts, toolName, reads)) return decisionOf(rule.rule);
    }
    return fallback(toolName);
  };
  return {
    policy,
    origins,
    rules,
    decide: (request) => {
      const { toolName, input } = request;
      const places = placesOf(request);
      const entry = candidates(toolName);
      const { shell } = entry;
      if (shell.length === 0) return judge(entry, toolName, input, places);
      // Judge once per part of each shell line (per combination when several arguments are lines).
      const lines = shell.map(({ key, arg, dialect }) => {
        const read = readArgument(input, arg);
        const parts: readonly (ShellPart | undefined)[] =
          read.kind === 'value' && typeof read.value === 'string' ? analyzeShell(read.value, dialect) : [undefined];
        return { key, parts };
      });
      const combinations = lines.reduce((n, line) => n * line.parts.length, 1);
      if (combinations > MAX_COMBINATIONS) {
        return {
          verdict: 'deny',
          reason: `the command lines of this call have too many parts to judge (${combinations} combinations)`,
          rule: 'default',
        };
      }
      const reads = new Map<string, ArgumentRead>();
      let worst: { decision: Decision; part: ShellPart | undefined } | undefined;
      const index = lines.map(() => 0);
      for (let n = 0; n < combinations; n += 1) {
        const parts = new Map<string, ShellPart | undefined>();
        lines.forEach((line, i) => parts.set(line.key, line.parts[index[i] ?? 0]));
        const decision = judge(entry, toolName, input, places, parts, reads);
        if (worst === undefined || SEVERITY[decision.verdict] > SEVERITY[worst.decision.verdict]) {
          worst = { decision, part: lines.length === 1 ? parts.get(lines[0]?.key ?? '') : undefined };
          if (decision.verdict === 'deny') break;
        }
        for (let i = 0; i < index.length; i += 1) {
          index[i] = (index[i] ?? 0) + 1;
          if ((index[i] ?? 0) < (lines[i]?.parts.length ?? 0)) break;
          index[i] = 0;
        }
      }
      if (worst === undefined) return fallback(toolName);
      const { decision, part } = worst;
      if (decision.verdict === 'allow' || part === undefined) return decision;
      return { ...decision, reason: `${decision.reason} [part: ${describePart(part)}]` };
    },
    staticVerdict: (toolName, placeList) => {
      const places = placeList.map((p) => joinPath(p));
      const conditional: { rule: string; verdict: Verdict }[] = [];
      for (const rule of candidates(toolName).rules) {
        if (!rule.matchesPlaces(places)) continue;
        if (rule.conditional) {
          // A conditional rule as restrictive as the fixed one cannot change the verdict, only its rule name.
          conditional.push({ rule: rule.rule.id, verdict: rule.rule.verdict });
          continue;
        }
        const changing = conditional.filter((c) => SEVERITY[c.verdict] > SEVERITY[rule.rule.verdict]);
        if (changing.length === 0) return { verdict: rule.rule.verdict, rule: rule.rule.id, conditional: [] };
        return { verdict: 'depends', rule: rule.rule.id, conditional: changing, otherwise: rule.rule.verdict };
      }
      const changing = conditional.filter((c) => c.verdict !== policy.default);
      if (changing.length === 0) return { verdict: policy.default, rule: 'default', conditional: [] };
      return { verdict: 'depends', rule: 'default', conditional: changing, otherwise: policy.default };
    },
  };
}
