/**
 * The gate contract's helpers (`src/enforce/gate.ts`): what `install` and `GatePlugin` accept as a gate, `isGate`
 * refusing `null` and functions (a function has a string `name`, so with a `decide` it would otherwise pass for a
 * gate). No mutant of gate.ts survives (CONTRIBUTING.md, "Mutation testing").
 */
import { describe, expect, it } from 'vitest';
import { allowAll, type Gate, type GateAuditError, install, isGated } from '../../src/index.js';
import { isGate } from '../../src/enforce/gate.js';
import { isolateEachTest, say, scriptedAgent } from '../helpers/sdk.js';

isolateEachTest();

describe('isGate', () => {
  describe('when install is given something that is not a gate', () => {
    const notGates: [string, unknown][] = [
      ['null', null],
      [
        'a function with a name and a decide() method',
        Object.assign(function policy(): void {}, { decide: () => ({ verdict: 'allow' }) }),
      ],
      ['a string', 'allow-all'],
      ['an object without decide()', { name: 'x' }],
      ['an object whose name is not a string', { name: 1, decide: () => ({ verdict: 'allow' }) }],
    ];
    for (const [what, value] of notGates) {
      it(`install refuses ${what} as options.gate with INVALID_ARGUMENT, and gates nothing`, () => {
        const agent = scriptedAgent('a', [say('hi')]);
        let error: unknown;
        try {
          install(agent, { gate: value as Gate });
        } catch (e) {
          error = e;
        }
        expect((error as GateAuditError).code).toBe('INVALID_ARGUMENT');
        expect((error as Error).message).toContain('options.gate is not a Gate');
        expect(isGated(agent)).toBe(false);
        expect(isGate(value)).toBe(false);
      });
    }
  });

  describe('when given an object with a string name and a decide() method', () => {
    it('counts it as a gate', () => {
      expect(isGate(allowAll())).toBe(true);
      expect(isGate({ name: '', decide: () => ({ verdict: 'deny', reason: 'no' }) })).toBe(true);
    });
  });
});
