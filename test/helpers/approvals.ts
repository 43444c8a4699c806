/**
 * Approvals across processes in tests: process A pauses on `ask` with a store; a "restarted" process is a
 * new agent with a new gate (same policy) that loads A's session snapshot, as a real restart would. The
 * gates trust two approvers, alice and bob; mallory has a key of her own that no gate lists.
 */
import type { InterruptResponseContentData, JSONValue, Snapshot } from '@strands-agents/sdk';
import {
  type ApprovalStore,
  generateApproverKey,
  install,
  type PolicyInput,
  policyGate,
  type ToolCallRequest,
} from '../../src/index.js';
import { call, recordingTool, say, scriptedAgent } from './sdk.js';

/** Key pairs of the tests' approvers (made once per test file). */
export const alice = generateApproverKey('alice');
export const bob = generateApproverKey('bob');
export const mallory = generateApproverKey('mallory');

/** The approvers the tests' gates list: alice and bob. */
export const approvers: Readonly<Record<string, string>> = { alice: alice.publicKey, bob: bob.publicKey };

/** Answer options of an approver (`approvePending(store, id, as(alice))`). */
export function as(pair: { readonly privateKeyPem: string }): { readonly privateKey: string } {
  return { privateKey: pair.privateKeyPem };
}

/** rm asks a human. */
export const askPolicy: PolicyInput = {
  version: 1,
  rules: [{ id: 'rm-asks', tools: ['rm'], verdict: 'ask', reason: 'deleting needs a human' }],
};

/** What an approval interrupt shows. */
export interface Paused {
  id: string;
  approvalId: string;
  request: ToolCallRequest & { gateId: string; nonce: string };
}

/** The first approval interrupt of a result. */
export function pausedOf(result: { interrupts?: readonly { id: string; reason?: unknown }[] }): Paused {
  const [first] = result.interrupts ?? [];
  const reason = first!.reason as { approvalId: string; request: Paused['request'] };
  return { id: first!.id, approvalId: reason.approvalId, request: reason.request };
}

/** The resume input answering one interrupt. */
export function answer(id: string, response: unknown): InterruptResponseContentData[] {
  return [{ interruptResponse: { interruptId: id, response: response as JSONValue } }];
}

/** An agent `a` whose model calls rm, gated with a durable approval store. */
export function rmAgent(
  store: ApprovalStore,
  turns = [call('rm', { path: '/tmp/x' }), say('done')],
  ttlMs?: number,
): ReturnType<typeof scriptedAgent> {
  const agent = scriptedAgent('a', turns, { tools: [recordingTool('rm')] });
  install(agent, {
    gate: policyGate(askPolicy, { approvals: { store, approvers, ...(ttlMs === undefined ? {} : { ttlMs }) } }),
  });
  return agent;
}

/** Process A pauses; the snapshot is what a restarted process loads. */
export async function pauseInA(
  store: ApprovalStore,
  ttlMs?: number,
): Promise<{ a: ReturnType<typeof rmAgent>; paused: Paused; snapshot: Snapshot }> {
  const a = rmAgent(store, undefined, ttlMs);
  const paused = pausedOf(await a.invoke('go'));
  return { a, paused, snapshot: a.takeSnapshot({ preset: 'session' }) };
}

/** A restarted process: a new agent and a new gate, loaded from the snapshot. */
export function restarted(store: ApprovalStore, snapshot: Snapshot): ReturnType<typeof rmAgent> {
  const agent = rmAgent(store, [say('done')]);
  agent.loadSnapshot(snapshot);
  return agent;
}
