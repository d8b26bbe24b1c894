import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simulate } from "../../../env/index.ts";
import grade from "../../../examples/grader.ts";
import { rehearse } from "../../support/cli.ts";

describe("grading reports its progress", () => {
  it("calls onProgress once per row with the running count and the total", async () => {
    const data = await simulate("examples/retail-orders.json", { rows: 12, seed: 2 });
    const seen: [number, number][] = [];
    await data.grade({ grader: grade, onProgress: (done, total) => seen.push([done, total]) });
    expect(seen).toEqual(Array.from({ length: 12 }, (_, n) => [n + 1, 12]));
  });

  it("draws no bar when standard error is not a terminal", async () => {
    const folder = await mkdtemp(join(tmpdir(), "rehearse-progress-"));
    try {
      const data = join(folder, "data.jsonl");
      await simulate("examples/retail-orders.json", { rows: 6, seed: 2, out: data });
      const run = await rehearse("grade", data, "--grader", "examples/grader.ts");
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
