/** The world's fixed "today": every date is relative to it, so output never depends on the clock. */
export const WORLD_TODAY = Date.UTC(2026, 5, 15);
/** A day in milliseconds. */
export const DAY = 86_400_000;
/** A value that starts with a day as `YYYY-MM-DD` (a date, or a timestamp). */
export const ISO_DAY = /^\d{4}-\d{2}-\d{2}/;
/** Dates already written, by day since 1970: a world writes the same few hundred days again and again. */
const days = new Map<number, string>();

/** The UTC date of a moment as `YYYY-MM-DD`, as `toISOString().slice(0, 10)` writes it. */
export function isoDay(ms: number): string {
  // A small integer key: a Map looks it up far faster than the float Math.floor returns.
  const day = Math.floor(ms / DAY) | 0;
  let text = days.get(day);
  if (text === undefined) {
    text = new Date(day * DAY).toISOString().slice(0, 10);
    if (days.size < 100_000) days.set(day, text);
  }
  return text;
}

/** A moment as `YYYY-MM-DDThh:mm:ssZ`: `toISOString()` without its milliseconds. */
export function isoSecond(ms: number): string {
  const since = ms - Math.floor(ms / DAY) * DAY;
  const seconds = Math.floor(since / 1000);
  return `${isoDay(ms)}T${two(Math.floor(seconds / 3600))}:${two(Math.floor(seconds / 60) % 60)}:${two(seconds % 60)}Z`;
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
