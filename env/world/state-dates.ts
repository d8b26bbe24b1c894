import type { WorldRecord } from "../../spec/index.ts";
import { fnv1a } from "../util/hash.ts";
import { DAY, ISO_DAY, isoDay, WORLD_TODAY } from "./dates.ts";

/** States that say the event took place: its days are behind today. */
const HAPPENED =
  /^(checked_out|completed|attended|no_show|delivered|fulfilled|picked_up|collected|dispensed|departed|landed|arrived|flown|used|past|finished)$/;
/** States of an event still to come: its days are ahead of today (a flight on time or delayed too). */
const AHEAD = /^(upcoming|scheduled|confirmed|booked|reserved|on_time|delayed)$/;
/** States of an event itself, ahead of today however it is dated. */
const EVENT_STATE = /^(upcoming|scheduled)$/;
/** States of a journey still to come, as a timetable says them. */
const ON_THE_TIMETABLE = /^(on_time|delayed)$/;
/** States of an event under way: it started, and has not ended. */
const UNDERWAY = /^(checked_in|boarding|boarded|in_session)$/;
/** The fields that date the event itself (a stay's check-in, an appointment's start), not the record. */
const EVENT =
  /^(check_?in|check_?out|start|end|starts?_at|ends?_at|start_time|end_time|date|appointment_(date|time)|departure(_date|_time)?|arrival(_date|_time)?|scheduled_(for|at|date)|slot_start|travel_date|event_date|visit_date)$/;
/** The most days an event is moved past today, so a changed world stays near it. */
const NEAR = 60;

/** Whether a kind of record may be an event itself (a flight `scheduled`): on time or delayed, still to come. */
export function timetabled(usable: readonly string[]): boolean {
  return usable.some((s) => EVENT_STATE.test(s));
}

/** Where a record in this state has its event: behind today, ahead of it, under way, or null if its state says not. */
export function whenOf(status: string): "past" | "ahead" | "now" | null {
  if (HAPPENED.test(status)) return "past";
  if (AHEAD.test(status)) return "ahead";
  return UNDERWAY.test(status) ? "now" : null;
}

/**
 * Moves a record's event days, all by the same whole number of days, so they agree with its state:
 * a stay `checked_out` ended before today, an appointment `scheduled` starts after it, a guest
 * `checked_in` is between check-in and check-out. How far is drawn from the record's id, so the
 * world's other draws stay as they were. `timetabled`: the record's kind is scheduled (a flight),
 * so on time or delayed it is still to come.
 */
export function datesForState(record: WorldRecord, id: string, timetabled = false): void {
  const status = record.status;
  if (typeof status !== "string") return;
  const when = whenOf(status);
  if (!when) return;
  const fields = Object.keys(record).filter(
    (f) => EVENT.test(f) && typeof record[f] === "string" && ISO_DAY.test(record[f] as string),
  );
  if (fields.length === 0) return;
  // A bare `date` of a confirmed payment or order is when it was made, and of a delayed order too:
  // only a record that is an event (`upcoming`, `scheduled`, a flight of a timetable on time or
  // delayed) or has an event's days (a stay, a start) is ahead.
  if (
    when === "ahead" &&
    fields.every((f) => f === "date") &&
    !EVENT_STATE.test(status) &&
    !(timetabled && ON_THE_TIMETABLE.test(status))
  )
    return;
  const days = fields.map((f) => Date.parse((record[f] as string).slice(0, 10)));
  if (days.some(Number.isNaN)) return;
  const first = Math.min(...days);
  const last = Math.max(...days);
  const span = Math.round((last - first) / DAY);
  const drawn = fnv1a(`${id}/${status}`);
  let shift = 0;
  if (when === "past" && last > WORLD_TODAY)
    shift = WORLD_TODAY - DAY * (1 + (drawn % NEAR)) - last;
  else if (when === "ahead" && first < WORLD_TODAY)
    shift = WORLD_TODAY + DAY * (1 + (drawn % NEAR)) - first;
  else if (when === "now" && (first > WORLD_TODAY || last <= WORLD_TODAY))
    shift = WORLD_TODAY - DAY * (drawn % Math.max(1, span)) - first;
  if (shift === 0) return;
  for (const [i, field] of fields.entries()) {
    const value = record[field] as string;
    record[field] = `${isoDay((days[i] as number) + shift)}${value.slice(10)}`;
  }
}
