import type { ToolDefinition } from "../../spec/index.ts";
import type { ArgumentCheck } from "../arguments.ts";
import { snake, spokenWords } from "../util/names.ts";
import { regexLiteral } from "../util/regex.ts";

/** "Provide one of the two", "at least one of these", "give either parameter": one of the optional arguments must be given. */
const ONE_OF_ALL =
  /\b(provide|give|pass|supply|send|include|specify|use)\s+(exactly\s+|only\s+)?(one|either|at least one)\s+of\s+(the\s+)?(two|these|them|both|(the\s+)?(parameters|arguments|fields|options))\b|\b(one|either) of the two\b[^.]{0,80}\b(required|must)\b/i;

/** The most optional arguments searched for an "either … or …" pair. */
const EITHER_MOST = 12;

/**
 * The optional arguments of which a call must give at least one, as the description says
 * ("Find a workspace by its domain or an admin's email. Provide one of the two."): all optional
 * arguments when it says so of them together, the two it names in "either `domain` or
 * `admin_email` is required". Empty when the description asks for no such thing.
 */
export function eitherOf(tool: ToolDefinition): string[] {
  const description = tool.description ?? "";
  const required = new Set(tool.parameters.required ?? []);
  const optional = Object.keys(tool.parameters.properties ?? {}).filter((p) => !required.has(p));
  if (optional.length < 2) return [];
  if (ONE_OF_ALL.test(description)) return optional;
  // "Either domain or admin_email is required": the two named, by name or in words (pairs of a
  // few optional arguments only: a tool of hundreds is not searched pair by pair).
  if (!/\beither\b/i.test(description) || optional.length > EITHER_MOST) return [];
  const named = (param: string) =>
    `(${regexLiteral(param)}|${regexLiteral(spokenWords(snake(param)))})`;
  for (const [i, a] of optional.entries())
    for (const b of optional.slice(i + 1)) {
      const pair = new RegExp(
        `\\beither\\s+\`?${named(a)}\`?\\s+or\\s+\`?${named(b)}\`?|\\beither\\s+\`?${named(b)}\`?\\s+or\\s+\`?${named(a)}\`?`,
        "i",
      );
      if (pair.test(description)) return [a, b];
    }
  return [];
}

/** A check that also refuses a call giving none of `either`, naming them. */
export function withEither(check: ArgumentCheck, either: readonly string[]): ArgumentCheck {
  if (either.length === 0) return check;
  const names = either.map((p) => `"${p}"`).join(" or ");
  return (args) => {
    const problems = check(args);
    const given =
      args !== null &&
      typeof args === "object" &&
      either.some((p) => (args as Record<string, unknown>)[p] !== undefined);
    return given ? problems : [...problems, `give one of ${names}`];
  };
}
