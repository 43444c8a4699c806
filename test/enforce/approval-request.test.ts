/**
 * What a pause for approval shows (the interrupt's payload) and stores (the pending approval), the same for both
 * frameworks: the gate, its `ask`, and the request bound to the gate's id and the pause's nonce.
 */
import { describe, expect, it } from 'vitest';
import { approvalPayload, raisedApproval } from '../../src/enforce/approval-request.js';
import type { ToolCallRequest } from '../../src/enforce/gate.js';

const request: ToolCallRequest = {
  framework: 'langgraph',
  agentId: 'worker',
  agentName: 'worker',
  toolName: 'rm',
  toolUseId: 'c1',
  input: { path: '/a' },
  path: ['app', 'worker'],
  paths: [['app', 'worker']],
  toolKind: 'function',
} as unknown as ToolCallRequest;
const gate = { name: 'policy', id: 'policy-1' };

describe('approvalPayload', () => {
  describe('when the gate named a rule and the path is durable', () => {
    it('carries the gate, its ask, the approval id, and the request bound to the gate and the nonce', () => {
      const payload = approvalPayload({
        gate,
        decision: { reason: 'asks', rule: 'r1' },
        request,
        nonce: 'n1',
        approvalId: 'a1',
      });
      expect(payload).toEqual({
        gate: 'policy',
        gateId: 'policy-1',
        approvalId: 'a1',
        verdict: 'ask',
        reason: 'asks',
        rule: 'r1',
        request: { ...request, gateId: 'policy-1', nonce: 'n1' },
      });
    });
  });

  describe('when there is no rule and no store', () => {
    it('has no rule and no approval id at all (not even undefined ones)', () => {
      const payload = approvalPayload({ gate, decision: { reason: 'asks' }, request, nonce: 'n1' });
      expect(Object.keys(payload)).toEqual(['gate', 'gateId', 'verdict', 'reason', 'request']);
    });
  });

  describe('when the payload is changed afterwards', () => {
    it("copies the request's places: changing the payload changes nothing of the call", () => {
      const payload = approvalPayload({ gate, decision: { reason: 'asks' }, request, nonce: 'n1' });
      (payload.request.path as string[]).push('x');
      (payload.request.paths[0] as string[]).push('y');
      expect(request.path).toEqual(['app', 'worker']);
      expect(request.paths).toEqual([['app', 'worker']]);
    });
  });
});

describe('raisedApproval', () => {
  describe('when a pause is raised, with or without a rule', () => {
    it('stores the id, the gate, the nonce, the ask and the request as it was judged', () => {
      expect(raisedApproval({ gate, decision: { reason: 'asks', rule: 'r1' }, request, nonce: 'n1' }, 'a1')).toEqual({
        id: 'a1',
        gate: 'policy',
        gateId: 'policy-1',
        nonce: 'n1',
        reason: 'asks',
        rule: 'r1',
        request,
      });
      expect(raisedApproval({ gate, decision: { reason: 'asks' }, request, nonce: 'n1' }, 'a1')).not.toHaveProperty(
        'rule',
      );
    });
  });
});
