import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, rehearse } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("rehearse simulate --shard and rehearse merge", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("runs the shards of a plan and merges them into the file one run writes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-merge-"));
    dirs.push(dir);
    const run = (...extra: string[]) =>
      rehearse("simulate", "--spec", RETAIL, "--rows", "30", "--seed", "5", ...extra);
    expect((await run("--out", join(dir, "one.jsonl"))).code).toBe(0);
    for (const index of [0, 1, 2])
      expect(
        (
          await run(
            "--shard",
            `${index}/3`,
            "--workers",
            "0",
            "--out",
            join(dir, `s${index}.jsonl`),
          )
        ).code,
      ).toBe(0);
    const shards = [0, 1, 2].map((i) => join(dir, `s${i}.jsonl`));
    const merged = await rehearse("merge", ...shards, "--out", join(dir, "merged.jsonl"));
    expect(merged.code).toBe(0);
    expect(merged.stdout).toMatch(/merged {4}3 shards, 30 rows into .*merged\.jsonl/);
    for (const suffix of ["", ".meta.json"])
      expect(sha256(await readFile(join(dir, `merged.jsonl${suffix}`)))).toBe(
        sha256(await readFile(join(dir, `one.jsonl${suffix}`))),
      );

    const missing = await rehearse("merge", shards[0] as string, "--out", join(dir, "m.jsonl"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/missing shards 1, 2 of 3/);
    const again = await rehearse("merge", ...shards, "--out", join(dir, "merged.jsonl"));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--out: .*already exists.*--overwrite/);
  });

  it("refuses a --shard that is not i/n, or an index past the count, with exit code 2", async () => {
    const out = join(tmpdir(), "rehearse-never-written.jsonl");
    const text = await rehearse("simulate", "--spec", RETAIL, "--shard", "two", "--out", out);
    expect(text.code).toBe(2);
    expect(text.stderr).toMatch(/--shard.*expected i\/n/);
    const past = await rehearse("simulate", "--spec", RETAIL, "--shard", "3/3", "--out", out);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--shard\.index: expected the shard's index below its count/);
  });
});
