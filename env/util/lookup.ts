/**
 * A table entry by a key that comes from a spec (an entity, a verb, a stance name): only the
 * table's own entries, so that a name such as `constructor` never reaches Object.prototype.
 */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/**
 * The prototype of every object keyed by spec names: empty, frozen, with none of its own. It
 * holds no `__proto__` accessor, so that key is stored like any other, and unlike
 * `Object.create(null)` it leaves V8 its fast property layout (a world's records are read,
 * copied and serialised for every call).
 */
const NO_PROPERTIES: object = Object.freeze(Object.create(null));

/** Whether an object was made by {@link keyed}. */
export function isKeyed(value: object): boolean {
  return Object.getPrototypeOf(value) === NO_PROPERTIES;
}

/** An empty object for keys taken from a spec: `__proto__`, `constructor` and `toString` are plain keys in it. */
export function keyed<T = unknown>(): Record<string, T> {
  return Object.create(NO_PROPERTIES);
}
