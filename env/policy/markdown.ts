/** One passage of a markdown policy: a bullet, a numbered step, or a sentence of a paragraph, with the headings above it. */
export interface Passage {
  text: string;
  /** The headings it sits under, outermost first ("Retail agent policy", "Cancel pending order"). */
  headings: string[];
  /** The bullet a nested bullet belongs to, as context ("When cancelling:" for its sub-items). */
  lead: string | null;
  kind: "bullet" | "sentence";
}

const BULLET = /^(\s*)(?:[-*+]|\d+[.)])\s+(.*)$/;
const HEADING = /^\s*(#{1,6})\s+(.*?)\s*#*\s*$/;
const TABLE_ROW = /^\s*\|/;
/** A sentence ends at . ! or ? followed by space and a capital, a digit, a quote or a bracket. */
const SENTENCE_END = /(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u;

/**
 * Splits a markdown policy into passages: one per bullet or numbered step (continuation lines
 * joined, nested bullets keeping their parent as `lead`), one per sentence of any other paragraph.
 * Headings are kept as context, never made passages; code fences and table rows are skipped.
 */
export function passagesOf(markdown: string): Passage[] {
  const out: Passage[] = [];
  const headings: { level: number; text: string }[] = [];
  /** Open bullets by indent, so a nested bullet knows its parent. */
  const open: { indent: number; text: string }[] = [];
  let bullet: { indent: number; text: string } | null = null;
  let paragraph: string[] = [];
  let fenced = false;
  const context = () => headings.map((h) => h.text);
  const flushBullet = () => {
    if (bullet?.text.trim()) {
      const parent = [...open]
        .reverse()
        .find((b) => b.indent < (bullet as { indent: number }).indent);
      out.push({
        text: clean(bullet.text),
        headings: context(),
        lead: parent ? clean(parent.text) : null,
        kind: "bullet",
      });
      while (open.length > 0 && (open.at(-1) as { indent: number }).indent >= bullet.indent)
        open.pop();
      open.push(bullet);
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
    const heading = HEADING.exec(line);
    if (heading) {
      flushBullet();
      flushParagraph();
      open.length = 0;
      const level = (heading[1] as string).length;
      while (headings.length > 0 && (headings.at(-1) as { level: number }).level >= level)
        headings.pop();
      headings.push({ level, text: clean(heading[2] as string) });
      continue;
    }
    const item = BULLET.exec(line);
    if (item) {
      flushBullet();
      flushParagraph();
      bullet = { indent: (item[1] as string).length, text: item[2] as string };
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

/** Text without markdown emphasis, code marks and link targets. Linear: no pattern here can backtrack. */
export function clean(text: string): string {
  // Links are read by hand, `[text](target)` keeping its text: a pattern here can be made to
  // backtrack on a run of `[a](`. The next `]` and `)` after each position are found in one pass
  // from the end, so the whole read is linear.
  const nextClose = new Int32Array(text.length + 1).fill(-1);
  const nextParen = new Int32Array(text.length + 1).fill(-1);
  for (let i = text.length - 1; i >= 0; i--) {
    nextClose[i] = text[i] === "]" ? i : (nextClose[i + 1] as number);
    nextParen[i] = text[i] === ")" ? i : (nextParen[i + 1] as number);
  }
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "[") {
      const close = nextClose[i + 1] as number;
      const end = close > 0 && text[close + 1] === "(" ? (nextParen[close + 2] ?? -1) : -1;
      if (end > 0) {
        out += text.slice(i + 1, close);
        i = end + 1;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out
    .replace(/\*\*|__|`/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
