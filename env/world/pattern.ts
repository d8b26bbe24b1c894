import RandExpModule from "randexp";
import type { Rng } from "../rng.ts";
import { linearPattern } from "../util/regex.ts";

type Piece = { chars: string; min: number; max: number };

/**
 * Whether a string the world made (an id, a postcode, a phone) fits a spec's pattern, as the
 * argument check will judge it: by RE2, in time linear in the string, whatever the pattern. Null
 * when the pattern cannot run so (the spec is refused for it before any world is built) or is too
 * large to compile.
 */
export function patternCheck(pattern: string): ((text: string) => boolean) | null {
  try {
    const re = linearPattern(pattern);
    return (text) => re.test(text);
  } catch {
    return null;
  }
}

/** A generator of strings that match a pattern, and the fewest characters a match takes. */
export interface PatternGenerator {
  make: (rng: Rng) => string;
  minLength: number;
}

// randexp is CommonJS; under NodeNext its default export arrives as the module object.
const RandExp = RandExpModule as unknown as typeof RandExpModule.default;

/** Repeats an open-ended quantifier (`+`, `*`) makes at most, in strings made by randexp. */
const OPEN_REPEATS = 8;

/**
 * The most characters a string the world makes from a pattern has: no id or value is longer, and
 * nested repeats (`((a)+)+`…) would otherwise multiply it by nine at each level.
 */
export const MOST_MADE = 4096;

/**
 * A generator for strings matching a regular expression: a simple one (literals, classes, fixed
 * and open repeats) by our own reader, which keeps identifiers short and readable; any other
 * (groups, alternation) by randexp, drawing from our seeded stream. Null when the pattern is not
 * a valid regular expression.
 */
export function fromPattern(pattern: string): PatternGenerator | null {
  let generator = GENERATORS.get(pattern);
  if (generator === undefined) {
    generator = readPattern(pattern);
    // Patterns come from specs: a bounded memo, read once and drawn from for every record.
    if (GENERATORS.size >= 10_000) GENERATORS.clear();
    GENERATORS.set(pattern, generator);
  }
  return generator;
}

const GENERATORS = new Map<string, PatternGenerator | null>();

function readPattern(pattern: string): PatternGenerator | null {
  const simple = simplePattern(pattern);
  if (simple) return simple;
  let source: RegExp;
  try {
    source = new RegExp(pattern, "u");
  } catch {
    return null;
  }
  // Open repeats make fewer runs where the pattern's strings would grow past MOST_MADE; a pattern
  // whose fixed repeats alone do makes none.
  const tokens = (new RandExp(source) as unknown as { tokens: Token }).tokens;
  let open = OPEN_REPEATS;
  while (open >= 0 && longest(tokens, open, 0) > MOST_MADE) open--;
  if (open < 0) return null;
  return {
    minLength: 0,
    make: (rng) => {
      const generator = new RandExp(source);
      generator.max = open;
      generator.randInt = (a: number, b: number) => a + rng.int(b - a + 1);
      return generator.gen();
    },
  };
}

/** A token of a pattern as randexp reads it (ret's token types). */
interface Token {
  type: number;
  stack?: Token[];
  options?: Token[][];
  min?: number;
  max?: number;
  value?: Token | number;
}

const GROUPING = new Set([0, 1]);
const [SET, REPETITION, CHAR] = [3, 5, 7];

/**
 * The most characters randexp can make from a token when each open repeat makes at most `open`
 * runs more than its minimum; beyond 200 levels of nesting, more than any string is allowed.
 */
function longest(token: Token, open: number, depth: number): number {
  if (depth > 200) return Number.POSITIVE_INFINITY;
  if (GROUPING.has(token.type)) {
    const sum = (stack: Token[]) => stack.reduce((n, t) => n + longest(t, open, depth + 1), 0);
    return token.options ? Math.max(0, ...token.options.map(sum)) : sum(token.stack ?? []);
  }
  if (token.type === REPETITION) {
    const min = token.min ?? 0;
    const runs = token.max === Number.POSITIVE_INFINITY ? min + open : (token.max ?? min);
    return runs === 0 ? 0 : runs * longest(token.value as Token, open, depth + 1);
  }
  return token.type === SET || token.type === CHAR ? 1 : 0;
}

/**
 * A generator for strings matching a simple regular expression, or null when it is not simple.
 * Open-ended repeats (`+`, `*`, `{n,}`) make runs long enough for a world's worth of distinct values.
 */
function simplePattern(pattern: string): PatternGenerator | null {
  const pieces: Piece[] = [];
  let i = 0;
  const source = pattern.replace(/^\^/, "").replace(/\$$/, "");
  while (i < source.length) {
    let chars: string | null = null;
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[i + 1];
      chars =
        next === "d"
          ? "0123456789"
          : next === "w"
            ? "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
            : next === "-" || next === "." || next === "_"
              ? next
              : null;
      i += 2;
    } else if (c === "[") {
      const end = source.indexOf("]", i);
      if (end < 0) return null;
      chars = expandClass(source.slice(i + 1, end));
      i = end + 1;
    } else if (/[A-Za-z0-9_\-:#/ ]/.test(c)) {
      chars = c;
      i++;
    }
    if (chars === null || chars === "") return null;
    const quantifier = /^(\{(\d+)(?:,(\d*))?\}|\?|\+|\*)/.exec(source.slice(i));
    let min = 1;
    let max = 1;
    if (quantifier) {
      i += quantifier[0].length;
      if (quantifier[1]?.startsWith("{")) {
        min = Number(quantifier[2]);
        max =
          quantifier[3] === undefined
            ? min
            : quantifier[3] === ""
              ? Math.max(min, 5) + 3
              : Number(quantifier[3]);
        if (quantifier[3] === "") min = Math.max(min, 5);
      } else if (quantifier[0] === "?") [min, max] = [0, 1];
      else [min, max] = [5, 8];
    }
    pieces.push({ chars, min, max });
  }
  // Longer strings are for randexp's reading, which bounds them.
  if (pieces.length === 0 || pieces.reduce((sum, p) => sum + p.max, 0) > MOST_MADE) return null;
  return {
    minLength: pieces.reduce((sum, p) => sum + p.min, 0),
    make: (rng) => {
      let out = "";
      for (const piece of pieces) {
        const n =
          piece.min === piece.max ? piece.min : piece.min + rng.int(piece.max - piece.min + 1);
        for (let k = 0; k < n; k++) out += piece.chars[rng.int(piece.chars.length)];
      }
      return out;
    },
  };
}

function expandClass(body: string): string | null {
  if (body.startsWith("^")) return null;
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c === "\\" && body[i + 1] === "d") {
      out += "0123456789";
      i++;
    } else if (body[i + 1] === "-" && i + 2 < body.length) {
      const from = c.charCodeAt(0);
      const to = (body[i + 2] as string).charCodeAt(0);
      for (let code = from; code <= to; code++) out += String.fromCharCode(code);
      i += 2;
    } else out += c;
  }
  return out;
}
