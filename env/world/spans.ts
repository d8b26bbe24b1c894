import type { WorldRecord } from "../../spec/index.ts";
import { snake } from "../util/names.ts";
import { DAY, isoDay } from "./dates.ts";
import { CHARGE } from "./draws.ts";
import { orderedPairs } from "./values.ts";

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
  const moved = new Map<string, unknown>();
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
    if (to === null) continue;
    moved.set(end, changed[end]);
    changed[end] = `${isoDay(to)}${last[2]}`;
  }
  repriced(changed, before, moved);
}

/**
 * A span whose length the change altered costs in proportion: a stay's total for 4 nights, made
 * 6, is half as much again. A charge the change set itself is left as set.
 */
function repriced(
  changed: WorldRecord,
  before: ReadonlyMap<string, unknown>,
  moved: ReadonlyMap<string, unknown>,
): void {
  const field = CHARGE.find((f) => typeof changed[f] === "number");
  if (field === undefined || before.has(field)) return;
  for (const [start, end] of orderedPairs(Object.keys(changed))) {
    if (start.startsWith("created")) continue;
    if (!before.has(start) && !before.has(end) && !moved.has(end)) continue;
    const was = days(
      before.has(start) ? before.get(start) : changed[start],
      moved.has(end) ? moved.get(end) : before.has(end) ? before.get(end) : changed[end],
    );
    const now = days(changed[start], changed[end]);
    if (was === null || now === null || was <= 0 || now <= 0 || was === now) return;
    changed[field] = Math.round(((changed[field] as number) * now * 100) / was) / 100;
    return;
  }
}

/** Whole days from one date to another, or null where either is no date. */
function days(from: unknown, to: unknown): number | null {
  const a = dayOf(from);
  const b = dayOf(to);
  return a === null || b === null ? null : Math.round((b - a) / DAY);
}

/** The day a date or a date-time falls on, in ms since 1970, or null for any other value. */
function dayOf(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const day = DATED.exec(value)?.[1];
  if (day === undefined) return null;
  const ms = Date.parse(day);
  return Number.isNaN(ms) ? null : ms;
}
