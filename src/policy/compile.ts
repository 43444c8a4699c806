/**
 * The rules engine: a validated policy compiled once into matchers, indexed by tool name, and decided
 * in time linear in the input.
 *
 * - Regular expressions (`matches`) and globs run on RE2 (`re2js`): matching is linear in the input, so no
 *   pattern can make a decision take super-linear time; patterns RE2 cannot run in linear time
 *   (backreferences, lookaround) are refused when the policy is loaded.
 * - Input is read through own properties only, so keys such as `__proto__` or `constructor` are plain data,
 *   never the prototype chain.
 * - Rules naming exact tools sit in a map by name; only rules with wildcard tool globs are tested on every
 *   name, and the merged, ordered candidate list is cached per tool name.
 */
import { RE2JS } from 're2js';
import type { Decision, ToolCallRequest, Verdict } from '../enforce/gate.js';
import { messageOf, type PolicyIssue } from '../errors.js';
import { OPERATORS, type Policy, type PolicyCondition, type PolicyRule } from './schema.js';

/** How restrictive each verdict is: the most restrictive matching rule decides. */
const SEVERITY: Record<Verdict, number> = { deny: 2, ask: 1, allow: 0 };

const MAX_CACHED_TOOLS = 1024;

interface CompiledCondition {
  readonly arg: readonly string[];
  readonly text: string;
  test(value: unknown): boolean;
}

/** One compiled rule. */
export interface CompiledRule {
  /** The rule as written. */
  readonly rule: PolicyRule;
  /** Its position in the document (earlier wins among rules of the same verdict). */
  readonly order: number;
  /** Whether its verdict depends on the input (it has `when` conditions). */
  readonly conditional: boolean;
  matchesTool(name: string): boolean;
  matchesPath(path: string): boolean;
  matchesInput(input: unknown): boolean;
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
  /** The validated policy. */
  readonly policy: Policy;
  /** Decides one call. */
  decide(request: Pick<ToolCallRequest, 'toolName' | 'path' | 'input'>): Decision;
  /** The verdict for a tool at a path when it does not depend on the input. */
  staticVerdict(toolName: string, path: readonly string[]): StaticVerdict;
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

/** Reads a dotted path through own properties of plain objects and arrays only; `undefined` when absent. */
export function readArg(input: unknown, path: readonly string[]): unknown {
  let value: unknown = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value)) {
      if (!/^(0|[1-9]\d*)$/.test(key)) return undefined;
      const index = Number(key);
      if (index >= value.length) return undefined;
      value = value[index] as unknown;
      continue;
    }
    if (!Object.hasOwn(value, key)) return undefined;
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    if (descriptor === undefined || !('value' in descriptor)) return undefined; // never run a getter
    value = descriptor.value as unknown;
  }
  return value;
}

type Problem = (field: string, message: string) => void;

function compileCondition(condition: PolicyCondition, field: string, problem: Problem): CompiledCondition {
  const arg = condition.arg.split('.');
  const op = OPERATORS.find((o) => condition[o] !== undefined);
  const text = `${condition.arg} ${op ?? '?'} ${JSON.stringify(op === undefined ? null : condition[op])}`;
  const is = (test: (value: unknown) => boolean): CompiledCondition => ({ arg, text, test });
  switch (op) {
    case 'matches': {
      const pattern = condition.matches ?? '';
      try {
        const re = RE2JS.compile(pattern);
        return is((v) => typeof v === 'string' && re.test(v));
      } catch (error) {
        const why = messageOf(error);
        problem(
          `${field}.matches`,
          `not a pattern that runs in linear time (${why}) | use RE2 syntax: no backreferences or lookaround`,
        );
        return is(() => false);
      }
    }
    case 'equals':
      return is((v) => v === condition.equals);
    case 'in': {
      const options = condition.in ?? [];
      return is((v) => options.some((o) => o === v));
    }
    case 'contains': {
      const needle = condition.contains;
      return is((v) =>
        typeof v === 'string'
          ? typeof needle === 'string' && v.includes(needle)
          : Array.isArray(v) && v.some((e) => e === needle),
      );
    }
    case 'startsWith': {
      const prefix = condition.startsWith ?? '';
      return is((v) => typeof v === 'string' && v.startsWith(prefix));
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
      return is((v) => typeof v === 'number' && Number.isFinite(v) && compare(v));
    }
    default:
      // The schema requires exactly one operator; a condition without one never matches.
      return is(() => false);
  }
}

function compileRule(rule: PolicyRule, order: number, problem: Problem): CompiledRule {
  const field = `rules[${order}]`;
  const tools = rule.tools.map((glob) => RE2JS.compile(toolGlobSource(glob)));
  const paths = (rule.paths ?? []).map((glob, i) => {
    const source = pathGlobSource(glob);
    if (typeof source === 'string') return RE2JS.compile(source);
    problem(`${field}.paths[${i}]`, source.error);
    return RE2JS.compile('$^');
  });
  const conditions = (rule.when ?? []).map((c, i) => compileCondition(c, `${field}.when[${i}]`, problem));
  return {
    rule,
    order,
    conditional: conditions.length > 0,
    matchesTool: (name) => tools.some((re) => re.matches(name)),
    matchesPath: (path) => paths.length === 0 || paths.some((re) => re.matches(path)),
    matchesInput: (input) => conditions.every((c) => c.test(readArg(input, c.arg))),
  };
}

function isWildcard(glob: string): boolean {
  return glob.includes('*') || glob.includes('?');
}

/**
 * Compiles a validated policy.
 *
 * @param policy - a policy parsed with `PolicySchema`
 * @returns the compiled policy, or the problems found (patterns and globs that cannot be compiled)
 */
export function compilePolicy(policy: Policy): CompiledPolicy | { issues: PolicyIssue[] } {
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
  const byTool = new Map<string, readonly CompiledRule[]>();
  const candidates = (name: string): readonly CompiledRule[] => {
    const cached = byTool.get(name);
    if (cached !== undefined) return cached;
    const list = [...(exact.get(name) ?? [])];
    for (const rule of wildcard) if (rule.matchesTool(name)) list.push(rule);
    list.sort((a, b) => SEVERITY[b.rule.verdict] - SEVERITY[a.rule.verdict] || a.order - b.order);
    if (byTool.size >= MAX_CACHED_TOOLS) byTool.clear();
    byTool.set(name, list);
    return list;
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
  return {
    policy,
    decide: ({ toolName, path, input }) => {
      const joined = path.join('/');
      for (const rule of candidates(toolName)) {
        if (rule.matchesPath(joined) && rule.matchesInput(input)) return decisionOf(rule.rule);
      }
      return fallback(toolName);
    },
    staticVerdict: (toolName, path) => {
      const joined = path.join('/');
      const conditional: { rule: string; verdict: Verdict }[] = [];
      for (const rule of candidates(toolName)) {
        if (!rule.matchesPath(joined)) continue;
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
