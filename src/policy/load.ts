/**
 * Reading a policy: from a YAML or JSON file (`loadPolicy`) or an object (`parsePolicy`), validated with
 * `PolicySchema` and compiled once. Every problem becomes a `PolicyError` naming the file, the rule and the
 * field.
 */
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parseDocument } from 'yaml';
import type { z } from 'zod';
import { messageOf, type PolicyIssue, PolicyError } from '../errors.js';
import { type CompiledPolicy, compilePolicy } from './compile.js';
import { type Policy, PolicySchema } from './schema.js';

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

function issuesOf(error: z.ZodError, raw: unknown): PolicyIssue[] {
  return error.issues.map((issue) => {
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, ...issue.keys.slice(0, 1)] : issue.path;
    const rule = ruleOf(raw, path);
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')} | check the spelling against the policy format`
        : issue.message;
    return { ...(rule === undefined ? {} : { rule }), field: fieldOf(path), message };
  });
}

/**
 * Validates and compiles a policy object.
 *
 * @param raw - the parsed document
 * @param file - where it came from, for error messages
 * @returns the compiled policy
 * @throws PolicyError naming the file, the rule and the field of every problem
 */
export function parsePolicy(raw: unknown, file = '(inline)'): CompiledPolicy {
  const known = typeof raw === 'object' && raw !== null ? compiledPolicies.get(raw) : undefined;
  if (known !== undefined) return known;
  const parsed = PolicySchema.safeParse(raw);
  if (!parsed.success) throw new PolicyError(file, issuesOf(parsed.error, raw));
  const compiled = compilePolicy(parsed.data);
  if ('issues' in compiled) throw new PolicyError(file, compiled.issues);
  deepFreeze(compiled.policy);
  compiledPolicies.set(compiled.policy, compiled);
  return compiled;
}

/** Parses YAML (or JSON, for a `.json` file) into plain data; a syntax error is a `PolicyError`. */
function parseText(text: string, file: string): unknown {
  if (extname(file).toLowerCase() === '.json') {
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const why = messageOf(error);
      throw new PolicyError(file, [{ field: '(document)', message: `not valid JSON: ${why}` }], { cause: error });
    }
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
 * Reads a policy file (YAML, or JSON when it ends in `.json`), validates it and compiles it.
 *
 * @param path - the policy file
 * @returns the validated policy, deeply frozen (pass it to `policyGate`, which reuses its compiled form)
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
