import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { InputError, SpecError } from "../../../env/util/errors.ts";
import { createWorld, World } from "../../../env/world/world.ts";
import type { WorldSnapshot } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));

describe("World.restore refuses snapshots that do not hold together", () => {
  const situation = situationOf(retail, { tool: "get_order" });
  const fresh = (): WorldSnapshot =>
    JSON.parse(JSON.stringify(createWorld({ spec: retail, situation }).snapshot()));
  const refusal = (snapshot: unknown, s: unknown = situation) => {
    try {
      World.restore(retail, s as typeof situation, snapshot);
    } catch (error) {
      // A snapshot is input, not a spec: the error says which.
      expect(error).toBeInstanceOf(InputError);
      expect(error).not.toBeInstanceOf(SpecError);
      return (error as Error).message;
    }
    throw new Error("restored");
  };
  const orders = (s: WorldSnapshot) => s.collections.orders as Record<string, unknown>[];

  it("a missing situation is a clear error, not a TypeError", () => {
    expect(refusal(fresh(), null)).toMatch(/^situation is invalid/);
  });

  it("unknown collections, records without a string id, duplicate ids", () => {
    const renamed = fresh();
    renamed.collections.ordrs = renamed.collections.orders as [];
    delete renamed.collections.orders;
    expect(refusal(renamed)).toMatch(/collections\.ordrs: is not a collection of this spec/);
    expect(refusal(renamed)).toMatch(/collections\.orders: expected the collection/);

    const noId = fresh();
    delete orders(noId)[0]?.order_id;
    (orders(noId)[1] as Record<string, unknown>).order_id = 1264170;
    expect(refusal(noId)).toMatch(
      /collections\.orders\[0\]\.order_id: expected the record's id as a non-empty string, got none/,
    );
    expect(refusal(noId)).toMatch(/collections\.orders\[1\]\.order_id: .* got 1264170/);

    const twice = fresh();
    const first = orders(twice)[0] as Record<string, unknown>;
    orders(twice).push({ ...first, total: 1 });
    const last = orders(twice).length - 1;
    expect(refusal(twice)).toMatch(
      new RegExp(
        `collections\\.orders\\[${last}\\]\\.order_id: "${first.order_id}" is already the id of collections\\.orders\\[0\\]`,
      ),
    );
  });

  it("a world built with a seed of its own comes back with it", () => {
    const built = createWorld({ spec: retail, situation, seed: 1 });
    const restored = World.restore(retail, situation, built.snapshot());
    expect(restored.seed).toBe(1);
    expect(restored.snapshot()).toEqual(built.snapshot());
  });

  it("faults and call counts of tools the spec lacks", () => {
    const snapshot = fresh();
    snapshot.faults = [{ tool: "nope", kind: "timeout", at_call: 1, persistent: true, fired: [] }];
    snapshot.calls = { nope: 5, get_order: 1 };
    const message = refusal(snapshot);
    expect(message).toMatch(/faults\[0\]\.tool: "nope" is not a tool of this spec/);
    expect(message).toMatch(/calls\.nope: "nope" is not a tool of this spec/);
  });

  it("lists at most 20 problems and counts the rest", () => {
    const snapshot = fresh();
    snapshot.collections.orders = Array.from({ length: 30 }, () => ({ total: 1 }));
    const message = refusal(snapshot);
    expect(message.match(/✖/g)).toHaveLength(21);
    expect(message).toMatch(/✖ \(top level\): and 10 more problems$/);
  });
});
