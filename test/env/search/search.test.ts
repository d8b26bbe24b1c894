import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  Agent,
  ingestTraces,
  OfflineAgent,
  OfflineWriter,
  offlineUser,
  Planner,
  playEpisode,
  searchFailures,
  simulate,
  traceBudget,
  tracePicture,
} from "../../../env/index.ts";
import { WorkerPool } from "../../../env/workers/pool.ts";
import type { Row, Situation } from "../../../spec/index.ts";
import { scriptedOtlp, versionConversations } from "../../support/otel-traces.ts";

let agent: Agent;
let folder: string;

beforeAll(async () => {
  agent = await Agent.load("examples/retail-orders.json");
  folder = await mkdtemp(join(tmpdir(), "rehearse-search-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const grid = (rows: number, seed = 3): Situation[] => [
  ...new Planner(agent, { rows, seed }).walk(),
];

/** Runs situations with the offline roles, as simulate does. */
const run = (situations: readonly Situation[]): Promise<Row[]> =>
  Promise.all(
    situations.map((situation) =>
      playEpisode(agent, situation, new OfflineAgent(), new OfflineWriter(), offlineUser, 12),
    ),
  );

describe("traceBudget", () => {
  it("sends most rows to what newly fails, keeps a share for exploration, and says why", async () => {
    const timeout = [{ tool: "get_order", error: "timeout" }];
    const missing = [{ tool: "cancel_order", result: '{"error":"order not found"}' }];
    const plain = [{ tool: "track_shipment", result: '{"status":"in transit"}' }];
    const file = join(folder, "versions.jsonl");
    const v1 = scriptedOtlp(
      versionConversations("v1", 1_780_000_000_000, {
        timeout: { calls: timeout, n: 8, failing: 5 },
        plain: { calls: plain, n: 8, failing: 0 },
      }),
    );
    const v2 = scriptedOtlp(
      versionConversations("v2", 1_780_000_900_000, {
        timeout: { calls: timeout, n: 8, failing: 0 },
        missing: { calls: missing, n: 8, failing: 6 },
        plain: { calls: plain, n: 8, failing: 0 },
      }),
    );
    await writeFile(file, `${v1}\n${v2}\n`);
    const { traces, problems } = await ingestTraces([file], { agent });
    const picture = tracePicture(traces, problems);
    const plan = grid(64);
    const budget = traceBudget(agent, picture, plan, 100, { seed: 1 });
    expect(budget.rows).toBe(100);
    const byCell = Object.fromEntries(budget.entries.map((entry) => [entry.cell, entry]));
    expect(Object.keys(byCell)).toEqual([
      "cancel_order × ok × record_missing",
      "get_order × timeout × normal",
      "exploration",
    ]);
    const newFailure = byCell["cancel_order × ok × record_missing"];
    expect(newFailure?.reason).toBe("new failure: 6/8 failed now, no traces before");
    expect(byCell["get_order × timeout × normal"]?.reason).toBe(
      "stopped failing: 0/8 failed now, 5/8 failed before",
    );
    expect(newFailure?.rows).toBeGreaterThan(50);
    expect(byCell.exploration?.rows).toBe(10);
    const aimed = budget.situations.slice(0, newFailure?.rows);
    for (const situation of aimed)
      expect([situation.axes.tool, situation.axes.condition, situation.axes.world]).toEqual([
        "cancel_order",
        "ok",
        "record_missing",
      ]);
    expect(new Set(budget.situations.map((situation) => situation.id)).size).toBe(100);
    expect(traceBudget(agent, picture, plan, 100, { seed: 1 }).situations).toEqual(
      budget.situations,
    );

    const rows = await run(aimed.slice(0, 6));
    for (const row of rows)
      expect(row.situation.axes).toMatchObject({ tool: "cancel_order", world: "record_missing" });
  });

  it("with no failing cell, spends every row on the plain grid", async () => {
    const budget = traceBudget(agent, tracePicture([], []), grid(30), 20);
    expect(budget.entries).toEqual([
      {
        cell: "exploration",
        rows: 20,
        reason: "no failing cell in the traces: the plain grid in plan order",
        weight: 0,
      },
    ]);
  });
});

describe("searchFailures", () => {
  it("finds more failing rows per batch than the plain grid when the grader fails one wording", async () => {
    // A customer's grader that fails every conversation with a vague person: a failure of wording,
    // which no tool fault or world state triggers.
    const grader = (row: Row) =>
      row.situation.axes.stance === "vague"
        ? { reward: 0, reason: "the agent did not pin down what the vague person wanted" }
        : { reward: 1, reason: "fine" };
    const rows = 80;
    const batch = 10;
    const plain = await run(grid(rows, 11));
    const plainFailing = plain.filter((row) => grader(row).reward === 0).length;
    const searched = await searchFailures({
      agent,
      grid: grid(rows, 11),
      rows,
      batch,
      grader,
      run,
      seed: 5,
    });
    const searchFailing = searched.rows.filter((row) => row.reward === 0).length;
    const perBatch = (n: number) => (n / (rows / batch)).toFixed(2);
    console.log(
      `failing rows per batch of ${batch}: plain grid ${perBatch(plainFailing)} (${plainFailing}/${rows}), search ${perBatch(searchFailing)} (${searchFailing}/${rows})`,
    );
    expect(searched.rows).toHaveLength(rows);
    expect(searchFailing).toBeGreaterThan(plainFailing * 1.5);
    expect(searched.batches.map((b) => b.rows)).toEqual(Array(rows / batch).fill(batch));
    expect(searched.batches[0]?.mutations).toBe(0);
    expect(searched.batches.slice(1).some((b) => b.mutations > 0)).toBe(true);
    // Every mutation moves one axis, names both values, and the children that ran carry their outcome.
    const ran = new Set(searched.rows.map((row) => row.task_id));
    for (const mutation of searched.mutations) {
      expect(mutation.from).not.toBe(mutation.to);
      expect(mutation.parent_reward).toBe(0);
      if (ran.has(mutation.child)) expect(mutation.child_reward).not.toBeNull();
    }
    const moved = searched.mutations.filter((m) => ran.has(m.child));
    const keptStance = moved.filter((m) => m.axis !== "stance");
    expect(keptStance.every((m) => m.child_reward === 0)).toBe(true);
    expect(moved.filter((m) => m.axis === "stance").every((m) => m.child_reward === 1)).toBe(true);
  });
});

describe("simulate with traces or a grader", () => {
  it("spends the rows where the traces say the agent fails, and records where every row went", async () => {
    const missing = [{ tool: "cancel_order", result: '{"error":"order not found"}' }];
    const plain = [{ tool: "track_shipment", result: '{"status":"in transit"}' }];
    const file = join(folder, "simulate-traces.jsonl");
    await writeFile(
      file,
      scriptedOtlp(
        versionConversations("v2", 1_780_000_900_000, {
          missing: { calls: missing, n: 6, failing: 5 },
          plain: { calls: plain, n: 6, failing: 0 },
        }),
      ),
    );
    const { traces, problems } = await ingestTraces([file], { agent });
    const picture = tracePicture(traces, problems);
    const out = join(folder, "aimed.jsonl");
    const data = await simulate(agent, { rows: 40, seed: 2, traces: picture, out });
    const allocation = data.search.status === "recorded" ? data.search.allocation : undefined;
    expect(allocation?.map((entry) => [entry.cell, entry.rows])).toEqual([
      ["cancel_order × ok × record_missing", 36],
      ["exploration", 4],
    ]);
    const rows = await data.rows();
    expect(
      rows.filter(
        (row) =>
          row.situation.axes.tool === "cancel_order" &&
          row.situation.axes.world === "record_missing",
      ),
    ).toHaveLength(36);
    expect(JSON.parse(await readFile(`${out}.meta.json`, "utf8")).search.allocation).toEqual(
      allocation,
    );
  });

  it("searches with the customer's grader, batch by batch, and returns graded rows", async () => {
    const grader = (row: Row) =>
      row.situation.axes.stance === "vague"
        ? { reward: 0, reason: "vague person not helped" }
        : { reward: 1, reason: "fine" };
    const plain = await simulate(agent, { rows: 64, seed: 9 });
    await plain.grade({ grader });
    const plainFailing = (await plain.rows()).filter((row) => row.reward === 0).length;
    const searched = await simulate(agent, { rows: 64, seed: 9, grader, batch: 8 });
    const rows = await searched.rows();
    const failing = rows.filter((row) => row.reward === 0).length;
    console.log(
      `simulate, 64 rows in batches of 8: plain grid ${plainFailing} failing rows, search ${failing}`,
    );
    expect(rows).toHaveLength(64);
    expect(rows.every((row) => row.judge_meta !== undefined)).toBe(true);
    expect(failing).toBeGreaterThan(plainFailing * 1.5);
    const report = searched.search.status === "recorded" ? searched.search : null;
    expect(report?.batches).toHaveLength(8);
    expect(report?.mutations.length).toBeGreaterThan(0);
    await expect(
      simulate(agent, { rows: 8, grader, shard: { index: 0, count: 2 } }),
    ).rejects.toThrow(/shard: a graded search \(grader\) chooses its rows as it goes/);
  });

  it("starts no worker threads for a graded search, however many rows it has", async () => {
    const start = vi.spyOn(WorkerPool, "start");
    try {
      const grader = () => ({ reward: 1, reason: "fine" });
      const searched = await simulate(agent, { rows: 1_000, seed: 1, grader, batch: 250 });
      expect(await searched.rows()).toHaveLength(1_000);
      expect(start).not.toHaveBeenCalled();
    } finally {
      start.mockRestore();
    }
  });
});
