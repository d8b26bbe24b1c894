import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rehearse } from "../support/cli.ts";
import { scriptedOtlp } from "../support/otel-traces.ts";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-cli-traces-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("rehearse traces", () => {
  it("prints the cells worst first, and the problems by kind", async () => {
    const file = join(folder, "otel.jsonl");
    const timeout = [{ tool: "get_order", error: "timeout" }];
    const v1 = scriptedOtlp(
      [0, 1, 2].map((n) => ({
        id: `a${n}`,
        model: "v1",
        calls: timeout,
        score: 0,
        at: 1_780_000_000_000 + n,
      })),
    );
    const v2 = scriptedOtlp(
      [0, 1, 2].map((n) => ({
        id: `b${n}`,
        model: "v2",
        calls: timeout,
        score: 1,
        at: 1_780_000_900_000 + n,
      })),
    );
    await writeFile(file, `${v1}\n${v2}\nnot json\n`);
    const run = await rehearse("traces", file, "--spec", "examples/retail-orders.json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("traces    6 read, 6 graded: 3 of v2, 3 of v1");
    expect(run.stdout).toMatch(
      /stopped failing +0\/3 +0% +0%–56% +100% +get_order × timeout × normal/,
    );
    expect(run.stdout).toMatch(/problems {2}1 broken json\n {2}.*otel\.jsonl:3: /);
    const json = JSON.parse(
      (await rehearse("traces", file, "--spec", "examples/retail-orders.json", "--json")).stdout,
    );
    expect(json.versions).toEqual({ current: "v2", previous: "v1" });
    const missing = await rehearse(
      "traces",
      join(folder, "none.jsonl"),
      "--spec",
      "examples/retail-orders.json",
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/none\.jsonl: cannot read it/);
  });
});

describe("rehearse gap", () => {
  it("reports the gaps of a spec for the asks given", async () => {
    const asks = join(folder, "asks.txt");
    await writeFile(asks, "Do you price match?\n\n");
    const run = await rehearse(
      "gap",
      "--spec",
      "examples/retail-orders.json",
      "Where is my parcel?",
      "--asks",
      asks,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('ask       "Where is my parcel?" → track_shipment');
    expect(run.stdout).toContain('unserved  "Do you price match?"');
    const none = await rehearse("gap", "--spec", "examples/retail-orders.json");
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/expected at least one example ask/);
  });
});
