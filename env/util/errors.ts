import type { z } from "zod";

/** One problem in an input, at a field path such as `tools[2].function.name`. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * An input refused before anything ran (options, flags, a file, a message, a backend spec), with
 * every problem found in it. The CLI exits 2 on it; the server answers it as a bad request.
 */
export class InputError extends Error {
  override name = "InputError";
  readonly issues: InputIssue[];

  constructor(
    readonly what: string,
    issues: InputIssue[],
  ) {
    const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
    const lines = issues.map((i) => `  ✖ ${i.path || "(top level)"}: ${i.message}`);
    super(`${what} is invalid (${count}):\n${lines.join("\n")}`);
    this.issues = issues;
  }
}

/** An agent spec refused: its tools, policy, axes or world dials. */
export class SpecError extends InputError {
  override name = "SpecError";
}

/**
 * A model backend that failed when called (after its retries): an HTTP error, a timeout, a
 * reply with no usable answer. Not the caller's input: the same call may work later.
 */
export class BackendError extends Error {
  override name = "BackendError";
  constructor(
    readonly backend: string,
    message: string,
  ) {
    super(`${backend}: ${message}`);
  }
}

/** `["tools", 2, "function", "name"]` → `tools[2].function.name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** Chooses which branch of a union the author meant, from the input at that path. */
export type UnionBranchChooser = (path: string, input: unknown) => number | undefined;

/** Flattens zod issues into path + expectation; for a union, reports the branch the author meant. */
export function issuesOf(
  error: z.ZodError,
  input: unknown,
  choose?: UnionBranchChooser,
): InputIssue[] {
  const out: InputIssue[] = [];
  const visit = (issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[]) => {
    for (const issue of issues) {
      const path = [...prefix, ...issue.path];
      if (issue.code === "invalid_union" && issue.errors.length > 0) {
        const at = valueAt(input, path);
        const chosen = choose?.(formatPath(path), at) ?? fewest(issue.errors);
        const branch = issue.errors[chosen];
        if (issue.message !== "Invalid input" || branch === undefined) {
          out.push({ path: formatPath(path), message: issue.message });
        } else {
          visit(branch, path);
        }
        continue;
      }
      out.push({ path: formatPath(path), message: issue.message });
    }
  };
  visit(error.issues, []);
  return out;
}

function fewest(branches: readonly (readonly unknown[])[]): number {
  let best = 0;
  branches.forEach((b, n) => {
    if (b.length < (branches[best] as readonly unknown[]).length) best = n;
  });
  return best;
}

/** The value at a path inside an input, or undefined where the path leaves it. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let at = input;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at;
}

/** The message of anything thrown: an Error's message, else its string form. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
