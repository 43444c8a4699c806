/**
 * The canonical forms of a tool input (src/enforce/digest.ts): the text a seal compares, the frozen copy a gate
 * judges and a tool runs with. Two inputs that differ must never share a form, and anything that is not plain
 * JSON-like data must throw (a refusal for the caller), so each case below pins an exact text or an exact throw.
 *
 * Surviving mutants of digest.ts (CONTRIBUTING.md, "Mutation testing"), each equivalent:
 * - `deepFreeze`'s `typeof value === 'object' && value !== null` (either half → `true`, `&&` → `||`):
 *   `Object.isFrozen` is true for every primitive and for `null`, so the halves only name the intent.
 * - `deepFreeze`'s `!Object.isFrozen(value)` (→ `true`): freezing a frozen object again changes nothing on the
 *   acyclic output of `JSON.parse`.
 * - `sameInput`'s `text === snapshot.text` (→ `false`): a shortcut; the long way gives the same answer.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sameInput, sha256Hex, snapshotInput, withoutMarker } from '../../src/enforce/digest.js';
import { BACKGROUND_MARKER } from '../../src/frameworks/strands/sdk-input.js';

describe('sha256Hex', () => {
  describe('when given a text', () => {
    it('is the lower-case hex SHA-256 of the UTF-8 text', () => {
      expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      // UTF-8 (c3 a9), not Latin-1 (e9, which hashes to de2e331d…).
      expect(sha256Hex('\u00e9')).toBe('4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
    });
  });
});

describe('withoutMarker', () => {
  describe('when a top-level object carries the marker', () => {
    it("drops the SDK's background marker from a top-level object, without changing the input", () => {
      const input = { [BACKGROUND_MARKER]: true, path: 'a', n: 1 };
      const out = withoutMarker(input);
      expect(out).toEqual({ path: 'a', n: 1 });
      expect(Object.keys(out as object)).toEqual(['path', 'n']);
      expect(input).toEqual({ [BACKGROUND_MARKER]: true, path: 'a', n: 1 });
    });
  });

  describe('when there is no top-level marker', () => {
    it('hands back the same object when it has no marker', () => {
      const input = { path: 'a' };
      expect(withoutMarker(input)).toBe(input);
    });

    it('leaves arrays, nested markers, null, undefined and primitives as they are', () => {
      const array = Object.assign(['a'], { [BACKGROUND_MARKER]: true });
      expect(withoutMarker(array)).toBe(array);
      const nested = { inner: { [BACKGROUND_MARKER]: true } };
      expect(withoutMarker(nested)).toBe(nested);
      expect(withoutMarker(null)).toBe(null);
      expect(withoutMarker(undefined)).toBe(undefined);
      expect(withoutMarker('text')).toBe('text');
      expect(withoutMarker(7)).toBe(7);
    });
  });
});

describe('canonicalJson', () => {
  describe('when the value is JSON-like data', () => {
    it('writes each kind of JSON-like value exactly', () => {
      expect(canonicalJson('a"b')).toBe('"a\\"b"');
      expect(canonicalJson(true)).toBe('true');
      expect(canonicalJson(false)).toBe('false');
      expect(canonicalJson(1.5)).toBe('1.5');
      expect(canonicalJson(0)).toBe('0');
      expect(canonicalJson(-0)).toBe('-0');
      expect(canonicalJson(undefined)).toBe('undefined');
      expect(canonicalJson(null)).toBe('null');
      expect(canonicalJson([])).toBe('[]');
      expect(canonicalJson({})).toBe('{}');
    });

    it('sorts object keys and separates members and items with commas', () => {
      expect(canonicalJson({ b: 1, a: [1, 'x', null], c: { z: true, y: false } })).toBe(
        '{"a":[1,"x",null],"b":1,"c":{"y":false,"z":true}}',
      );
      expect(canonicalJson([3, 2, 1])).toBe('[3,2,1]');
    });

    it('tells apart what JSON.stringify would merge: -0 and 0, a present undefined and a missing key', () => {
      expect(canonicalJson({ a: -0 })).not.toBe(canonicalJson({ a: 0 }));
      expect(canonicalJson({ a: undefined })).toBe('{"a":undefined}');
      expect(canonicalJson({ a: undefined })).not.toBe(canonicalJson({}));
    });

    it('takes an object with a null prototype, and `__proto__` as just a key', () => {
      const bare = Object.create(null) as Record<string, unknown>;
      bare.k = 'v';
      expect(canonicalJson(bare)).toBe('{"k":"v"}');
      expect(canonicalJson(JSON.parse('{"__proto__":{"x":1}}'))).toBe('{"__proto__":{"x":1}}');
    });

    it('reads a value shared by two members, which is not a cycle', () => {
      const shared = { x: 1 };
      expect(canonicalJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
    });
  });

  describe('when the value is not plain JSON-like data', () => {
    for (const [what, value, message] of [
      ['NaN', Number.NaN, 'input holds a non-finite number (NaN)'],
      ['Infinity', [Number.POSITIVE_INFINITY], 'input holds a non-finite number (Infinity)'],
      ['a function', { f: () => 1 }, 'input holds a function'],
      ['a bigint', 1n, 'input holds a bigint'],
      ['a symbol', [Symbol('s')], 'input holds a symbol'],
      ['a Date', { when: new Date(0) }, 'input holds an object that is not plain data'],
      ['a Map', new Map(), 'input holds an object that is not plain data'],
      ['a class instance', new (class Point {})(), 'input holds an object that is not plain data'],
      ['an array subclass', new (class List extends Array {})(), 'input holds an array subclass'],
      ['an array with holes', Object.assign(new Array(3), { 0: 1, 2: 3 }), 'input holds an array with holes'],
    ] as const) {
      it(`throws on ${what}`, () => {
        expect(() => canonicalJson(value)).toThrow(new TypeError(message));
      });
    }

    it('throws on a cycle, through an object or an array', () => {
      const loop: Record<string, unknown> = {};
      loop.self = loop;
      expect(() => canonicalJson(loop)).toThrow(new TypeError('input is cyclic'));
      const list: unknown[] = [];
      list.push([list]);
      expect(() => canonicalJson(list)).toThrow(new TypeError('input is cyclic'));
    });
  });
});

describe('snapshotInput', () => {
  describe('when the input is JSON-like data', () => {
    it('copies the way the SDK does (a JSON round trip without the marker), freezes deeply and writes the form', () => {
      const input = { [BACKGROUND_MARKER]: true, b: -0, a: { list: [1, { deep: 'x' }] }, gone: undefined };
      const snap = snapshotInput(input);
      expect(snap.frozen).toEqual({ b: 0, a: { list: [1, { deep: 'x' }] } });
      expect(snap.frozen).not.toBe(input);
      expect(snap.text).toBe('{"b":0,"a":{"list":[1,{"deep":"x"}]}}');
      expect(snap.canonical).toBe('{"a":{"list":[1,{"deep":"x"}]},"b":0}');
      const frozen = snap.frozen as { a: { list: [number, { deep: string }] } };
      expect(Object.isFrozen(frozen)).toBe(true);
      expect(Object.isFrozen(frozen.a)).toBe(true);
      expect(Object.isFrozen(frozen.a.list)).toBe(true);
      expect(Object.isFrozen(frozen.a.list[1])).toBe(true);
    });
  });

  describe('when JSON cannot write the input', () => {
    it('takes an input JSON cannot write as undefined, with no text', () => {
      const fields = (s: ReturnType<typeof snapshotInput>) => ({
        frozen: s.frozen,
        canonical: s.canonical,
        text: s.text,
      });
      expect(fields(snapshotInput(undefined))).toEqual({ frozen: undefined, canonical: 'undefined', text: undefined });
      expect(fields(snapshotInput(() => 1))).toEqual({ frozen: undefined, canonical: 'undefined', text: undefined });
    });
  });

  describe('when the input has a getter', () => {
    it('reads a getter once, as the SDK copy does', () => {
      let reads = 0;
      const input = {
        get path(): string {
          reads += 1;
          return reads === 1 ? 'report.md' : '/etc/passwd';
        },
      };
      expect(snapshotInput(input).frozen).toEqual({ path: 'report.md' });
      expect(reads).toBe(1);
    });
  });
});

describe('sameInput', () => {
  const snap = snapshotInput({ a: 1, b: [2] });

  describe('when compared with a snapshot of data', () => {
    it('is true for the same text and for the same data with keys in another order', () => {
      expect(sameInput({ a: 1, b: [2] }, snap)).toBe(true);
      expect(sameInput({ b: [2], a: 1 }, snap)).toBe(true);
      expect(sameInput({ [BACKGROUND_MARKER]: true, b: [2], a: 1 }, snap)).toBe(true);
    });

    it('is false for any other data, including an input JSON cannot write', () => {
      expect(sameInput({ a: 1, b: [3] }, snap)).toBe(false);
      expect(sameInput({ a: 1 }, snap)).toBe(false);
      expect(sameInput(() => 1, snap)).toBe(false);
      expect(sameInput(undefined, snap)).toBe(false);
    });
  });

  describe('when both the input and the snapshot are undefined', () => {
    it('is true for an undefined input taken as undefined', () => {
      expect(sameInput(undefined, snapshotInput(undefined))).toBe(true);
    });
  });
});
