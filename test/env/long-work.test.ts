import { describe, expect, it } from "vitest";
import { Agent, Planner } from "../../env/index.ts";
import { onLongWork, stillWorking } from "../../env/util/long-work.ts";

describe("long work says it is still going", () => {
  it("reports the planner's stages to a listener, and nothing once it stops listening", async () => {
    const agent = await Agent.load("test/fixtures/specs/hotel.json");
    const heard = new Set<string>();
    const stop = onLongWork((stage, seconds) => {
      expect(seconds).toBeGreaterThanOrEqual(0);
      heard.add(stage);
    }, 0);
    new Planner(agent, { rows: 1, seed: 3 });
    stop();
    expect([...heard]).toEqual(
      expect.arrayContaining([
        "reading the records' statuses from the policy",
        "finding which value pairs a situation can hold",
        "building the covering array",
      ]),
    );
    heard.clear();
    for (let i = 0; i < 1_000; i++) stillWorking("anything");
    expect(heard.size).toBe(0);
  });

  it("reports at most once an interval", () => {
    const heard: string[] = [];
    const stop = onLongWork((stage) => heard.push(stage), 60_000);
    for (let i = 0; i < 100_000; i++) stillWorking("looping");
    stop();
    expect(heard).toEqual([]);
  });
});
