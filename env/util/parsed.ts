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

/**
 * The error a tool answer carries (`{"error": "not_found", …}`), as text, or null: an `error`
 * that holds nothing (null, false, "") is a success that names the field, not a failure.
 */
export function errorIn(body: unknown): string | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const error = (body as { error?: unknown }).error;
  if (error === undefined || error === null || error === false || error === "") return null;
  return typeof error === "string" ? error : JSON.stringify(error);
}
