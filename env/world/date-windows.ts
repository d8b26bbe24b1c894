import type { ToolDefinition } from "../../spec/index.ts";
import type { Rng } from "../rng.ts";
import { DAY, ISO_DAY, isoDay, WORLD_TODAY } from "./dates.ts";

/** How far from the world's today a date argument may fall, in whole days each way. */
export interface DateWindow {
  past: number;
  future: number;
}

/** A parameter that holds a day (`reading_date`, `move_out_date`, `effective_date`). */
const DATE_PARAM = /(^|_)(date|day)$/;
const NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  five: 5,
  seven: 7,
  ten: 10,
  fourteen: 14,
  thirty: 30,
};
const COUNT = String.raw`(\d{1,3}|one|two|three|five|seven|ten|fourteen|thirty)`;
/** "more than 14 days in the past", "up to 7 days in the past", "no older than 14 days". */
const PAST = new RegExp(
  String.raw`\b(?:more than|up to|at most|no more than|within(?: the (?:last|past))?|no older than)\s+${COUNT}\s+days?(?:\s+(?:in the past|ago|old|back|before today))?`,
  "gi",
);
/** "up to 28 days ahead", "at most 30 days in advance", "within 30 days from today". */
const FUTURE = new RegExp(
  String.raw`\b(?:more than|up to|at most|no more than|within)\s+${COUNT}\s+days?\s+(?:ahead|in advance|in the future|from (?:today|now))`,
  "gi",
);
/** "cannot be dated in the future", "not in the future", "no future dates", "today or …". */
const NOT_FUTURE =
  /\b(?:not|never|cannot be(?: dated)?|can't be(?: dated)?) in the future\b|\bno future dates?\b/i;
const FROM_TODAY = /\btoday or (?:up to|within|at most)\b/i;

/**
 * The date arguments whose description or tool description bounds them around today: "Readings
 * cannot be dated in the future or more than 14 days in the past" (past 14, future 0); "Start date,
 * today or up to 30 days ahead" (past 0, future 30); "up to 28 days ahead, or up to 7 days in the
 * past". A tool with one date argument has its description's bound; a side not said is open.
 */
export function dateWindowsOf(tool: ToolDefinition): Map<string, DateWindow> {
  const properties = (tool.parameters.properties ?? {}) as Record<
    string,
    { type?: unknown; format?: string; description?: string }
  >;
  const dates = Object.entries(properties)
    .filter(([name, s]) => s.format === "date" || (DATE_PARAM.test(name) && s.type === "string"))
    .map(([name]) => name);
  const windows = new Map<string, DateWindow>();
  for (const param of dates) {
    const own = windowIn(properties[param]?.description ?? "");
    const told = dates.length === 1 ? windowIn(tool.description) : null;
    const window = own ?? told;
    if (window) windows.set(param, window);
  }
  return windows;
}

/** The bound a text puts on a date, or null where it puts none. */
function windowIn(text: string): DateWindow | null {
  let past = Number.POSITIVE_INFINITY;
  let future = Number.POSITIVE_INFINITY;
  let said = false;
  for (const m of text.matchAll(FUTURE)) {
    future = Math.min(future, count(m[1] as string));
    said = true;
  }
  for (const m of text.replace(FUTURE, " ").matchAll(PAST)) {
    if (!/past|ago|old|back|before today|within the|no older/i.test(m[0])) continue;
    past = Math.min(past, count(m[1] as string));
    said = true;
  }
  if (NOT_FUTURE.test(text)) {
    future = 0;
    said = true;
  }
  if (FROM_TODAY.test(text)) {
    past = 0;
    said = true;
  }
  return said ? { past, future } : null;
}

function count(word: string): number {
  return NUMBERS[word.toLowerCase()] ?? Number(word);
}

/** Why a date falls outside its window ("more than 14 days in the past"), or null when it is inside or no day. */
export function outsideWindow(value: unknown, window: DateWindow): string | null {
  if (typeof value !== "string" || !ISO_DAY.test(value)) return null;
  const days = Math.round((Date.parse(value.slice(0, 10)) - Date.parse(isoDay(WORLD_TODAY))) / DAY);
  if (Number.isNaN(days)) return null;
  if (days < -window.past) return `more than ${window.past} days in the past`;
  if (days > window.future)
    return window.future === 0 ? "in the future" : `more than ${window.future} days ahead`;
  return null;
}

/** A day inside a window, near today: a person names a date the tool takes. */
export function dayWithin(window: DateWindow, rng: Rng): string {
  const back = Math.min(window.past, 14);
  const ahead = Math.min(window.future, 30);
  return isoDay(WORLD_TODAY + (rng.int(back + ahead + 1) - back) * DAY);
}
