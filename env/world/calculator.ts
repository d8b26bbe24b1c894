/** Longest expression the calculator reads: an agent's arithmetic, not a program. */
const MAX_LENGTH = 500;
/** Deepest nesting of brackets it follows. */
const MAX_DEPTH = 50;

/** The value of an arithmetic expression, or why it has none. */
export type Calculation = { ok: true; value: number } | { ok: false; reason: string };

/**
 * Evaluates arithmetic the way a calculator tool would, without `eval`: numbers (decimals,
 * thousands commas, a leading currency sign, a trailing %), + - * / and ^, unary minus and
 * brackets, with the usual precedence. Anything else is refused with the reason.
 */
export function calculate(expression: string): Calculation {
  if (expression.length > MAX_LENGTH)
    return { ok: false, reason: `the expression is longer than ${MAX_LENGTH} characters` };
  const reader = new Reader(expression);
  try {
    const value = reader.expression(0);
    reader.skipSpace();
    if (!reader.done()) return { ok: false, reason: `unexpected "${reader.rest()}"` };
    if (!Number.isFinite(value)) return { ok: false, reason: "the result is not a finite number" };
    return { ok: true, value };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** A result as a calculator shows it: at most 10 significant decimals, no float noise. */
export function formatResult(value: number): number {
  return Number(value.toPrecision(12));
}

class Reader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  expression(depth: number): number {
    if (depth > MAX_DEPTH) throw new Error(`brackets nested deeper than ${MAX_DEPTH}`);
    let value = this.#term(depth);
    for (;;) {
      this.skipSpace();
      const op = this.#text[this.#at];
      if (op !== "+" && op !== "-") return value;
      this.#at++;
      const right = this.#term(depth);
      value = op === "+" ? value + right : value - right;
    }
  }

  #term(depth: number): number {
    let value = this.#power(depth);
    for (;;) {
      this.skipSpace();
      const op = this.#text[this.#at];
      if (op !== "*" && op !== "/" && op !== "×" && op !== "÷" && op !== "x") return value;
      this.#at++;
      const right = this.#power(depth);
      if ((op === "/" || op === "÷") && right === 0) throw new Error("division by zero");
      value = op === "/" || op === "÷" ? value / right : value * right;
    }
  }

  #power(depth: number): number {
    const base = this.#unary(depth);
    this.skipSpace();
    if (this.#text[this.#at] !== "^" && this.#text.slice(this.#at, this.#at + 2) !== "**")
      return base;
    this.#at += this.#text[this.#at] === "^" ? 1 : 2;
    return base ** this.#power(depth + 1);
  }

  #unary(depth: number): number {
    this.skipSpace();
    const c = this.#text[this.#at];
    if (c === "-" || c === "+") {
      this.#at++;
      const value = this.#unary(depth + 1);
      return c === "-" ? -value : value;
    }
    if (c === "(") {
      this.#at++;
      const value = this.expression(depth + 1);
      this.skipSpace();
      if (this.#text[this.#at] !== ")") throw new Error("a bracket is not closed");
      this.#at++;
      return this.#percent(value);
    }
    return this.#percent(this.#number());
  }

  #percent(value: number): number {
    this.skipSpace();
    if (this.#text[this.#at] !== "%") return value;
    this.#at++;
    return value / 100;
  }

  #number(): number {
    const match = /^[$£€]?\s*(\d[\d,]*(?:\.\d+)?|\.\d+)/.exec(this.#text.slice(this.#at));
    if (!match) {
      const found = this.#text[this.#at];
      throw new Error(found === undefined ? "the expression ends early" : `unexpected "${found}"`);
    }
    this.#at += match[0].length;
    return Number((match[1] as string).replace(/,/g, ""));
  }

  skipSpace(): void {
    while (this.#at < this.#text.length && /\s/.test(this.#text[this.#at] as string)) this.#at++;
  }

  done(): boolean {
    return this.#at >= this.#text.length;
  }

  rest(): string {
    return this.#text.slice(this.#at, this.#at + 20);
  }
}
