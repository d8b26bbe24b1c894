import { keyed } from "./lookup.ts";

/**
 * A deep copy of JSON data (objects, arrays, strings, numbers, booleans, null), as
 * `structuredClone` makes it but about ten times faster on the small objects an episode copies.
 * Objects come back plain, or with `keepKeyed` those {@link keyed} by spec names stay keyed; a key
 * named `__proto__` stays an own key, as structuredClone keeps it.
 */
export function copyData<T>(value: T, keepKeyed = false): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) out[i] = copyData(value[i], keepKeyed);
    return out as T;
  }
  const out: Record<string, unknown> =
    keepKeyed && Object.getPrototypeOf(value) !== Object.prototype ? keyed() : {};
  for (const key of Object.keys(value)) {
    const member = copyData((value as Record<string, unknown>)[key], keepKeyed);
    if (key === "__proto__")
      Object.defineProperty(out, key, {
        value: member,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = member;
  }
  return out as T;
}
