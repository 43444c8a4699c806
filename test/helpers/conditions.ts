/**
 * A policy gate over one condition, for the tests of path and URL conditions: tool `t` denied (or allowed) when the
 * condition holds, the default the other way, and the verdict it gives an input.
 */
import { type Decision, type PolicyInput, policyGate, type ToolCallRequest } from '../../src/index.js';

/** A call of tool `toolName` (default `t`) with this input, by agent `a` at place `a`. */
export function request(input: unknown, toolName = 't'): ToolCallRequest {
  return {
    toolUseId: 't',
    toolName,
    input,
    agentId: 'a',
    agentName: 'a',
    path: ['a'],
    paths: [['a']],
    toolKind: 'function',
  };
}

/** A policy that denies (or allows) tool `t` when the condition holds, default the other way. */
export function gate(verdict: 'deny' | 'allow', condition: Record<string, unknown>): ReturnType<typeof policyGate> {
  const policy: PolicyInput = {
    version: 1,
    default: verdict === 'deny' ? 'allow' : 'deny',
    rules: [{ id: 'r', tools: ['t'], when: [condition as never], verdict }],
  };
  return policyGate(policy);
}

/** The verdict a condition's gate gives an input. */
export const verdictOf = (g: ReturnType<typeof gate>, input: unknown): string =>
  (g.decide(request(input)) as Decision).verdict;
