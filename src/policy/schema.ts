/**
 * The policy document, validated once at the boundary with zod. The shape is a contract (issue 5):
 * `version: 1`, an optional `default` verdict (deny when omitted), and rules of tool globs, optional path
 * globs, optional conditions on the input, a verdict and a reason.
 */
import { z } from 'zod';

/** The operators a condition may use; each condition uses exactly one. */
export const OPERATORS = ['matches', 'equals', 'in', 'contains', 'startsWith', 'lt', 'lte', 'gt', 'gte'] as const;

/** The name of one condition operator. */
export type Operator = (typeof OPERATORS)[number];

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const VerdictSchema = z.enum(['allow', 'deny', 'ask']);
const Glob = z.string().min(1, 'a glob cannot be empty');

const ConditionSchema = z
  .strictObject({
    arg: z
      .string()
      .regex(/^[^.]+(\.[^.]+)*$/, 'expected a dotted path into the input, e.g. "command" or "options.path"'),
    matches: z.string().min(1).max(1000).optional(),
    equals: Scalar.optional(),
    in: z.array(Scalar).min(1).optional(),
    contains: Scalar.optional(),
    startsWith: z.string().optional(),
    lt: z.number().optional(),
    lte: z.number().optional(),
    gt: z.number().optional(),
    gte: z.number().optional(),
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
  });

const RuleSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9][\w.:-]*$/, 'expected an id of letters, digits, ".", ":", "_" or "-"'),
  tools: z.array(Glob).min(1, 'list at least one tool name or glob ("*" for every tool)'),
  paths: z.array(Glob).min(1).optional(),
  when: z.array(ConditionSchema).min(1).optional(),
  verdict: VerdictSchema,
  reason: z.string().min(1).optional(),
});

/** The zod schema of a policy document (`z.strictObject`: unknown keys are errors). */
export const PolicySchema = z
  .strictObject({
    version: z.literal(1),
    default: VerdictSchema.default('deny'),
    rules: z.array(RuleSchema).default([]),
  })
  .superRefine((policy, ctx) => {
    const seen = new Set<string>();
    policy.rules.forEach((rule, index) => {
      if (seen.has(rule.id)) {
        ctx.addIssue({ code: 'custom', path: ['rules', index, 'id'], message: `duplicate rule id "${rule.id}"` });
      }
      seen.add(rule.id);
    });
  });

/** A policy document as written (before defaults apply). */
export type PolicyInput = z.input<typeof PolicySchema>;
/** A validated policy, with `default` and `rules` filled in. */
export type Policy = z.output<typeof PolicySchema>;
/** One validated rule. */
export type PolicyRule = Policy['rules'][number];
/** One validated condition. */
export type PolicyCondition = NonNullable<PolicyRule['when']>[number];
