/** A date whole, a word of four letters or more, or a number of two digits or more. */
const TELLING = /\d{4}-\d{2}-\d{2}|[a-z]{4,}|\d{2,}/g;

/**
 * The words in a text that can tell one record from another, lower-cased: a name ("meadow"), a
 * number, a date kept whole, so "2026-05-30" is not matched by "2026-05-31" on its year and month.
 */
export function tellingWords(text: string): string[] {
  return text.toLowerCase().match(TELLING) ?? [];
}
