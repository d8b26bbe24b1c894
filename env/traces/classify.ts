import type { ConditionKind, TraceCall, TraceCoordinate, WorldKind } from "../../spec/index.ts";

/** Error text → the fault kind it names; checked in order, the first that matches wins. */
const CONDITION_WORDS: [ConditionKind, RegExp][] = [
  ["timeout", /\b(time[sd]?[ -]?out|timed out|deadline exceeded|etimedout)\b/i],
  ["rate_limited", /\b(rate[ _-]?limit\w*|too many requests|429|throttl\w*)\b/i],
  [
    "permission_denied",
    /\b(permission|forbidden|not allowed|unauthori[sz]ed|access denied|401|403)\b/i,
  ],
  ["malformed_result", /\b(malformed|unparseable|invalid json|parse error|schema)\b/i],
  ["partial_result", /\b(partial|truncated|incomplete)\b/i],
];

/** Result text → the world it shows; checked in order. */
const WORLD_WORDS: [WorldKind, RegExp][] = [
  [
    "record_missing",
    /\b(not found|no such|does not exist|doesn't exist|unknown (order|account|record|id)|404)\b/i,
  ],
  [
    "terminal_state",
    /\b(already (cancell?ed|closed|refunded|shipped|delivered)|is (cancell?ed|closed|refunded|final))\b/i,
  ],
  ["duplicate_records", /\b(multiple|more than one|duplicate|ambiguous)\b/i],
  ["conflicting_records", /\b(conflict\w*|disagree\w*|mismatch\w*|inconsistent)\b/i],
  [
    "empty_account",
    /(\[\s*\]|\b(no (orders|records|items|transactions|bookings|appointments)|empty|balance"?\s*:\s*0)\b)/i,
  ],
];

/** The fault kind an error names; an error that names none is a server error. */
export function conditionOf(error: string): ConditionKind {
  for (const [kind, words] of CONDITION_WORDS) if (words.test(error)) return kind;
  return "server_error";
}

/** The world a tool's result shows, or null when it looks normal. */
export function worldOf(result: string): WorldKind | null {
  for (const [kind, words] of WORLD_WORDS) if (words.test(result)) return kind;
  return null;
}

/**
 * A conversation's coordinate from its tool calls: the first known tool that failed (its error
 * names the condition), else the first whose result shows an unusual world, else the last known
 * tool called; text is only read, never run, and every pattern above is linear.
 */
export function coordinateOfCalls(
  calls: readonly TraceCall[],
  known: ReadonlySet<string>,
): TraceCoordinate {
  const ours = calls.filter((call) => known.has(call.tool));
  const failed = ours.find((call) => call.error !== null);
  if (failed)
    return { tool: failed.tool, condition: conditionOf(failed.error ?? ""), world: "normal" };
  for (const call of ours) {
    const world = call.result === null ? null : worldOf(call.result);
    if (world) return { tool: call.tool, condition: "ok", world };
  }
  return { tool: ours.at(-1)?.tool ?? null, condition: "ok", world: "normal" };
}
