/** One passage of a markdown policy: a bullet, a numbered step, or a sentence of a paragraph, with the headings above it. */
export interface Passage {
  text: string;
  /** The headings it sits under, outermost first ("Retail agent policy", "Cancel pending order"); passages of one section share the list. */
  readonly headings: readonly string[];
  /** The bullet a nested bullet belongs to, as context ("When cancelling:" for its sub-items). */
  lead: string | null;
  kind: "bullet" | "sentence";
}

const TABLE_ROW = /^\s*\|/;
/** A sentence ends at . ! or ? followed by space and a capital, a digit, a quote or a bracket. */
const SENTENCE_END = /(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u;

/**
 * How much of a heading, or of the bullet a nested bullet belongs to, each passage keeps as its
 * context. Real ones are far shorter; the bound keeps what every passage under a huge heading is
 * read with from growing with the heading, so the reading stays linear in the policy.
 */
const MOST_CONTEXT = 300;

/**
 * Splits a markdown policy into passages: one per bullet or numbered step (continuation lines
 * joined, nested bullets keeping their parent as `lead`), one per sentence of any other paragraph.
 * Headings are kept as context, never made passages; code fences and table rows are skipped.
 */
export function passagesOf(markdown: string): Passage[] {
  const out: Passage[] = [];
  const headings: { level: number; text: string }[] = [];
  /** Open bullets by indent, so a nested bullet knows its parent: each with its text as a lead. */
  const open: { indent: number; lead: string }[] = [];
  let bullet: { indent: number; text: string } | null = null;
  let paragraph: string[] = [];
  let fenced = false;
  // One list of headings for every passage under them, made again only when a heading changes.
  let shared: string[] | null = null;
  const context = () => {
    shared ??= headings.map((h) => h.text);
    return shared;
  };
  const flushBullet = () => {
    if (bullet?.text.trim()) {
      const indent = bullet.indent;
      const parent = open.findLast((b) => b.indent < indent);
      const text = clean(bullet.text);
      out.push({ text, headings: context(), lead: parent ? parent.lead : null, kind: "bullet" });
      while (open.length > 0 && (open.at(-1) as { indent: number }).indent >= bullet.indent)
        open.pop();
      open.push({ indent: bullet.indent, lead: text.slice(0, MOST_CONTEXT) });
    }
    bullet = null;
  };
  const flushParagraph = () => {
    const text = paragraph.join(" ").trim();
    for (const sentence of text.split(SENTENCE_END)) {
      const s = clean(sentence);
      if (s) out.push({ text: s, headings: context(), lead: null, kind: "sentence" });
    }
    paragraph = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced || TABLE_ROW.test(line)) continue;
    const heading = headingOf(line);
    if (heading) {
      flushBullet();
      flushParagraph();
      open.length = 0;
      shared = null;
      while (headings.length > 0 && (headings.at(-1) as { level: number }).level >= heading.level)
        headings.pop();
      headings.push({ level: heading.level, text: clean(heading.text).slice(0, MOST_CONTEXT) });
      continue;
    }
    const item = bulletOf(line);
    if (item) {
      flushBullet();
      flushParagraph();
      bullet = item;
    } else if (!line.trim()) {
      flushBullet();
      flushParagraph();
      open.length = 0;
    } else if (bullet !== null) {
      bullet.text += ` ${line.trim()}`;
    } else {
      paragraph.push(line.trim());
    }
  }
  flushBullet();
  flushParagraph();
  return out;
}

/*
 * A heading or a bullet is read by hand, in one pass over the line: the patterns that said it
 * (`^\s*(#{1,6})\s+(.*?)\s*#*\s*$`) tried the rest of the line from each character of the heading,
 * so a heading followed by thousands of spaces took minutes.
 */

const WHITESPACE = /\s/;
/** What `.` does not match: a line that holds one is neither a heading nor a bullet. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

/** How many characters from `at` are whitespace. */
function spaces(line: string, at: number): number {
  let end = at;
  while (end < line.length && WHITESPACE.test(line[end] as string)) end++;
  return end - at;
}

/** A heading line (`## Refunds ##`): its level and its text, closing hashes and spaces left out. */
function headingOf(line: string): { level: number; text: string } | null {
  const start = spaces(line, 0);
  let at = start;
  while (at < line.length && line[at] === "#") at++;
  const level = at - start;
  if (level < 1 || level > 6 || spaces(line, at) === 0) return null;
  let end = line.length;
  while (end > at && WHITESPACE.test(line[end - 1] as string)) end--;
  while (end > at && line[end - 1] === "#") end--;
  while (end > at && WHITESPACE.test(line[end - 1] as string)) end--;
  const text = line.slice(at + spaces(line, at), Math.max(end, at + spaces(line, at)));
  return LINE_BREAK.test(text) ? null : { level, text };
}

/** A bullet or numbered step (`- Confirm first`, `2) Refund`): how far it is indented, and its text. */
function bulletOf(line: string): { indent: number; text: string } | null {
  const indent = spaces(line, 0);
  let at = indent;
  if ("-*+".includes(line[at] ?? "x")) at++;
  else {
    while (at < line.length && line[at] !== undefined && /\d/.test(line[at] as string)) at++;
    if (at === indent || !".)".includes(line[at] ?? "x")) return null;
    at++;
  }
  const gap = spaces(line, at);
  if (gap === 0) return null;
  const text = line.slice(at + gap);
  return LINE_BREAK.test(text) ? null : { indent, text };
}

/** Text without markdown emphasis, code marks and link targets. Linear: no pattern here can backtrack. */
export function clean(text: string): string {
  // Links are read by hand, `[text](target)` keeping its text: a pattern here can be made to
  // backtrack on a run of `[a](`. The next `]` and the next `)` are found by pointers that only
  // move forward, so the whole read is one pass; the text is kept as slices between links.
  if (!text.includes("[")) return plainText(text);
  const kept: string[] = [];
  let from = 0;
  let close = -1;
  let paren = -1;
  for (let i = text.indexOf("["); i >= 0; i = text.indexOf("[", i + 1)) {
    if (close <= i) close = text.indexOf("]", i + 1);
    // No `]` after this `[` is none after any later one either.
    if (close < 0) break;
    if (text[close + 1] !== "(") continue;
    if (paren < close + 2) paren = text.indexOf(")", close + 2);
    if (paren < 0) break;
    kept.push(text.slice(from, i), text.slice(i + 1, close));
    from = paren + 1;
    i = paren;
  }
  kept.push(text.slice(from));
  return plainText(kept.join(""));
}

/** Text without emphasis and code marks, its whitespace one space. */
function plainText(text: string): string {
  return text
    .replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
