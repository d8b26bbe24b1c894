import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, loadDataset, OfflineAgent, rollout, simulate } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { FinishedEpisodes } from "../../server/freeze.ts";
import { type ServerHandle, serve } from "../../server/index.ts";

let agent: Agent;
let folder: string;
let server: ServerHandle;

beforeAll(async () => {
  agent = await Agent.load("examples/retail-orders.json");
  folder = await mkdtemp(join(tmpdir(), "rehearse-freeze-"));
  server = await serve(agent, { port: 0, rows: 6, keepEpisodes: 2, freezeDir: folder });
});
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

describe("finished episodes kept for a freeze", () => {
  it("keeps at most `keep`, newest last, and counts those that gave way", async () => {
    const rows = await (await simulate(agent, { rows: 20, seed: 3 })).rows();
    const kept = new FinishedEpisodes(8, 1 << 30);
    for (const row of rows) kept.add(row);
    expect(kept.size).toBeLessThanOrEqual(8);
    const taken = kept.take();
    expect(taken.rows.length + taken.dropped).toBe(20);
    expect(taken.rows.map((line) => JSON.parse(line).id)).toEqual(
      rows.slice(20 - taken.rows.length).map((row) => row.id),
    );
    expect(kept.size).toBe(0);
    kept.restore(taken);
    expect(kept.take()).toEqual(taken);
  });

  it("keeps at most `keepBytes` of JSON lines however few the rows, newest last, and counts those that gave way", () => {
    const budget = 1 << 20;
    const kept = new FinishedEpisodes(10_000, budget);
    // Rows the size an episode at the message limit makes: four fit in the budget, not five.
    const id = (n: number) => `row_${String(n).padStart(2, "0")}`;
    const line = (n: number) => JSON.stringify({ id: id(n), text: "é".repeat(120_000) });
    const size = Buffer.byteLength(line(0));
    for (let n = 0; n < 40; n++) {
      kept.addLine(line(n));
      expect(kept.bytes).toBeLessThanOrEqual(budget);
    }
    expect(kept.bytes).toBe(kept.size * size);
    const taken = kept.take();
    expect(taken.rows.length).toBeGreaterThan(0);
    expect(taken.rows.length + taken.dropped).toBe(40);
    expect(taken.rows.map((l) => JSON.parse(l).id)).toEqual(
      Array.from({ length: taken.rows.length }, (_, i) => id(40 - taken.rows.length + i)),
    );
    expect(kept.bytes).toBe(0);
    kept.restore(taken);
    expect(kept.bytes).toBe(taken.rows.length * size);
    // A row larger than the whole budget is not kept, and is counted.
    kept.addLine(JSON.stringify({ id: "huge", text: "x".repeat(budget) }));
    expect(kept.peek().rows.map((l) => JSON.parse(l).id)).not.toContain("huge");
    expect(kept.take().dropped).toBe(taken.dropped + taken.rows.length + 1);
  });

  it("says in the sidecar's warnings and the reply how many gave way", async () => {
    for (let seed = 0; seed < 5; seed++) {
      const client = new EnvClient(server.wsUrl);
      await rollout(client, new OfflineAgent().start(agent, seed), { seed });
      await client.close();
    }
    const response = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "kept.jsonl" }),
    });
    const result = (await response.json()) as { rows: number; dropped: number; path: string };
    expect(result.rows + result.dropped).toBe(5);
    expect(result.dropped).toBeGreaterThan(0);
    const data = await loadDataset(result.path);
    expect(data.size).toBe(result.rows);
    expect(data.warnings.join("\n")).toMatch(
      new RegExp(`${result.dropped} finished episodes were not kept`),
    );
    const empty = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "empty.jsonl" }),
    });
    expect(((await empty.json()) as { rows: number }).rows).toBe(0);
  });

  it("runs freezes one at a time: of four at once for one name, one writes the rows, three are refused", async () => {
    for (let seed = 0; seed < 2; seed++) {
      const client = new EnvClient(server.wsUrl);
      await rollout(client, new OfflineAgent().start(agent, seed), { seed });
      await client.close();
    }
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        fetch(`${server.url}/v1/freeze`, {
          method: "POST",
          body: JSON.stringify({ name: "race.jsonl" }),
        }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409]);
    const written = responses.find((response) => response.status === 200) as Response;
    const result = (await written.json()) as { rows: number; path: string };
    expect(result.rows).toBe(2);
    expect((await loadDataset(result.path)).size).toBe(2);
  });
});
