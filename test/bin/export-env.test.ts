import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rehearse } from "../support/cli.ts";

let folder: string;
let graded: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-cli-env-"));
  const data = join(folder, "data.jsonl");
  const args = [
    "--spec",
    "examples/retail-orders.json",
    "--rows",
    "16",
    "--rollouts",
    "4",
    "--out",
    data,
  ];
  expect((await rehearse("simulate", ...args)).code).toBe(0);
  expect((await rehearse("grade", data, "--grader", "examples/grader.ts")).code).toBe(0);
  graded = join(folder, "data.graded.jsonl");
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("rehearse export env", () => {
  it("writes the package and says what it kept and left out", async () => {
    const out = join(folder, "pkg");
    const run = await rehearse("export", "env", "--in", graded, "--out", out);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^wrote {5}verifiers environment retail-orders to .*pkg\ntasks {5}\d+ train, \d+ holdout \(of 16 situations\)\nleft out {2}\d+ below the band, \d+ above it, 0 ungraded, \d+ of the eval split\n/,
    );
    expect((await readdir(out)).sort()).toEqual([
      "README.md",
      "pyproject.toml",
      "retail_orders.py",
      "spec.json",
    ]);
    const all = await rehearse(
      "export",
      "env",
      "--in",
      graded,
      "--out",
      out,
      "--no-band",
      "--overwrite",
      "--json",
    );
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout).left_out).toMatchObject({ below_band: 0, above_band: 0 });
    // Refusals name the flags, before the dataset is read.
    const again = await rehearse("export", "env", "--in", graded, "--out", out, "--no-band");
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/✖ --out: .*pkg already holds an environment; use --overwrite/);
    const onFile = await rehearse("export", "env", "--in", graded, "--out", graded);
    expect(onFile.stderr).toMatch(/✖ --out: .* is a file; expected a new folder/);
    // Where no folder can be made: refused with the reason, not left running.
    const proc = await rehearse("export", "env", "--in", graded, "--out", "/proc/none/deeper/x");
    expect(proc.code).toBe(2);
    expect(proc.stderr).toMatch(/✖ --out: cannot write into \/proc\/none\/deeper: /);
  });

  it("refuses a bad band, and flags that belong to other exports, exit 2", async () => {
    const band = await rehearse(
      "export",
      "env",
      "--in",
      graded,
      "--out",
      join(folder, "b"),
      "--band",
      "0.9,0.1",
    );
    expect(band.code).toBe(2);
    expect(band.stderr).toMatch(/--band: expected low ≤ high/);
    const words = await rehearse(
      "export",
      "env",
      "--in",
      graded,
      "--out",
      join(folder, "b"),
      "--band",
      "lots",
    );
    expect(words.code).toBe(2);
    expect(words.stderr).toMatch(/--band: expected low,high such as 0.2,0.8/);
    const onSft = await rehearse(
      "export",
      "sft",
      "--in",
      graded,
      "--out",
      join(folder, "s.jsonl"),
      "--band",
      "0.2,0.8",
    );
    expect(onSft.code).toBe(2);
    expect(onSft.stderr).toMatch(/--band: applies to export env, not sft/);
    const mask = await rehearse(
      "export",
      "env",
      "--in",
      graded,
      "--out",
      join(folder, "c"),
      "--mask-mode",
      "final",
    );
    expect(mask.code).toBe(2);
    expect(mask.stderr).toMatch(/--mask-mode: applies to export sft, not env/);
  });
});
