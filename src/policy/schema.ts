/**
 * The policy document, validated once at the boundary with zod. The shape is a contract: `version: 1`, an
 * optional `default` verdict (deny when neither the policy nor a preset it extends sets one), presets pulled
 * with `extends` (and their rules switched off with `disable`), and rules of tool globs, optional path
 * globs, optional conditions on the input, a verdict and a reason.
 */
import { z } from 'zod';

/** The operators a condition may use; each condition uses exactly one. */
export const OPERATORS = [
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
] as const;

/** The name of one condition operator. */
export type Operator = (typeof OPERATORS)[number];

/** The presets a policy may extend. */
export const PRESETS = ['gate-audit:vended-tools', 'gate-audit:read-only-shell'] as const;

/** The name of a shipped preset. */
export type PresetName = (typeof PRESETS)[number];

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const VerdictSchema = z.enum(['allow', 'deny', 'ask']);
const Glob = z.string().min(1, 'a glob cannot be empty');
const Pattern = z.string().min(1).max(1000);
const Absolute = z.string().regex(/^\//, 'expected an absolute path, starting with "/"');
/** A directory of a path condition: absolute, or `$WORKSPACE` (the policy's `workspace`) and below. */
const Directory = z
  .string()
  .regex(/^(\/|\$WORKSPACE(\/|$))/, 'expected an absolute path, starting with "/", or "$WORKSPACE"');

function exactlyOne<T extends Record<string, unknown>>(keys: readonly (keyof T & string)[], what: string) {
  return (value: T, ctx: z.RefinementCtx): void => {
    const used = keys.filter((k) => value[k] !== undefined);
    if (used.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          used.length === 0
            ? `${what} needs one of ${keys.join(', ')}`
            : `${what} takes exactly one of ${keys.join(', ')}, found ${used.join(' and ')}`,
      });
    }
  };
}

/** `path: { under, notUnder, cwd, realpath, caseInsensitive }`. */
export const PathConditionSchema = z
  .strictObject({
    under: z.array(Directory).min(1).optional(),
    notUnder: z.array(Directory).min(1).optional(),
    cwd: Directory.optional(),
    realpath: z.boolean().optional(),
    caseInsensitive: z.boolean().optional(),
  })
  .refine((p) => p.under !== undefined || p.notUnder !== undefined, 'a path condition needs under or notUnder');

/** `url: { hosts, schemes, private }`. */
export const UrlConditionSchema = z
  .strictObject({
    hosts: z.array(z.string().min(1)).min(1).optional(),
    schemes: z
      .array(z.string().regex(/^[a-zA-Z][a-zA-Z0-9+.-]*:?$/, 'expected a scheme such as "https"'))
      .min(1)
      .optional(),
    private: z.boolean().optional(),
  })
  .refine(
    (u) => u.hosts !== undefined || u.schemes !== undefined || u.private !== undefined,
    'a url condition needs hosts, schemes or private',
  );

const ArgsSchema = z
  .strictObject({ matches: Pattern.optional(), path: PathConditionSchema.optional(), first: Pattern.optional() })
  .superRefine(exactlyOne(['matches', 'path', 'first'], 'args'));

const WritesToSchema = z
  .strictObject({ matches: Pattern.optional(), path: PathConditionSchema.optional() })
  .superRefine(exactlyOne(['matches', 'path'], 'writesTo'));

const Names = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')).min(1);
const Flag = z.string().regex(/^--?[^-\s]/, 'expected a flag such as "-r" or "--recursive"');

/** `shell: { program, anyFlag, allFlags, args, writesTo, assigns }`. */
export const ShellConditionSchema = z.strictObject({
  program: z.array(z.string().min(1)).min(1).optional(),
  anyFlag: z.array(Flag).min(1).optional(),
  allFlags: z.array(Flag).min(1).optional(),
  args: ArgsSchema.optional(),
  writesTo: WritesToSchema.optional(),
  assigns: Names.optional(),
});

