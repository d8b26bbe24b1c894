import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { isoDay, WORLD_TODAY } from "../../../env/world/dates.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import { situationOf } from "../../fixtures/situations.ts";

const SPECS = "test/fixtures/specs";
const TODAY = isoDay(WORLD_TODAY);

/** A spec's world as the `normal` world axis makes it, at a seed. */
const normalWorld = (agent: Agent, seed: number) =>
  createWorld({ spec: agent, situation: situationOf(agent, { world: "normal" }, seed), seed });

describe("a catalog's records", () => {
  it("at its root are each called by a name no other record of their catalog has, on every corpus spec", async () => {
    // Reproduction: two of a hotel's nine properties were both "Tundra property" by chance, so a
    // person asking about "the Tundra property" picked the wrong one from the agent's list.
    let catalogs = 0;
    for (const file of readdirSync(SPECS).filter((f) => f.endsWith(".json"))) {
      const agent = await Agent.load(`${SPECS}/${file}`);
      const named = [...WorldModel.of(agent).entities.values()].filter(
        // A catalog's children (a flight's seat maps) are found through their parent, not by name.
        (e) => e.catalog && e.parent === null && e.fields.has("name") && e.collection !== undefined,
      );
      for (const entity of named)
        for (let seed = 0; seed < 12; seed++) {
          const world = normalWorld(agent, seed);
          const names = (world.snapshot().collections[entity.collection] ?? []).map((r) => r.name);
          expect(names.length, `${file} ${entity.name}`).toBeGreaterThan(1);
          expect(new Set(names).size, `${file} ${entity.name} seed ${seed}: ${names}`).toBe(
            names.length,
          );
          catalogs++;
        }
    }
    expect(catalogs).toBeGreaterThan(50);
  });

  it("listed in a record are records the catalog has: a reservation's flights, with their dates", async () => {
    // Reproduction: a reservation's flights were made up, so a seat for one of them was refused as
    // "No flight found", and a seat request named some other flight of the catalog.
    const airline = await Agent.load(`${SPECS}/airline.json`);
    let listed = 0;
    for (let seed = 0; seed < 6; seed++) {
      const world = createWorld({
        spec: airline,
        situation: situationOf(airline, { tool: "select_seats" }, seed),
        seed,
      });
      const flights = new Map(
        [...world.store.all("flight")].map((f) => [f.flight_number, f] as const),
      );
      for (const reservation of world.store.all("reservation")) {
        const legs = (reservation.flights ?? []) as Record<string, unknown>[];
        // No flight twice in one reservation.
        expect(new Set(legs.map((l) => l.flight_number)).size, `seed ${seed}`).toBe(legs.length);
        for (const leg of legs) {
          const flight = flights.get(leg.flight_number);
          expect(flight, `seed ${seed} ${String(leg.flight_number)}`).toBeDefined();
          if (leg.date !== undefined) expect(leg.date).toBe(flight?.date);
          // A reservation still to come lists flights still to come.
          if (reservation.status === "scheduled")
            expect(String(leg.date) >= TODAY, `seed ${seed} ${String(leg.date)}`).toBe(true);
          listed++;
        }
      }
    }
    expect(listed).toBeGreaterThan(10);
  });
});

describe("a person's records", () => {
  it("of one kind are each called by a name none of their others has, on every corpus spec", async () => {
    // Reproduction: an admin's two workspaces were both "Harbor workspace", so asked which one
    // they meant, they guessed the first and the users were invited to the wrong one (saas-admin,
    // 1 of 500 rows at seed 823).
    let owners = 0;
    for (const file of readdirSync(SPECS).filter((f) => f.endsWith(".json"))) {
      const agent = await Agent.load(`${SPECS}/${file}`);
      const model = WorldModel.of(agent);
      const owner = model.person.idField;
      const named = [...model.entities.values()].filter(
        (e) => !e.catalog && !e.isPerson && e.parent === null && e.fields.has("name"),
      );
      for (const entity of named)
        for (let seed = 0; seed < 12; seed++) {
          const world = normalWorld(agent, seed);
          const byOwner = new Map<unknown, unknown[]>();
          for (const record of world.store.all(entity.name))
            byOwner.set(record[owner], [...(byOwner.get(record[owner]) ?? []), record.name]);
          for (const [id, names] of byOwner) {
            if (names.length < 2) continue;
            expect(
              new Set(names).size,
              `${file} ${entity.name} seed ${seed} ${String(id)}: ${names}`,
            ).toBe(names.length);
            owners++;
          }
        }
    }
    expect(owners).toBeGreaterThan(50);
  });
});
