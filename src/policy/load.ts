/**
 * Reading a policy: from a YAML or JSON file (`loadPolicy`) or an object (`parsePolicy`), validated with
 * `PolicySchema`, its presets (`extends`) resolved, and compiled once. Every problem becomes a
 * `PolicyError` naming the file, the rule and the field.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { messageOf, type PolicyIssue, PolicyError } from '../errors.js';
import { type CompiledPolicy, compilePolicy } from './compile.js';
import { findDuplicateKey } from './json-keys.js';
import { normalizePath } from './paths-urls/file-path.js';
import { type Policy, type PolicyDocument, type PolicyRule, PolicySchema, type PresetName } from './schema.js';

/** Validated policies (deeply frozen, so they cannot drift from their compiled form) and their compiled form. */
const compiledPolicies = new WeakMap<object, CompiledPolicy>();

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
}

/** `rules[1].when[0].matches` from a zod path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let field = '';
  for (const key of path) {
    field += typeof key === 'number' ? `[${key}]` : `${field === '' ? '' : '.'}${String(key)}`;
  }
  return field === '' ? '(document)' : field;
}

/** The rule an issue is about: its id when the raw rule has a usable one, else `#n`. */
function ruleOf(raw: unknown, path: readonly PropertyKey[]): string | undefined {
  if (path[0] !== 'rules' || typeof path[1] !== 'number') return undefined;
  const rules =
    typeof raw === 'object' && raw !== null && Object.hasOwn(raw, 'rules')
      ? (raw as { rules: unknown }).rules
      : undefined;
  const rule = Array.isArray(rules) ? (rules[path[1]] as unknown) : undefined;
  const id =
    typeof rule === 'object' && rule !== null && Object.hasOwn(rule, 'id') ? (rule as { id: unknown }).id : undefined;
  return typeof id === 'string' && id !== '' ? id : `#${path[1] + 1}`;
}

/** Every key a policy document may have at each level, for "did you mean". */
const KNOWN_KEYS: readonly string[] = [
  'version',
  'extends',
  'workspace',
  'disable',
  'default',
  'rules',
  'id',
  'tools',
  'paths',
  'when',
  'verdict',
  'reason',
  'arg',
  'matches',
  'equals',
  'in',
  'contains',
  'startsWith',
  'lt',
  'lte',
  'gt',
  'gte',
  'shell',
  'shellOpaque',
  'path',
  'url',
  'dialect',
  'program',
  'anyFlag',
  'allFlags',
  'args',
  'first',
  'writesTo',
  'assigns',
  'under',
  'notUnder',
  'cwd',
  'realpath',
  'caseInsensitive',
  'hosts',
  'schemes',
  'private',
];

