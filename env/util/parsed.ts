/** Texts parsed lately: a tool answer is read by the agent, then by every check of its row. */
const PARSED = new Map<string, unknown>();
const REMEMBERED = 512;

/**
 * A JSON text parsed, or undefined when it does not parse; parsed once while it is recent.
 * The value is shared: read it, never change it.
 */
export function parsedJson(text: string): unknown {
  // One lookup for the common case: comparing a long answer with its key twice costs.
  const known = PARSED.get(text);
  if (known !== undefined || PARSED.has(text)) return known;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (PARSED.size >= REMEMBERED) PARSED.clear();
  PARSED.set(text, value);
  return value;
}
