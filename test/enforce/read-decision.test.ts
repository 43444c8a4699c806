/**
 * Reading a gate's answer into a plain decision (`src/enforce/read-decision.ts`), called directly: each field read
 * once, the exact error for each answer that is no decision. Through a gated agent, the same answers are pinned as
 * refusals in `decision.test.ts`.
 */
import { describe, expect, it } from 'vitest';
import { readDecision } from '../../src/enforce/read-decision.js';

describe('readDecision', () => {
  describe('when the answer is a decision', () => {
    it('reads an allow, with its rule when it names one and no rule key otherwise', () => {
      expect(readDecision({ verdict: 'allow', rule: 'r1' })).toStrictEqual({ verdict: 'allow', rule: 'r1' });
      expect(readDecision({ verdict: 'allow' })).toStrictEqual({ verdict: 'allow' });
      expect(readDecision({ verdict: 'allow', reason: 'ignored' })).toStrictEqual({ verdict: 'allow' });
    });

    it('reads a deny or an ask with its reason, and its rule when it names one', () => {
      expect(readDecision({ verdict: 'deny', reason: 'no rm', rule: 'r2' })).toStrictEqual({
        verdict: 'deny',
        reason: 'no rm',
        rule: 'r2',
      });
      expect(readDecision({ verdict: 'ask', reason: 'risky' })).toStrictEqual({ verdict: 'ask', reason: 'risky' });
    });

    it('reads verdict, reason and rule once each: getters that change between reads are judged as first read', () => {
      const reads = { verdict: 0, reason: 0, rule: 0 };
      const answer = {
        get verdict(): string {
          reads.verdict += 1;
          return reads.verdict === 1 ? 'deny' : 'allow';
        },
        get reason(): string {
          reads.reason += 1;
          return reads.reason === 1 ? 'first' : '';
        },
        get rule(): unknown {
          reads.rule += 1;
          return reads.rule === 1 ? 'r1' : 7;
        },
      };
      expect(readDecision(answer)).toStrictEqual({ verdict: 'deny', reason: 'first', rule: 'r1' });
      expect(reads).toEqual({ verdict: 1, reason: 1, rule: 1 });
    });
  });

  describe('when the answer is no decision', () => {
    const getterThrows = Object.defineProperty({}, 'reason', {
      get() {
        throw new Error('boom');
      },
    });
    const cases: [string, unknown, string][] = [
      ['undefined', undefined, 'decision is undefined, not an object'],
      ['null', null, 'decision is null, not an object'],
      ['a string (quoted, cut at 40 characters)', 'y'.repeat(45), `decision is "${'y'.repeat(40)}", not an object`],
      ['a function', () => ({ verdict: 'allow' }), 'decision is function, not an object'],
      ['an object whose getter throws', getterThrows, 'reading the decision threw: boom'],
      ['a rule that is null', { verdict: 'allow', rule: null }, 'decision rule is null'],
      [
        'a rule that is a string on a refusal with no reason',
        { verdict: 'deny', rule: 'r' },
        'a deny decision has no reason',
      ],
      ['an empty reason', { verdict: 'deny', reason: '' }, 'a deny decision has no reason'],
      ['an ask whose reason is not a string', { verdict: 'ask', reason: ['x'] }, 'an ask decision has no reason'],
      ['a verdict in another case', { verdict: 'Allow' }, 'decision verdict is "Allow"'],
      ['no verdict', {}, 'decision verdict is undefined'],
    ];
    for (const [what, answer, error] of cases) {
      it(`${what}: the error "${error}"`, () => {
        expect(readDecision(answer)).toStrictEqual({ error });
      });
    }
  });
});
