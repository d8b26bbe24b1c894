import type { Rule } from "../spec/index.ts";

const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;
const HEADING = /^\s*#{1,6}\s/;
const SENTENCE_END = /(?<=[.!?])\s+(?=["'(\p{Lu}\d])/u;

/**
 * Splits a markdown policy into rules: one per bullet (continuation lines joined), and one per
 * sentence of any other paragraph. Headings and code fences are not rules.
 */
export function rulesFromMarkdown(markdown: string): Rule[] {
  const texts: string[] = [];
  let bullet: string | null = null;
  let paragraph: string[] = [];
  let fenced = false;
  const flushBullet = () => {
    const text = bullet?.trim();
    if (text) texts.push(text);
    bullet = null;
  };
  const flushParagraph = () => {
    const text = paragraph.join(" ").trim();
    if (text)
      texts.push(
        ...text
          .split(SENTENCE_END)
          .map((s) => s.trim())
          .filter(Boolean),
      );
    paragraph = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    const item = BULLET.exec(line);
    if (item) {
      flushBullet();
      flushParagraph();
      bullet = item[1] ?? "";
    } else if (!line.trim() || HEADING.test(line)) {
      flushBullet();
      flushParagraph();
    } else if (bullet !== null) {
      bullet += ` ${line.trim()}`;
    } else {
      paragraph.push(line.trim());
    }
  }
  flushBullet();
  flushParagraph();
  const seen = new Map<string, number>();
  return texts.map((text) => {
    const slug = slugOf(text);
    const n = (seen.get(slug) ?? 0) + 1;
    seen.set(slug, n);
    return { id: n === 1 ? slug : `${slug}_${n}`, text: stripMarkdown(text) };
  });
}

const STOP_WORDS = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "and",
  "or",
  "it",
  "is",
  "be",
  "any",
  "that",
  "for",
  "with",
  "you",
  "your",
  "always",
]);

/** A readable id from the rule's first meaningful words: "Always confirm before moving money" → `confirm_before_moving_money`. */
function slugOf(text: string): string {
  const words = stripMarkdown(text)
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9\s]/g, " ")
    .split(/\s+/)
    .filter((w) => w && !STOP_WORDS.has(w));
  const slug = words.slice(0, 5).join("_").slice(0, 48).replace(/_+$/, "");
  return /^[a-z]/.test(slug) ? slug : `rule_${slug || "text"}`;
}

function stripMarkdown(text: string): string {
  return text
    .replace(/\*\*|__|`/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim();
}
