/** Texts parsed lately: a tool answer is read by the agent, then by every check of its row. */
const PARSED = new Map<string, unknown>();
const REMEMBERED = 512;

/**
 * A JSON text parsed, or undefined when it does not parse; parsed once while it is recent.
 * The value is shared: read it, never change it.
 */
export function parsedJson(text: string): unknown {
  if (PARSED.has(text)) return PARSED.get(text);
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
