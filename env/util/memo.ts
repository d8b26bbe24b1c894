/**
 * `compute` remembered by its string key. For what is worked out from a spec's names and texts:
 * the same few are asked again and again, and once `limit` are held the memo starts afresh, so a
 * process that reads many specs stays bounded. The values are shared: read them, never change them.
 */
export function memoized<T>(compute: (key: string) => T, limit = 10_000): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined && !known.has(key)) {
      value = compute(key);
      if (known.size >= limit) known.clear();
      known.set(key, value);
    }
    return value as T;
  };
}
