/**
 * The framework-neutral check of `accept`: what every framework refuses the same way (no reason, no such node, a
 * node that can be gated), what the framework adds (its refusal), and one error listing every problem.
 */
import { describe, expect, it } from 'vitest';
import { checkAccept } from '../../src/enforce/accept.js';
import { GateAuditError } from '../../src/errors.js';

interface Place {
  readonly path: readonly string[];
  readonly kind: string;
  readonly problem?: { readonly reason: string; readonly acceptable: boolean };
}

const places: Place[] = [
  { path: ['app'], kind: 'graph' },
  { path: ['app', 'writer'], kind: 'agent' },
  { path: ['app', 'remote'], kind: 'remote', problem: { reason: 'runs elsewhere', acceptable: true } },
  { path: ['app', 'odd'], kind: 'custom', problem: { reason: 'has a broken shape', acceptable: false } },
  // Walked paths hold escaped segments: an id `a/b` is the segment `a%2Fb`.
  { path: ['app', 'a%2Fb'], kind: 'remote', problem: { reason: 'runs elsewhere', acceptable: true } },
];
const refusal = (_place: Place, problem: NonNullable<Place['problem']>): string | undefined =>
  problem.acceptable ? undefined : `cannot be accepted: it ${problem.reason} | fix it`;

function failure(accept: { path: string; reason: string }[]): string {
  try {
    checkAccept(places, accept, refusal);
  } catch (error) {
    expect(error).toBeInstanceOf(GateAuditError);
    expect((error as GateAuditError).code).toBe('INVALID_ACCEPT');
    return (error as GateAuditError).message;
  }
  throw new Error('expected INVALID_ACCEPT');
}

describe('checkAccept', () => {
  describe('when every entry names an acceptable node', () => {
    it('returns each with its node and its trimmed reason (a path names a node by its escaped segments)', () => {
      const matched = checkAccept(
        places,
        [
          { path: 'app/remote', reason: ' the vendor runs it ' },
          { path: 'app/a%2Fb', reason: 'ok' },
        ],
        refusal,
      );
      expect(matched.map(({ entry, reason }) => [entry.path, reason])).toEqual([
        [['app', 'remote'], 'the vendor runs it'],
        [['app', 'a%2Fb'], 'ok'],
      ]);
    });

    it('returns nothing for no entries, without asking the framework', () => {
      let asked = 0;
      const count = (): undefined => void (asked += 1);
      expect(checkAccept(places, undefined, count)).toEqual([]);
      expect(checkAccept(places, [], count)).toEqual([]);
      expect(asked).toBe(0);
    });
  });

  describe('when an entry is wrong', () => {
    it.each([
      [{ path: 'app/remote', reason: '  ' }, 'accept=<app/remote> | an accept entry needs a path and a reason'],
      [
        { path: 'app/gone', reason: 'x' },
        'accept=<app/gone> | matches no node of the tree | fix the path (ids escaped, joined with "/") or remove the stale entry',
      ],
      [
        { path: 'app/writer', reason: 'x' },
        'accept=<app/writer> | is a agent that can be gated, so it needs no acknowledgement | remove the entry; installMultiagent gates it',
      ],
      [{ path: 'app/odd', reason: 'x' }, 'accept=<app/odd> | cannot be accepted: it has a broken shape | fix it'],
    ])('refuses %j with one line naming it', (entry, message) => {
      expect(failure([entry])).toBe(message);
    });

    it('lists every wrong entry in one error, the right ones too being refused with them', () => {
      expect(
        failure([
          { path: 'app/remote', reason: 'fine' },
          { path: 'app/gone', reason: 'x' },
          { path: 'app/odd', reason: 'x' },
        ]),
      ).toBe(
        'accept=<2 problems> | invalid accept entries\n' +
          '  - accept=<app/gone> | matches no node of the tree | fix the path (ids escaped, joined with "/") or remove the stale entry\n' +
          '  - accept=<app/odd> | cannot be accepted: it has a broken shape | fix it',
      );
    });

    it('takes an entry whose path is not text as one without a path', () => {
      expect(failure([{ path: 7 as unknown as string, reason: 'x' }])).toBe(
        'accept=<undefined> | an accept entry needs a path and a reason',
      );
    });
  });
});
