/**
 * Lookups in the shell analysis' and the policy's name tables by a name that comes from the judged input (a
 * command word, an option, a tool name): only the table's own entries count, so `constructor`, `toString` or
 * `__proto__` are unknown names, not `Object.prototype`'s members.
 */

/**
 * The entry a table holds under its own key.
 *
 * @param table - a name table written as an object literal
 * @param key - the name looked up
 * @returns the entry, or `undefined` when the table has no own entry of that name
 */
export function ownEntry<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
