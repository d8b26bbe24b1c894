/** Text made safe to place in HTML, between tags or inside a quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/**
 * A value as JSON to sit inside `<script type="application/json">`: every `<` (so no text can close
 * the script or open a comment), `>` and `&` written as `\u` escapes, which JSON.parse reads back.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** A fraction as a whole percentage, or a dash when there is none. */
export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? "–" : `${Math.round(fraction * 100)}%`;
}
