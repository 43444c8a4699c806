/**
 * Duplicate keys in a JSON document: `JSON.parse` keeps the last of two equal keys silently, so a policy
 * with `"verdict": "deny", …, "verdict": "allow"` would mean something its first reader did not see.
 */

/** A key that appears twice in one object, with the line of its second appearance. */
export interface DuplicateKey {
  /** The key, decoded. */
  readonly key: string;
  /** 1-based line of the duplicate. */
  readonly line: number;
}

/**
 * Finds the first duplicate key of any object in a document that `JSON.parse` accepts.
 *
 * @param text - valid JSON
 * @returns the duplicate, or `undefined` when every object's keys are distinct
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  // Each open container: the keys of an object (null for an array), and whether the next string is a key.
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  let line = 1;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\n') line += 1;
    else if (c === '{') stack.push({ keys: new Set(), expectKey: true });
    else if (c === '[') stack.push({ keys: null, expectKey: false });
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') {
      const top = stack.at(-1);
      if (top?.keys !== null && top !== undefined) top.expectKey = true;
    } else if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (top?.keys !== null && top !== undefined && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) return { key, line };
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end;
    }
  }
  return undefined;
}
