/**
 * The UTF-8 bytes of `JSON.stringify(value)` when they are over `limit`, else null. Most values are
 * far under their limit, so the JSON is written only when a quick upper bound does not settle it.
 */
export function jsonBytesOver(value: unknown, limit: number): number | null {
  if (bytesAtMost(value) <= limit) return null;
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
  return bytes > limit ? bytes : null;
}

/**
 * Longest JSON of a number: 17 significant digits under 1e-5, which JavaScript still writes out in
 * full (`-0.0000012345678901234567`); a logprob looks just like that.
 */
const NUMBER_BYTES = 25;

/**
 * An upper bound on the UTF-8 bytes of a plain JSON value's text: a string's UTF-16 unit takes at
 * most 6 bytes (a `\u` escape and four hex digits). A value that is not plain data (one with `toJSON`, a
 * function) is unbounded, so the caller measures it.
 */
function bytesAtMost(value: unknown): number {
  switch (typeof value) {
    case "string":
      return 6 * value.length + 2;
    case "number":
      return NUMBER_BYTES;
    case "boolean":
    case "undefined":
      return 5;
    case "object": {
      if (value === null) return 4;
      if (typeof (value as { toJSON?: unknown }).toJSON === "function")
        return Number.POSITIVE_INFINITY;
      let bytes = 2;
      if (Array.isArray(value)) {
        for (const item of value) bytes += bytesAtMost(item) + 1;
        return bytes;
      }
      for (const key in value)
        if (Object.hasOwn(value, key))
          bytes += 6 * key.length + 4 + bytesAtMost((value as Record<string, unknown>)[key]);
      return bytes;
    }
    default:
      return Number.POSITIVE_INFINITY;
  }
}
