import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { planSituations } from "../../../env/plan.ts";
import { isoDay, WORLD_TODAY } from "../../../env/world/dates.ts";
import { createWorld } from "../../../env/world/index.ts";
import { datesForState } from "../../../env/world/state-dates.ts";
import type { WorldRecord } from "../../../spec/index.ts";

const TODAY = isoDay(WORLD_TODAY);
const nights = (r: WorldRecord) =>
  (Date.parse(r.check_out as string) - Date.parse(r.check_in as string)) / 86_400_000;

describe("a record's event days agree with its state", () => {
  it("a stay checked out ended before today, keeping its length", () => {
    const stay: WorldRecord = {
      status: "checked_out",
      check_in: "2026-06-30",
      check_out: "2026-07-04",
    };
    datesForState(stay, "HLD-1");
    expect(String(stay.check_out) < TODAY).toBe(true);
    expect(nights(stay)).toBe(4);
  });

  it("a flight on time or delayed flies after today, one boarding today, one landed before it", () => {
    // Reproduction: 347 of 410 flights of airline's worlds (40 seeds) were behind today, on time,
    // delayed and boarding among them.
    const day = (status: string) => {
      const flight: WorldRecord = {
        status,
        date: status === "landed" ? "2026-08-02" : "2026-02-02",
      };
      datesForState(flight, `BC-${status}`, true);
      return String(flight.date);
    };
    expect(day("on_time") > TODAY).toBe(true);
    expect(day("delayed") > TODAY).toBe(true);
    expect(day("boarding")).toBe(TODAY);
    expect(day("landed") < TODAY).toBe(true);
    // An order delayed keeps the day it was made: orders keep no timetable.
    const order: WorldRecord = { status: "delayed", date: "2026-02-02" };
    datesForState(order, "ORD-1");
    expect(order.date).toBe("2026-02-02");
  });

  it("an appointment scheduled starts after today, its time of day kept", () => {
    const visit: WorldRecord = { status: "scheduled", start: "2026-03-02T09:30:00Z" };
    datesForState(visit, "APT-1");
    expect((visit.start as string).slice(0, 10) > TODAY).toBe(true);
    expect((visit.start as string).slice(10)).toBe("T09:30:00Z");
  });

  it("a guest checked in is between check-in and check-out", () => {
    const stay: WorldRecord = {
      status: "checked_in",
      check_in: "2026-08-01",
      check_out: "2026-08-05",
    };
    datesForState(stay, "HLD-2");
    expect(String(stay.check_in) <= TODAY && TODAY < String(stay.check_out)).toBe(true);
    expect(nights(stay)).toBe(4);
  });

  it("leaves alone what already agrees, a state that says nothing of time, and a record's own dates", () => {
    for (const record of [
      { status: "checked_out", check_in: "2026-05-01", check_out: "2026-05-03" },
      { status: "cancelled", check_in: "2026-09-01", check_out: "2026-09-03" },
      { status: "completed", created_at: "2026-09-01T00:00:00Z", renewal_date: "2026-12-01" },
      { status: "confirmed", date: "2026-03-02" },
    ] as WorldRecord[]) {
      const before = JSON.stringify(record);
      datesForState(record, "X-1");
      expect(JSON.stringify(record)).toBe(before);
    }
  });

  it("moves by a distance drawn from the record's id: the same record, the same days", () => {
    const a: WorldRecord = { status: "completed", start: "2026-07-10" };
    const b: WorldRecord = { status: "completed", start: "2026-07-10" };
    datesForState(a, "APT-7");
    datesForState(b, "APT-7");
    expect(a.start).toBe(b.start);
  });

  it("holds in the worlds of the corpus's hotel: no reservation checked out ahead of today", async () => {
    const hotel = await Agent.load("test/fixtures/specs/hotel.json");
    const plan = planSituations(hotel, { rows: 60, seed: 7 });
    let stays = 0;
    for (const situation of plan.cells) {
      const world = createWorld({ spec: hotel, situation });
      for (const r of world.store.all("reservation")) {
        stays++;
        if (r.status === "checked_out")
          expect(String(r.check_out) <= TODAY, JSON.stringify(r)).toBe(true);
        if (r.status === "checked_in")
          expect(String(r.check_in) <= TODAY, JSON.stringify(r)).toBe(true);
      }
    }
    expect(stays).toBeGreaterThan(100);
  });
});
