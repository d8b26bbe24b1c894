import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError, mergeShards, simulate } from "../../env/index.ts";

const RETAIL = "examples/retail-orders.json";
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const bytesOf = async (path: string) =>
  `${sha256(await readFile(path))} ${sha256(await readFile(`${path}.meta.json`))}`;
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

/** 45 situations × 2 rollouts = 90 episodes: four shards of 22 and 23, cutting a situation's rollouts apart. */
const RUN = { rows: 45, rollouts: 2, seed: 7 } as const;

describe("sharded runs and merge", () => {
  let dir = "";
  const shard = (index: number, count = 4) => join(dir, `part-${index}-of-${count}.jsonl`);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rehearse-shard-"));
    await simulate(RETAIL, { ...RUN, out: join(dir, "one.jsonl") });
    for (let index = 0; index < 4; index++)
      await simulate(RETAIL, { ...RUN, shard: { index, count: 4 }, out: shard(index) });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("4 shards merged are the single run byte for byte, rows and sidecar, whatever order they are given in", async () => {
    const out = join(dir, "merged.jsonl");
    const data = await mergeShards([shard(2), shard(0), shard(3), shard(1)], { out });
    expect(await bytesOf(out)).toBe(await bytesOf(join(dir, "one.jsonl")));
    expect(data.size).toBe(90);
    const one = await simulate(RETAIL, RUN);
    expect(data.summary).toEqual(one.summary);
  });

  it("slices the plan into contiguous parts as even as whole rows allow, each sidecar saying which", async () => {
    const metas = await Promise.all(
      [0, 1, 2, 3].map(async (i) => JSON.parse(await readFile(`${shard(i)}.meta.json`, "utf8"))),
    );
    expect(metas.map((m) => [m.shard.first, m.shard.end, m.rows])).toEqual([
      [0, 22, 22],
      [22, 45, 23],
      [45, 67, 22],
      [67, 90, 23],
    ]);
    const single = (await readFile(join(dir, "one.jsonl"), "utf8")).split("\n");
    const third = (await readFile(shard(2), "utf8")).split("\n");
    expect(third.slice(0, 22)).toEqual(single.slice(45, 67));
  });

  it("refuses a missing shard, naming it, and writes nothing", async () => {
    const out = join(dir, "missing.jsonl");
    const merging = mergeShards([shard(0), shard(1), shard(3)], { out });
    await expect(merging).rejects.toThrow(InputError);
    await expect(merging).rejects.toThrow(/missing shard 2 of 4/);
    expect(await exists(out)).toBe(false);
  });

  it("refuses a shard given twice, naming both files", async () => {
    await expect(
      mergeShards([shard(0), shard(1), shard(1), shard(2), shard(3)], {
        out: join(dir, "twice.jsonl"),
      }),
    ).rejects.toThrow(/shard 1\/4 is given twice: .*part-1-of-4\.jsonl and .*part-1-of-4\.jsonl/);
  });

  it("refuses shards of another seed, options or shard count, naming the field", async () => {
    const seed = join(dir, "seed-8.jsonl");
    await simulate(RETAIL, { ...RUN, seed: 8, shard: { index: 2, count: 4 }, out: seed });
    await expect(
      mergeShards([shard(0), shard(1), seed, shard(3)], { out: join(dir, "seeds.jsonl") }),
    ).rejects.toThrow(
      /options: .*seed-8\.jsonl has .*"seed":8.*the shards come from different runs/,
    );
    const halves = join(dir, "half.jsonl");
    await simulate(RETAIL, { ...RUN, shard: { index: 1, count: 2 }, out: halves });
    await expect(
      mergeShards([shard(0), halves], { out: join(dir, "counts.jsonl") }),
    ).rejects.toThrow(/shard\.count/);
  });

  it("refuses a shard that is missing, a folder, or only a partial file, naming it", async () => {
    const out = join(dir, "named.jsonl");
    await expect(mergeShards([join(dir, "nowhere.jsonl")], { out })).rejects.toThrow(
      /merge: .*nowhere\.jsonl is invalid .*\n.*does not exist/,
    );
    await expect(mergeShards([dir], { out })).rejects.toThrow(/is not a file/);
    const cut = join(dir, "cut-off.jsonl");
    await writeFile(`${cut}.partial`, "");
    await expect(mergeShards([cut], { out })).rejects.toThrow(
      /is an unfinished shard: only .*cut-off\.jsonl\.partial exists; finish it with --resume first/,
    );
  });

  it("refuses a file that is no shard, or an unfinished shard", async () => {
    await expect(
      mergeShards([join(dir, "one.jsonl")], { out: join(dir, "whole.jsonl") }),
    ).rejects.toThrow(/is not a shard: its sidecar has no shard block/);
    const unfinished = join(dir, "unfinished.jsonl");
    await simulate(RETAIL, { ...RUN, shard: { index: 3, count: 4 }, out: unfinished });
    const meta = JSON.parse(await readFile(`${unfinished}.meta.json`, "utf8"));
    await writeFile(`${unfinished}.meta.json`, JSON.stringify({ ...meta, complete: false }));
    await expect(
      mergeShards([shard(0), shard(1), shard(2), unfinished], { out: join(dir, "u.jsonl") }),
    ).rejects.toThrow(/is an unfinished shard/);
  });

  it("refuses a shard whose rows do not match its sidecar", async () => {
    const cut = join(dir, "cut.jsonl");
    await simulate(RETAIL, { ...RUN, shard: { index: 1, count: 4 }, out: cut });
    const lines = (await readFile(cut, "utf8")).trimEnd().split("\n");
    await writeFile(cut, `${lines.slice(0, -1).join("\n")}\n`);
    await expect(
      mergeShards([shard(0), cut, shard(2), shard(3)], { out: join(dir, "cut-merged.jsonl") }),
    ).rejects.toThrow(/holds 22 rows, but its sidecar says 23/);
    expect(await exists(join(dir, "cut-merged.jsonl"))).toBe(false);
  });

  it("refuses a shard holding rows the run did not plan there, though their count matches", async () => {
    const edited = join(dir, "edited.jsonl");
    await simulate(RETAIL, { ...RUN, shard: { index: 1, count: 4 }, out: edited });
    const lines = (await readFile(edited, "utf8")).trimEnd().split("\n");
    const idOf = (line: string) => JSON.parse(line).id as string;
    const attempts: [string, string[], string][] = [
      // A row deleted and the one before it doubled.
      [
        "doubled",
        [...lines.slice(0, 5), lines[4] as string, ...lines.slice(6)],
        idOf(lines[5] as string),
      ],
      // Two rows swapped.
      [
        "swapped",
        [lines[1] as string, lines[0] as string, ...lines.slice(2)],
        idOf(lines[0] as string),
      ],
    ];
    for (const [name, rows, planned] of attempts) {
      await writeFile(edited, `${rows.join("\n")}\n`);
      const out = join(dir, `${name}-merged.jsonl`);
      await expect(
        mergeShards([shard(0), edited, shard(2), shard(3)], { out }),
        name,
      ).rejects.toThrow(
        new RegExp(
          `row \\d+ \\(line \\d+\\): holds row_\\w+, but the run planned ${planned} there`,
        ),
      );
      expect(await exists(out)).toBe(false);
    }
    // Another seed's shard, its sidecar edited to say this run's seed.
    const other = join(dir, "other-seed.jsonl");
    await simulate(RETAIL, { ...RUN, seed: 8, shard: { index: 1, count: 4 }, out: other });
    const meta = JSON.parse(await readFile(`${other}.meta.json`, "utf8"));
    const own = JSON.parse(await readFile(`${shard(1)}.meta.json`, "utf8"));
    await writeFile(
      `${other}.meta.json`,
      JSON.stringify({ ...meta, options: own.options, shard: own.shard }),
    );
    await expect(
      mergeShards([shard(0), other, shard(2), shard(3)], { out: join(dir, "other-merged.jsonl") }),
    ).rejects.toThrow(/row 1 \(line 1\): holds row_\w+, but the run planned row_\w+ there/);
  });

  it("refuses a shard index outside its count, naming shard.index", async () => {
    await expect(simulate(RETAIL, { rows: 4, shard: { index: 4, count: 4 } })).rejects.toThrow(
      /shard\.index: expected the shard's index below its count/,
    );
  });
});
