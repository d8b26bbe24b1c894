/**
 * A table entry by a key that comes from a spec (an entity, a verb, a stance name): only the
 * table's own entries, so that a name such as `constructor` never reaches Object.prototype.
 */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
