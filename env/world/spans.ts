import type { WorldRecord } from "../../spec/index.ts";
import { snake } from "../util/names.ts";
import { isoDay } from "./dates.ts";
import { orderedPairs } from "./values.ts";

const DAY = 86_400_000;
/** Parameters that give a span's length in days: `nights`, `number_of_days`, `duration_days`. */
const LENGTH_IN_DAYS =
  /^(nights|days|num(ber)?_of_(nights|days)|(num|total)_(nights|days)|duration_(in_)?days|length_of_stay|stay_length)$/;
const DATED = /^(\d{4}-\d{2}-\d{2})(.*)$/;

/**
 * A change that moves a span's start moves its end with it: to the start plus the length a
 * parameter gives (`nights` beside `new_check_in`), or else by as many days as the start moved, so
 * the span keeps its length and never ends before it starts. `before` holds the moved fields'
 * values before the change; an end the change set itself is left as set.
 */
export function moveSpanEnds(
  changed: WorldRecord,
  before: ReadonlyMap<string, unknown>,
  args: Readonly<Record<string, unknown>>,
): void {
  let length: number | null = null;
  for (const [param, value] of Object.entries(args))
    if (LENGTH_IN_DAYS.test(snake(param)) && Number.isInteger(value) && (value as number) >= 0)
      length = value as number;
  for (const [start, end] of orderedPairs(Object.keys(changed))) {
    // Only starts this change moved; an update time follows no creation.
    if (!before.has(start) || before.has(end) || start.startsWith("created")) continue;
    const from = dayOf(changed[start]);
    const last = DATED.exec(String(changed[end]));
    if (from === null || last === null) continue;
    const was = dayOf(before.get(start));
    const to =
      length !== null
        ? from + length * DAY
        : was === null
          ? null
          : (dayOf(last[1]) as number) + (from - was);
    if (to !== null) changed[end] = `${isoDay(to)}${last[2]}`;
  }
}

/** The day a date or a date-time falls on, in ms since 1970, or null for any other value. */
function dayOf(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const day = DATED.exec(value)?.[1];
  if (day === undefined) return null;
  const ms = Date.parse(day);
  return Number.isNaN(ms) ? null : ms;
}
