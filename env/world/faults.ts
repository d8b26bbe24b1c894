import type { ConditionKind, Fault, Situation } from "../../spec/index.ts";
import { Rng } from "../rng.ts";
import { keyed } from "../util/lookup.ts";
import { parsedJson } from "../util/parsed.ts";

/** Faults that answer instead of the tool, before it runs. */
export const SERVER_FAULTS = new Set<ConditionKind>([
  "timeout",
  "server_error",
  "rate_limited",
  "permission_denied",
]);
/** Faults that spoil a successful answer on its way back. */
export const RESULT_FAULTS = new Set<ConditionKind>(["partial_result", "malformed_result"]);

/** The fault the situation's `condition` schedules on its tool, if any: on the first call, and on every call for a permission refusal. */
export function scheduleFaults(situation: Situation): Fault[] {
  const kind = situation.axes.condition;
  if (kind === "ok") return [];
  return [
    {
      tool: situation.axes.tool,
      kind,
      at_call: 1,
      persistent: kind === "permission_denied",
      fired: [],
    },
  ];
}

/** What the tool answers when a server fault fires: each kind says what happened in its own way. */
export function serverFaultAnswer(
  kind: ConditionKind,
  tool: string,
  rng: Rng,
): Record<string, unknown> {
  switch (kind) {
    case "timeout":
      return {
        error: "timeout",
        message: `${tool} did not answer within 30 seconds`,
        retryable: true,
      };
    case "server_error":
      return {
        error: "server_error",
        status: 500,
        message: `Internal server error while running ${tool}`,
        retryable: true,
      };
    case "rate_limited":
      return {
        error: "rate_limited",
        status: 429,
        message: "Too many requests",
        retry_after_seconds: 5 + rng.int(56),
        retryable: true,
      };
    default:
      return {
        error: "permission_denied",
        status: 403,
        message: `This agent is not allowed to call ${tool} for this customer`,
        retryable: false,
      };
  }
}

/** Whether an answer came back spoiled ({@link spoil}): it does not parse, or it is partial. */
export function spoiled(content: string): boolean {
  const body = parsedJson(content) as { warnings?: unknown } | null | undefined;
  return body === undefined || (Array.isArray(body?.warnings) && body.warnings.length > 0);
}

/**
 * Spoils a successful answer: a partial result keeps about half the fields (ids kept) and says so
 * in `warnings`; a malformed result is cut off mid-way, so it does not parse.
 */
export function spoil(
  kind: ConditionKind,
  json: string,
  seed: number,
  situationId: string,
): string {
  const rng = new Rng(seed, "fault", situationId, kind);
  if (kind === "malformed_result")
    return json.slice(0, Math.max(1, Math.floor(json.length * (0.4 + rng.next() * 0.3))));
  const value = JSON.parse(json) as Record<string, unknown>;
  const missing: string[] = [];
  // No prototype: an answer's field named `__proto__` is kept or dropped like any other.
  const out: Record<string, unknown> = keyed();
  for (const [key, v] of Object.entries(value)) {
    if (Array.isArray(v) && v.length > 1) {
      out[key] = v.slice(0, Math.ceil(v.length / 2));
      missing.push(`${v.length - Math.ceil(v.length / 2)} of ${v.length} ${key}`);
    } else if (/(^|_)id$/.test(key) || rng.chance(0.5)) out[key] = v;
    else missing.push(key);
  }
  if (missing.length === 0) {
    const dropped = Object.keys(out).find((k) => !/(^|_)id$/.test(k));
    if (dropped) {
      delete out[dropped];
      missing.push(dropped);
    }
  }
  out.warnings = [`partial result: ${missing.join(", ")} could not be loaded`];
  return JSON.stringify(out);
}