/** Edit distance with adjacent transpositions (optimal string alignment), bounded: `limit + 1` when farther. */
export function distance(a: string, b: string, limit = 3): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((rows[i - 1]?.[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (rows[i - 1]?.[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row[j] = best;
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? limit + 1;
}

/**
 * The closest known name to a misspelt one, if any is close enough.
 *
 * @param name - what was written
 * @param known - the names it could have meant
 */
export function closest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.min(3, Math.floor(name.length / 3)));
  for (const candidate of known) {
    if (candidate === name) continue;
    const d = distance(name.toLowerCase(), candidate.toLowerCase(), bestDistance);
    if (d <= bestDistance) {
      best = candidate;
      bestDistance = d - 1;
      if (bestDistance < 0) break;
    }
  }
  return best;
}

function issuesOf(error: z.ZodError, raw: unknown): PolicyIssue[] {
  return error.issues.map((issue) => {
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    const rule = ruleOf(raw, path);
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      const hint = issue.keys.map((k) => closest(k, KNOWN_KEYS)).find((k) => k !== undefined);
      message = `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} | ${
        hint === undefined ? 'check the spelling against the policy format' : `did you mean "${hint}"?`
      }`;
    }
    return { ...(rule === undefined ? {} : { rule }), field: fieldOf(path), message };
  });
}

const SEVERITY = { allow: 0, ask: 1, deny: 2 } as const;

const presetCache = new Map<PresetName, PolicyDocument>();

/** The shipped preset files, next to `dist/` (and `src/`) in the package. */
function presetFile(name: PresetName): URL {
  return new URL(`../../presets/${name.slice('gate-audit:'.length)}.yaml`, import.meta.url);
}

function loadPreset(name: PresetName): PolicyDocument {
  const cached = presetCache.get(name);
  if (cached !== undefined) return cached;
  const url = presetFile(name);
  let text: string;
  try {
    text = readFileSync(url, 'utf8');
  } catch (error) {
    throw new PolicyError(name, [
      { field: '(document)', message: `the preset cannot be read (${messageOf(error)}) | reinstall gate-audit` },
    ]);
  }
  const parsed = PolicySchema.safeParse(parseText(text, url.pathname));
  if (!parsed.success) throw new PolicyError(name, issuesOf(parsed.error, undefined));
  if (parsed.data.extends !== undefined) {
    throw new PolicyError(name, [{ field: 'extends', message: 'a preset cannot extend another' }]);
  }
  presetCache.set(name, parsed.data);
  return parsed.data;
}

function placeWorkspace(directory: string, workspace: string): string {
  if (!directory.startsWith('$WORKSPACE')) return directory;
  return normalizePath(`${workspace}/${directory.slice('$WORKSPACE'.length)}`) ?? workspace;
}

function pathWithWorkspace<T extends { under?: string[]; notUnder?: string[]; cwd?: string }>(
  spec: T,
  workspace: string,
): T {
  const place = (d: string): string => placeWorkspace(d, workspace);
  return {
    ...spec,
    ...(spec.under === undefined ? {} : { under: spec.under.map(place) }),
    ...(spec.notUnder === undefined ? {} : { notUnder: spec.notUnder.map(place) }),
    ...(spec.cwd === undefined ? {} : { cwd: place(spec.cwd) }),
  };
}

/** A rule with `$WORKSPACE` in its path conditions replaced by the workspace directory. */
function withWorkspace(rule: PolicyRule, workspace: string): PolicyRule {
  if (rule.when === undefined || !JSON.stringify(rule.when).includes('$WORKSPACE')) return rule;
  return {
    ...rule,
    when: rule.when.map((c) => {
      if (c.path !== undefined) return { ...c, path: pathWithWorkspace(c.path, workspace) };
      if (c.shell === undefined) return c;
      const { args, writesTo } = c.shell;
      return {
        ...c,
        shell: {
          ...c.shell,
          ...(args?.path === undefined ? {} : { args: { ...args, path: pathWithWorkspace(args.path, workspace) } }),
          ...(writesTo?.path === undefined
            ? {}
            : { writesTo: { ...writesTo, path: pathWithWorkspace(writesTo.path, workspace) } }),
        },
      };
    }),
  };
}

/**
 * A validated document with its presets resolved: their rules (less the disabled ones) then its own, the
 * default in force, and `$WORKSPACE` in path conditions replaced by `workspace` (default: the working
 * directory when the policy is loaded).
 *
 * @returns the policy and, for each preset rule, the preset's name; or the problems found
 */
export function resolvePresets(
  document: PolicyDocument,
): { policy: Policy; origins: Map<string, string> } | { issues: PolicyIssue[] } {
  const issues: PolicyIssue[] = [];
  const rules: PolicyRule[] = [];
  const origins = new Map<string, string>();
  const disabled = new Set(document.disable ?? []);
  const used = new Set<string>();
  let presetDefault: Policy['default'] | undefined;
  for (const name of new Set(document.extends ?? [])) {
    const preset = loadPreset(name);
    for (const rule of preset.rules) {
      if (disabled.has(rule.id)) {
        used.add(rule.id);
        continue;
      }
      rules.push(rule);
      origins.set(rule.id, name);
    }
    if (
      preset.default !== undefined &&
      (presetDefault === undefined || SEVERITY[preset.default] > SEVERITY[presetDefault])
    ) {
      presetDefault = preset.default;
    }
  }
  (document.disable ?? []).forEach((id, index) => {
    if (!used.has(id)) {
      const hint = closest(id, [...origins.keys()]);
      issues.push({
        field: `disable[${index}]`,
        message: `"${id}" names no rule of the presets it extends${hint === undefined ? '' : ` | did you mean "${hint}"?`}`,
      });
    }
  });
  document.rules.forEach((rule, index) => {
    const preset = origins.get(rule.id);
    if (preset !== undefined) {
      issues.push({
        rule: rule.id,
        field: `rules[${index}].id`,
        message: `rule id "${rule.id}" is also a rule of ${preset} | rename it, or disable the preset's rule`,
      });
    }
    rules.push(rule);
  });
  if (issues.length > 0) return { issues };
  const workspace = normalizePath(document.workspace ?? process.cwd()) ?? '/';
  return {
    policy: {
      version: 1,
      default: document.default ?? presetDefault ?? 'deny',
      rules: rules.map((r) => withWorkspace(r, workspace)),
    },
    origins,
  };
}

/**
 * Validates and compiles a policy object.
 *
 * @param raw - the parsed document (or a policy `loadPolicy` returned)
 * @param file - where it came from, for error messages
 * @returns the compiled policy
 * @throws PolicyError naming the file, the rule and the field of every problem
 */
export function parsePolicy(raw: unknown, file = '(inline)'): CompiledPolicy {
  const known = typeof raw === 'object' && raw !== null ? compiledPolicies.get(raw) : undefined;
  if (known !== undefined) return known;
  const parsed = PolicySchema.safeParse(raw);
  if (!parsed.success) throw new PolicyError(file, issuesOf(parsed.error, raw));
  const resolved = resolvePresets(parsed.data);
  if ('issues' in resolved) throw new PolicyError(file, resolved.issues);
  const compiled = compilePolicy(resolved.policy, resolved.origins);
  if ('issues' in compiled) throw new PolicyError(file, compiled.issues);
  deepFreeze(compiled.policy);
  compiledPolicies.set(compiled.policy, compiled);
  return compiled;
}

/** Parses YAML (or JSON, for a `.json` file) into plain data; a syntax error or a duplicate key is a `PolicyError`. */
function parseText(text: string, file: string): unknown {
  if (extname(file).toLowerCase() === '.json') {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      const why = messageOf(error);
      throw new PolicyError(file, [{ field: '(document)', message: `not valid JSON: ${why}` }], { cause: error });
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate !== undefined) {
      throw new PolicyError(file, [
        {
          field: '(document)',
          message: `duplicate key ${JSON.stringify(duplicate.key)} at line ${duplicate.line} | keep one: JSON would silently use the last`,
        },
      ]);
    }
    return value;
  }
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const first = document.errors[0];
  if (first !== undefined) {
    // With prettyErrors the message's first line ends with "at line L, column C:".
    const message = (first.message.split('\n')[0] ?? '').replace(/:$/, '');
    throw new PolicyError(file, [{ field: '(document)', message: `not valid YAML: ${message}` }]);
  }
  return document.toJS({ maxAliasCount: 100 }) as unknown;
}

/**
 * Reads a policy file (YAML, or JSON when it ends in `.json`), validates it, resolves its presets and
 * compiles it.
 *
 * @param path - the policy file
 * @returns the validated policy with its presets resolved, deeply frozen (pass it to `policyGate`, which
 *   reuses its compiled form)
 * @throws PolicyError (code `INVALID_POLICY`) naming the file, the rule and the field of every problem
 */
export function loadPolicy(path: string): Policy {
  return loadCompiledPolicy(path).policy;
}

/**
 * `loadPolicy`, keeping the compiled form (the CLI uses it).
 *
 * @param path - the policy file
 */
export function loadCompiledPolicy(path: string): CompiledPolicy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    throw new PolicyError(path, [{ field: '(document)', message: `cannot read the file (${why}) | check the path` }], {
      cause: error,
    });
  }
  return parsePolicy(parseText(text, path), path);
}