const ConditionSchema = z
  .strictObject({
    arg: z
      .string()
      .regex(/^[^.]+(\.[^.]+)*$/, 'expected a dotted path into the input, e.g. "command" or "options.path"'),
    matches: Pattern.optional(),
    equals: Scalar.optional(),
    in: z.array(Scalar).min(1).optional(),
    contains: Scalar.optional(),
    startsWith: z.string().optional(),
    lt: z.number().optional(),
    lte: z.number().optional(),
    gt: z.number().optional(),
    gte: z.number().optional(),
    shell: ShellConditionSchema.optional(),
    shellOpaque: z.boolean().optional(),
    path: PathConditionSchema.optional(),
    url: UrlConditionSchema.optional(),
    dialect: z.enum(['sh', 'bash']).optional(),
  })
  .superRefine((condition, ctx) => {
    const used = OPERATORS.filter((op) => condition[op] !== undefined);
    if (used.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          used.length === 0
            ? `a condition needs one operator: ${OPERATORS.join(', ')}`
            : `a condition takes exactly one operator, found ${used.join(' and ')} | split it into several conditions`,
      });
    }
    if (condition.dialect !== undefined && condition.shell === undefined && condition.shellOpaque === undefined) {
      ctx.addIssue({ code: 'custom', message: 'dialect applies to shell and shellOpaque conditions only' });
    }
  });

/** The zod schema of one rule. */
export const RuleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][\w.:-]*$/, 'expected an id of letters, digits, ".", ":", "_" or "-"'),
  tools: z.array(Glob).min(1, 'list at least one tool name or glob ("*" for every tool)'),
  paths: z.array(Glob).min(1).optional(),
  when: z.array(ConditionSchema).min(1).optional(),
  verdict: VerdictSchema,
  reason: z.string().min(1).optional(),
});

function uniqueIds(rules: readonly { id: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  rules.forEach((rule, index) => {
    if (seen.has(rule.id)) {
      ctx.addIssue({ code: 'custom', path: ['rules', index, 'id'], message: `duplicate rule id "${rule.id}"` });
    }
    seen.add(rule.id);
  });
}

/** The zod schema of a policy document (`z.strictObject`: unknown keys are errors). */
export const PolicySchema = z
  .strictObject({
    version: z.literal(1),
    extends: z.array(z.enum(PRESETS)).min(1).optional(),
    disable: z.array(z.string().min(1)).min(1).optional(),
    workspace: Absolute.optional(),
    default: VerdictSchema.optional(),
    rules: z.array(RuleSchema).default([]),
  })
  .superRefine((policy, ctx) => {
    uniqueIds(policy.rules, ctx);
    if (policy.disable !== undefined && policy.extends === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['disable'],
        message: 'disable switches off rules of presets | add extends',
      });
    }
  });

/** A policy document as written (before presets and defaults apply). */
export type PolicyInput = z.input<typeof PolicySchema>;
/** A policy document as validated (presets not yet resolved). */
export type PolicyDocument = z.output<typeof PolicySchema>;
/** One validated rule. */
export type PolicyRule = z.output<typeof RuleSchema>;
/** One validated condition. */
export type PolicyCondition = NonNullable<PolicyRule['when']>[number];
/** A validated shell condition. */
export type ShellCondition = z.output<typeof ShellConditionSchema>;

/**
 * A validated policy with its presets resolved: the rules of every preset it extends (less those it
 * disables) then its own, and the default in force (its own, else the most restrictive of its presets',
 * else deny). This is what a gate decides by, and what its `id` digests.
 */
export interface Policy {
  /** Always 1. */
  readonly version: 1;
  /** The verdict when no rule matches. */
  readonly default: 'allow' | 'deny' | 'ask';
  /** Every rule in force, presets' first. */
  readonly rules: readonly PolicyRule[];
}
