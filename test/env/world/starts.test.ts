import { describe, expect, it } from "vitest";
import { Agent, Episode, OfflineAgent, planSituations, rollout } from "../../../env/index.ts";
import { KEPT_STARTS, startingWorld } from "../../../env/world/starts.ts";
import type { Situation } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf } from "../../fixtures/situations.ts";

/** The row of one rollout of a situation, played by the offline agent. */
async function played(agent: Agent, situation: Parameters<typeof startingWorld>[1], index: number) {
  const episode = new Episode({ spec: agent, situation, rollout: index, keepStart: true });
  const policy = new OfflineAgent().start(agent, situation.seed + index);
  const result = await rollout(episode, policy);
  return JSON.stringify(episode.row({ slips: result.slips }));
}

describe("a situation's starting world", () => {
  const situations = planSituations(referenceSpec, { rows: 24 }).cells;

  it("is built once and copied for every other episode of the situation, which plays the same", async () => {
    for (const situation of situations) {
      const warm = Agent.from(referenceSpec);
      const first = startingWorld(warm, situation, true);
      const again = startingWorld(warm, situation, true);
      // The copy shares the baseline and its records, frozen: a call copies a record to change it.
      expect(again.baseline).toBe(first.baseline);
      expect(again.world.snapshot()).toEqual(first.world.snapshot());
      expect(again.world.describe()).toEqual(first.world.describe());
      const [entity, byId] = [...first.baseline.records].find(([, ids]) => ids.size > 0) ?? [];
      const [id, record] = [...(byId?.entries() ?? [])][0] ?? [];
      expect(again.world.store.get(entity as string, id as string)).toBe(record);
      expect(Object.isFrozen(record)).toBe(true);
      // The second rollout on a warm agent is the row a cold agent builds from scratch.
      await played(warm, situation, 0);
      expect(await played(warm, situation, 1)).toBe(
        await played(Agent.from(referenceSpec), situation, 1),
      );
    }
  });

  it("shares its records with the worlds copied from it, each copied only when one is changed", () => {
    const agent = Agent.from(referenceSpec);
    const [situation] = situations;
    if (!situation) throw new Error("expected a situation");
    const { baseline } = startingWorld(agent, situation, true);
    const one = startingWorld(agent, situation, true).world;
    const other = startingWorld(agent, situation, true).world;
    const [entity, byId] = [...baseline.records].find(([, ids]) => ids.size > 0) ?? [];
    const [id, kept] = [...(byId?.entries() ?? [])][0] ?? [];
    if (!entity || !id || !kept) throw new Error("expected a record");
    const order = () => {
      const idField = one.model.entities.get(entity)?.idField as string;
      return [...one.store.all(entity)].map((record) => record[idField]);
    };
    const before = order();
    // Shared and read-only: a change in place would change every world of the start.
    expect(one.store.get(entity, id)).toBe(kept);
    expect(other.store.get(entity, id)).toBe(kept);
    expect(() => {
      (kept as Record<string, unknown>).status = "changed";
    }).toThrow(TypeError);
    const changed = one.store.writable(entity, kept);
    expect(changed).not.toBe(kept);
    expect(changed).toEqual(kept);
    // A second change in the same call (a transfer between a record and itself) finds the copy.
    expect(one.store.writable(entity, kept)).toBe(changed);
    changed.status = "changed";
    expect(one.store.get(entity, id)).toBe(changed);
    expect(other.store.get(entity, id)).toBe(kept);
    expect(kept.status).not.toBe("changed");
    // The copy took the record's place: the store's order is as it was.
    expect(order()).toEqual(before);
  });

  it("freezes the records' own values, never the spec's schemas they were made from", () => {
    // A list-valued const and enum on a parameter: the records that field makes hold the values.
    const spec = structuredClone(referenceSpec) as unknown as {
      tools: { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
    };
    const list = spec.tools.find((t) => t.function.name === "list_orders");
    if (!list) throw new Error("expected list_orders");
    list.function.parameters.properties.labels = { type: "array", const: ["a", "b"] };
    list.function.parameters.properties.tags = { type: "array", enum: [["x", "y"]] };
    const agent = Agent.from(spec as unknown as typeof referenceSpec);
    const { world } = startingWorld(agent, situationOf(agent, { tool: "list_orders" }), true);
    const held = [...world.model.entities.values()].flatMap((e) => [...world.store.all(e.name)]);
    expect(held.some((record) => Array.isArray(record.labels))).toBe(true);
    const schema = agent.tools.find((t) => t.name === "list_orders")?.parameters.properties as
      | Record<string, { const?: object; enum?: object[] }>
      | undefined;
    expect(Object.isFrozen(schema?.labels?.const)).toBe(false);
    expect(Object.isFrozen(schema?.tags?.enum?.[0])).toBe(false);
  });

  it("is not served to another situation that reuses an id and seed", () => {
    const agent = Agent.from(referenceSpec);
    const [one, other] = situations.filter((s) => s.axes.world !== situations[0]?.axes.world);
    if (!one || !other) throw new Error("expected two situations in different worlds");
    startingWorld(agent, one, true);
    const impostor = { ...other, id: one.id, seed: one.seed };
    const served = startingWorld(agent, impostor, true);
    expect(served.world.describe().world).toBe(other.axes.world);
    expect(served.world.describe()).toEqual(
      startingWorld(Agent.from(referenceSpec), impostor, false).world.describe(),
    );
  });

  it("is kept only when asked: a start nobody will copy is not held", () => {
    const agent = Agent.from(referenceSpec);
    const [situation] = situations;
    if (!situation) throw new Error("expected a situation");
    const first = startingWorld(agent, situation, false);
    expect(startingWorld(agent, situation, false).baseline).not.toBe(first.baseline);
    const kept = startingWorld(agent, situation, true);
    expect(startingWorld(agent, situation, false).baseline).toBe(kept.baseline);
    // Copied without keep (a group's last rollout), the start is let go.
    expect(startingWorld(agent, situation, false).baseline).not.toBe(kept.baseline);
  });

  it("keeps the most recently used starts, a server's whole grid among them", () => {
    const agent = Agent.from(referenceSpec);
    const [situation] = situations;
    if (!situation) throw new Error("expected a situation");
    // The same situation under other seeds: a start each.
    const seeded = Array.from({ length: KEPT_STARTS + 1 }, (_, n) => ({ ...situation, seed: n }));
    const first = seeded.map((s) => startingWorld(agent, s, true).baseline);
    // One past the bound: the oldest (seed 0) gave way, the rest are all copied.
    expect(startingWorld(agent, seeded[0] as Situation, true).baseline).not.toBe(first[0]);
    // Seed 0 came back in place of seed 1. A copy of seed 2 makes it the newest: the next two
    // starts push out seeds 3 and 4, not 2.
    expect(startingWorld(agent, seeded[2] as Situation, true).baseline).toBe(first[2]);
    startingWorld(agent, { ...situation, seed: KEPT_STARTS + 1 }, true);
    startingWorld(agent, { ...situation, seed: KEPT_STARTS + 2 }, true);
    expect(startingWorld(agent, seeded[2] as Situation, true).baseline).toBe(first[2]);
    expect(startingWorld(agent, seeded[1] as Situation, true).baseline).not.toBe(first[1]);
    expect(startingWorld(agent, seeded[3] as Situation, true).baseline).not.toBe(first[3]);
    expect(startingWorld(agent, seeded[4] as Situation, true).baseline).not.toBe(first[4]);
    expect(startingWorld(agent, seeded[8] as Situation, true).baseline).toBe(first[8]);
  });
});
