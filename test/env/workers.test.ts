import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, InputError, planSituations, simulate } from "../../env/index.ts";
import { WorkerPool } from "../../env/workers/pool.ts";

const RETAIL = "examples/retail-orders.json";
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("simulate on worker threads", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-workers-"));
    dirs.push(dir);
    return dir;
  };

  it("writes the same bytes, rows and sidecar, whatever the worker count (this thread, 1, 2 or 3 workers)", async () => {
    const dir = await folder();
    const hashes: string[] = [];
    const summaries: unknown[] = [];
    for (const workers of [0, 1, 2, 3]) {
      const out = join(dir, `w${workers}.jsonl`);
      // Two rollouts and a concurrency above one: rows finish out of order and must come back in plan order.
      const data = await simulate(RETAIL, {
        rows: 60,
        rollouts: 2,
        seed: 3,
        concurrency: 5,
        workers,
        out,
      });
      hashes.push(`${sha256(await readFile(out))} ${sha256(await readFile(`${out}.meta.json`))}`);
      summaries.push(data.summary);
    }
    expect(new Set(hashes).size).toBe(1);
    expect(new Set(summaries.map((s) => JSON.stringify(s))).size).toBe(1);
    const lines = (await readFile(join(dir, "w0.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(120);
  });

  it("keeps a run in memory the same on workers as in this thread", async () => {
    const here = await simulate(RETAIL, { rows: 40, seed: 11, workers: 0 });
    const there = await simulate(RETAIL, { rows: 40, seed: 11, workers: 2 });
    expect(JSON.stringify(await there.rows())).toBe(JSON.stringify(await here.rows()));
    expect(there.meta).toEqual(here.meta);
    expect(there.summary).toEqual(here.summary);
  });

  it("refuses worker threads for a model-backed role, naming the option, before any call", async () => {
    const run = simulate(RETAIL, { rows: 4, workers: 2, agent: "qwen@http://127.0.0.1:9/v1" });
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toThrow(/workers: worker threads play offline roles only/);
  });

  it("refuses a worker count past the limit or below zero, naming workers", async () => {
    await expect(simulate(RETAIL, { rows: 4, workers: -1 })).rejects.toThrow(/workers: expected 0/);
    await expect(simulate(RETAIL, { rows: 4, workers: 100_000 })).rejects.toThrow(
      /workers: expected at most 256 worker threads/,
    );
  });

  it("fails loudly, naming the worker, when a worker cannot start, instead of waiting for rows", async () => {
    const agent = await Agent.load(RETAIL);
    const [situation] = planSituations(agent, { rows: 1 }).cells;
    const pool = await WorkerPool.start(1, {
      spec: agent.spec,
      specHash: "another spec",
      slipRate: 0.25,
      maxTurns: 12,
      logprobs: false,
      keepRows: false,
    });
    try {
      await expect(pool.play(situation as NonNullable<typeof situation>, 0)).rejects.toThrow(
        /worker 0: worker: the spec hashes to \S+, not another spec/,
      );
    } finally {
      await pool.close();
    }
  });
});
