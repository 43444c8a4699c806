/**
 * Safe reads (`src/walker/safe-read.ts`) on plain objects: a field is read from its own descriptor (no getter
 * runs), a `Proxy` is never looked into, plain arrays and maps are told from look-alikes, and members an instance or
 * a subclass shadows are named. The walker, classify and the enforce checks read the SDK's objects through these.
 */
import { describe, expect, it } from 'vitest';
import {
  className,
  dataField,
  describeFieldProblem,
  heldObjects,
  inheritsFrom,
  isPlainArray,
  isPlainMap,
  ownDataShape,
  readData,
  sameShape,
  shadowedMember,
  shadowingSubclassMember,
} from '../../src/walker/safe-read.js';

/** An object whose `field` is a getter that counts its runs. */
function withGetter(): { owner: object; runs: () => number } {
  let runs = 0;
  const owner = {};
  Object.defineProperty(owner, 'field', {
    get: () => {
      runs += 1;
      return 'x';
    },
  });
  return { owner, runs: () => runs };
}

describe('safe-read', () => {
  describe('when a field is read', () => {
    it('reads an own data property, and says why anything else is not read, running no getter or trap', () => {
      const { owner, runs } = withGetter();
      let traps = 0;
      const proxy = new Proxy({ field: 1 }, { getOwnPropertyDescriptor: () => (traps++, undefined) });
      expect(dataField({ field: 1 }, 'field')).toEqual({ ok: true, value: 1 });
      expect(dataField(owner, 'field')).toEqual({ ok: false, why: 'accessor' });
      expect(dataField(proxy, 'field')).toEqual({ ok: false, why: 'proxy' });
      expect(dataField({}, 'field')).toEqual({ ok: false, why: 'absent' });
      expect(dataField(Object.create({ field: 1 }) as object, 'field')).toEqual({ ok: false, why: 'absent' });
      expect(dataField(5, 'field')).toEqual({ ok: false, why: 'not-object' });
      expect(readData({ field: 1 }, 'field')).toBe(1);
      expect([readData(owner, 'field'), readData(proxy, 'field'), readData(null, 'field')]).toEqual([
        undefined,
        undefined,
        undefined,
      ]);
      expect([runs(), traps]).toEqual([0, 0]);
    });

    it('describes each kind of unreadable field for a finding, and nothing for a readable one', () => {
      expect(describeFieldProblem('agent', 'model', { ok: true, value: 1 })).toBeUndefined();
      expect(describeFieldProblem('agent', 'model', { ok: false, why: 'accessor' })).toBe(
        `agent's "model" is a getter, which could show gate-audit one value and the SDK another`,
      );
      expect(describeFieldProblem('agent', 'model', { ok: false, why: 'proxy' })).toMatch(/^agent is a Proxy/);
      expect(describeFieldProblem('agent', 'model', { ok: false, why: 'absent' })).toBe('agent has no "model"');
      expect(describeFieldProblem('agent', 'model', { ok: false, why: 'not-object' })).toBe('agent is not an object');
    });
  });

  describe('when an object is compared with itself later', () => {
    it('keeps its prototype and own data as a shape that changes when a field does', () => {
      const owner: Record<string, unknown> = { a: 1 };
      const before = ownDataShape(owner);
      expect(sameShape(before, ownDataShape(owner))).toBe(true);
      owner.a = 2;
      expect(sameShape(before, ownDataShape(owner))).toBe(false);
      expect(ownDataShape(withGetter().owner)).toBeUndefined();
      expect(ownDataShape(new Proxy({}, {}))).toBeUndefined();
      expect(sameShape(undefined, undefined)).toBe(false);
      expect(ownDataShape(3)).toEqual([3]);
    });
  });

  describe('when a collection may be a look-alike', () => {
    it('takes only a plain array of data items, and only a plain Map with no own properties', () => {
      expect(isPlainArray([1, 2])).toBe(true);
      const ownMap = [1];
      Object.defineProperty(ownMap, 'map', { value: () => [] });
      const getterItem: unknown[] = [];
      Object.defineProperty(getterItem, 0, { get: () => 1, enumerable: true });
      class MyArray extends Array {}
      for (const value of [ownMap, getterItem, new Proxy([1], {}), MyArray.from([1]), { length: 0 }]) {
        expect(isPlainArray(value)).toBe(false);
      }
      expect(isPlainMap(new Map([[1, 2]]))).toBe(true);
      const patched = new Map();
      Object.defineProperty(patched, 'get', { value: () => undefined });
      class MyMap extends Map {}
      for (const value of [patched, new MyMap(), new Proxy(new Map(), {}), {}]) expect(isPlainMap(value)).toBe(false);
    });
  });

  describe('when an instance or a subclass shadows a member', () => {
    class Base {
      run(): string {
        return 'base';
      }
    }
    class Sub extends Base {
      override run(): string {
        return 'sub';
      }
    }

    it('names the member an instance overrides, unless it is allowed', () => {
      const patched = new Base();
      Object.defineProperty(patched, 'run', { value: () => 'patched' });
      expect(shadowedMember(patched, Base.prototype)).toBe('run');
      expect(shadowedMember(patched, Base.prototype, new Set(['run']))).toBeUndefined();
      expect(shadowedMember(new Base(), Base.prototype)).toBeUndefined();
    });

    it('names the member a subclass overrides, and tells a subclass by its prototype chain', () => {
      expect(shadowingSubclassMember(new Sub(), Base.prototype)).toBe('run');
      expect(shadowingSubclassMember(new Base(), Base.prototype)).toBeUndefined();
      expect(inheritsFrom(new Sub(), Base.prototype)).toBe(true);
      expect(inheritsFrom({}, Base.prototype)).toBe(false);
      expect(inheritsFrom(new Proxy(new Sub(), {}), Base.prototype)).toBe(false);
      expect([
        className(new Sub()),
        className(new Proxy({}, {})),
        className(Object.create(null)),
        className(1),
      ]).toEqual(['Sub', 'Proxy', 'Object', 'number']);
    });
  });

  describe('when the objects an owner holds are listed', () => {
    it('lists own data values and the entries of a Map or a Set, never a getter’s or a Proxy’s', () => {
      const a = { name: 'a' };
      const b = { name: 'b' };
      const c = { name: 'c' };
      const owner = { a, n: 1 };
      Object.defineProperty(owner, 'hidden', { get: () => b });
      expect(heldObjects(owner)).toEqual([a]);
      expect(heldObjects(new Map([['k', b]]))).toEqual([b]);
      expect(heldObjects(new Set([c, 1]))).toEqual([c]);
      expect(heldObjects(new Proxy({ a }, {}))).toEqual([]);
    });
  });
});
