import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rehearse } from "../support/cli.ts";
import { scriptedOtlp } from "../support/otel-traces.ts";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-aimed-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("rehearse simulate --traces and --grader", () => {
  it("aims the rows at what the traces say fails, and prints where they went", async () => {
    const file = join(folder, "otel.jsonl");
    const timeout = [{ tool: "get_order", error: "timeout" }];
    await writeFile(
      file,
      scriptedOtlp(
        [0, 1, 2, 3].map((n) => ({
          id: `c${n}`,
          model: "v1",
          calls: timeout,
          score: n === 0 ? 1 : 0,
        })),
      ),
    );
    const out = join(folder, "aimed.jsonl");
    const run = await rehearse(
      "simulate",
      "--spec",
      "examples/retail-orders.json",
      "--rows",
      "20",
      "--out",
      out,
      "--traces",
      file,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "budget    18 rows → get_order × timeout × normal: new failure: 3/4 failed now, no traces before",
    );
    expect(run.stdout).toContain("budget    2 rows → exploration: the plain grid in plan order");
  });

  it("searches with a grader module in batches and writes graded rows", async () => {
    const grader = join(folder, "grader.mjs");
    await writeFile(
      grader,
      'export default (row) => row.situation.axes.stance === "vague" ? { reward: 0, reason: "vague" } : { reward: 1, reason: "ok" };\n',
    );
    const out = join(folder, "searched.jsonl");
    const run = await rehearse(
      "simulate",
      "--spec",
      "examples/retail-orders.json",
      "--rows",
      "24",
      "--out",
      out,
      "--grader",
      grader,
      "--batch",
      "8",
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /search {4}failing rows per batch \d+\/8, \d+\/8, \d+\/8; \d+ mutations tried/,
    );
    const rows = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows).toHaveLength(24);
    expect(rows.every((row) => typeof row.reward === "number")).toBe(true);
    const refused = await rehearse(
      "simulate",
      "--spec",
      "examples/retail-orders.json",
      "--rows",
      "8",
      "--out",
      join(folder, "x.jsonl"),
      "--grader",
      grader,
      "--workers",
      "2",
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/workers: a graded search/);
  });
});
