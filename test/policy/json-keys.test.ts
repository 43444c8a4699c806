import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../src/policy/json-keys.js';

describe('findDuplicateKey', () => {
  describe('when every object has distinct keys', () => {
    it('finds nothing: equal keys of sibling or nested objects, values equal to keys and strings in arrays are not keys', () => {
      expect(findDuplicateKey('{"a": "a", "b": {"a": 1}, "c": [{"a": 1}, {"a": 2}], "d": ["a", "d"]}')).toBeUndefined();
      expect(findDuplicateKey('{"a": "{\\"a\\": 1, \\"a\\": 2}", "b": 2}')).toBeUndefined();
      expect(findDuplicateKey('[{"a": 1}, {"a": 1}]')).toBeUndefined();
    });
  });

  describe('when an object repeats a key', () => {
    it('names the key, decoded, and the line of its second appearance', () => {
      expect(findDuplicateKey('{\n  "a": 1,\n  "b": [1, 2],\n  "a": 2\n}')).toEqual({ key: 'a', line: 4 });
      expect(findDuplicateKey('{"a\\"b": 1, "a\\u0022b": 2}')).toEqual({ key: 'a"b', line: 1 });
    });

    it('names the first duplicate in the document, in a nested object too', () => {
      expect(findDuplicateKey('{"x": {"k": 1, "k": 2},\n"x": 3}')).toEqual({ key: 'k', line: 1 });
      expect(findDuplicateKey('{"x": [1, {"y": 1}],\n"y": 1,\n"x": 2}')).toEqual({ key: 'x', line: 3 });
    });
  });
});
