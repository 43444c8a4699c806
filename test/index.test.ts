import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

describe('the public API', () => {
  describe('when imported from the main entry', () => {
    it('exports exactly the documented values', () => {
      expect(Object.keys(api).sort()).toEqual([
        'ConfigSchema',
        'CoverageError',
        'CoverageReportSchema',
        'GOVERNS',
        'GateAuditError',
        'GateConflictError',
        'GateFailedError',
        'GatePlugin',
        'NoGateError',
        'ObservedReportSchema',
        'PolicyError',
        'PolicySchema',
        'SdkMismatchError',
        'UngateableError',
        'allowAll',
        'approve',
        'approvePending',
        'assertFullyGated',
        'audit',
        'configureGate',
        'denyAll',
        'denyPending',
        'gatedAgent',
        'gatedFactory',
        'generateApproverKey',
        'guardProcess',
        'hasNodeGuard',
        'install',
        'installMultiagent',
        'interventionGate',
        'isGated',
        'listPending',
        'loadPolicy',
        'memoryApprovalStore',
        'openDecisionLog',
        'plan',
        'policyGate',
        'verifyLogFile',
      ]);
    });

    it('gives every error class a code and a name', () => {
      expect(new api.NoGateError('x')).toMatchObject({ code: 'NO_GATE', name: 'NoGateError' });
      expect(new api.UngateableError([])).toMatchObject({ code: 'UNGATEABLE', name: 'UngateableError', findings: [] });
      expect(new api.SdkMismatchError([])).toMatchObject({ code: 'SDK_MISMATCH', name: 'SdkMismatchError' });
      expect(new api.NoGateError('x')).toBeInstanceOf(api.GateAuditError);
      expect(new api.PolicyError('p.yaml', [{ field: 'version', message: 'm' }])).toMatchObject({
        code: 'INVALID_POLICY',
        name: 'PolicyError',
        message: 'file=<p.yaml>, field=<version> | m',
      });
    });
  });
});

describe('the subpath exports', () => {
  describe('when each subpath is imported', () => {
    it('gate-audit/tui exports renderCoverageTui, gate-audit/vitest the matcher, gate-audit/otel the span processor and the LangGraph tracer', async () => {
      const tui = await import('../src/tui/index.js');
      expect(Object.keys(tui)).toEqual(['renderCoverageTui']);
      const matchers = await import('../src/vitest.js');
      expect(Object.keys(matchers)).toEqual(['toBeFullyGated']);
      const otel = await import('../src/otel/index.js');
      expect(Object.keys(otel).sort()).toEqual(['gateSpanProcessor', 'langGraphTracer']);
      const postgres = await import('../src/stores/postgres.js');
      expect(Object.keys(postgres).sort()).toEqual([
        'SCHEMA_VERSION',
        'grantStatements',
        'postgresStore',
        'storeRecords',
        'verifyStoreLog',
      ]);
    });
  });
});
