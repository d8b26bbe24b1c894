import { RE2JS } from "re2js";

/** A string as a literal inside a regular expression. */
export function regexLiteral(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Whether a character is a word character (`\\w`) or a hyphen. */
function joins(code: number): boolean {
  return (
    (code >= 48 && code <= 57) ||
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    code === 95 ||
    code === 45
  );
}

/**
 * `text` with every stand-alone `value` (no word character or hyphen on either side) replaced by
 * `by`: what `(?<![\\w-])value(?![\\w-])` would replace, found without compiling a pattern for
 * each value (a value is new to every conversation, and V8 compiles each new pattern anew).
 */
export function replaceStandalone(text: string, value: string, by: string): string {
  if (value === "") return text;
  let out = "";
  let from = 0;
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const end = at + value.length;
    // Read within the text only: an index past its end would cost the optimised code its speed.
    if (
      at < from ||
      (at > 0 && joins(text.charCodeAt(at - 1))) ||
      (end < text.length && joins(text.charCodeAt(end)))
    )
      continue;
    out += text.slice(from, at) + by;
    from = end;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** A spec's pattern that cannot be matched in linear time, or is no regular expression at all. */
export class PatternError extends Error {
  override name = "PatternError";
  constructor(
    readonly pattern: string,
    readonly reason: string,
    /** Where the pattern sits in its schema (`properties.code.pattern`), when known. */
    readonly at?: string,
  ) {
    super(`${at ? `${at}: ` : ""}${JSON.stringify(pattern)} ${reason}`);
  }
}

/** What `\s` matches in a JavaScript pattern (RE2's own `\s` is ASCII whitespace only). */
const JS_SPACE = String.raw`\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff`;

/** What `.` matches in a JavaScript pattern: any character but a line terminator. */
const JS_DOT = String.raw`[^\n\r\u2028\u2029]`;

/**
 * A pattern from a spec (ECMA-262, as JSON Schema writes it, read with the `u` flag) compiled for
 * RE2, whose matching time is linear in the input: a client's argument can never make it backtrack.
 * Throws a {@link PatternError} for what RE2 cannot run (backreferences, lookaround, a repeat over
 * 1000) and for what is not a regular expression. Compiled once per pattern.
 *
 * @example
 * linearPattern("^([a-zA-Z0-9]+\\s?)*$").test(`${"a".repeat(100_000)}!`); // false, in microseconds
 */
export function linearPattern(pattern: string): RE2JS {
  let compiled = COMPILED.get(pattern);
  if (compiled === undefined) {
    try {
      compiled = RE2JS.compile(RE2JS.translateRegExp(forRe2(pattern)));
    } catch (error) {
      compiled =
        error instanceof PatternError
          ? error
          : new PatternError(
              pattern,
              `cannot be compiled by RE2, which matches patterns in linear time: ${(error as Error).message}`,
            );
    }
    // Patterns come from specs: a bounded memo, compiled once and matched for every argument.
    if (COMPILED.size >= 10_000) COMPILED.clear();
    COMPILED.set(pattern, compiled);
  }
  if (compiled instanceof PatternError) throw compiled;
  return compiled;
}

const COMPILED = new Map<string, RE2JS | PatternError>();

/**
 * The pattern in RE2's terms where JavaScript's differ (`\s`, `.`), after refusing what only a
 * backtracking engine runs. `\S` inside a class keeps RE2's ASCII meaning: a class cannot hold a
 * complement, and `[\s\S]`, the usual way to say "anything", still means anything.
 */
function forRe2(pattern: string): string {
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    throw new PatternError(pattern, `is not a regular expression: ${(error as Error).message}`);
  }
  const refuse = (what: string) =>
    new PatternError(
      pattern,
      `uses ${what}, which needs a backtracking engine; rehearse matches patterns in linear time (RE2)`,
    );
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] as string;
    if (c === "\\") {
      const next = pattern[i + 1] ?? "";
      i++;
      if (!inClass && (/[1-9]/.test(next) || next === "k")) throw refuse("a backreference");
      if (next === "s") out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === "S" && !inClass) out += `[^${JS_SPACE}]`;
      else out += `\\${next}`;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else if (c === ".") {
      out += JS_DOT;
    } else if (c === "(" && /^\(\?(=|!|<=|<!)/.test(pattern.slice(i, i + 4))) {
      throw refuse("a lookaround ((?=…), (?!…), (?<=…) or (?<!…))");
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Every non-empty stretch of `text` that a spec's pattern matches as a whole token, found as
 * `matchAll` finds them (left to right, none overlapping), in time linear in the text for each;
 * null when the pattern cannot run in linear time. A token has no `edge` character (a class body,
 * word characters by default) just before or after it, and the pattern's own anchors become
 * those token edges: "4963" is not a four-digit PIN inside "675649631".
 */
export function tokenMatches(
  pattern: string,
  text: string,
  edge = String.raw`\w`,
): { value: string; at: number }[] | null {
  const key = `${edge}\u0000${pattern}`;
  let token = TOKENS.get(key);
  if (token === undefined) {
    try {
      // Refuses, as argument checks do, what RE2 cannot run.
      linearPattern(pattern);
      const body = RE2JS.translateRegExp(forRe2(pattern.replace(/^\^/, "").replace(/\$$/, "")));
      // RE2 runs a lookbehind without captures in linear time, but no lookahead: the trailing edge
      // is matched as a character after a capture of the token.
      token = RE2JS.compile(`(?<![${edge}])(${body})(?:[^${edge}]|$)`, RE2JS.LOOKBEHINDS);
    } catch {
      token = null;
    }
    if (TOKENS.size >= 10_000) TOKENS.clear();
    TOKENS.set(key, token);
  }
  if (token === null) return null;
  const m = token.matcher(text);
  const found: { value: string; at: number }[] = [];
  let from = 0;
  // Like matchAll: the next search starts where the token ended, or one on from an empty one.
  while (from <= text.length && m.find(from)) {
    const value = m.group(1) ?? "";
    if (value !== "") found.push({ value, at: m.start(1) });
    from = value === "" ? m.start(1) + 1 : m.end(1);
  }
  return found;
}

const TOKENS = new Map<string, RE2JS | null>();

/** The last non-blank token of `text` that a spec's pattern matches ({@link tokenMatches}), or null. */
export function lastTokenMatch(pattern: string, text: string): string | null {
  const found = tokenMatches(pattern, text) ?? [];
  return found.findLast((m) => m.value.trim().length > 0)?.value ?? null;
}
