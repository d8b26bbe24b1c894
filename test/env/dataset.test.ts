import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadDataset } from "../../env/dataset.ts";
import { simulate } from "../../env/simulate.ts";
import { DatasetSearchSchema } from "../../spec/index.ts";
import { referenceSpec } from "../fixtures/reference-spec.ts";

describe("data.search is never null", () => {
  it("is the run's own report when the sidecar came with the rows", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-search-")), "data.jsonl");
    await simulate(referenceSpec, { rows: 5, out });
    const data = await loadDataset(out);
    expect(data.search).toEqual({
      status: "recorded",
      budget: 5,
      mutations: [],
      writer_errors: [],
    });
    expect(DatasetSearchSchema.parse(data.search)).toEqual(data.search);
  });

  it("says the figures are not known for rows with no sidecar, inventing none", async () => {
    const rows = await (await simulate(referenceSpec, { rows: 3 })).rows();
    const bare = join(await mkdtemp(join(tmpdir(), "rehearse-search-")), "bare.jsonl");
    await writeFile(bare, `${rows.map((r) => JSON.stringify(r)).join("\n")}\n`);
    const data = await loadDataset(bare);
    expect(data.meta).toBeNull();
    expect(data.search).toEqual({
      status: "unrecorded",
      reason: expect.stringMatching(/no sidecar .* not known/),
    });
    expect(data.search).not.toHaveProperty("budget");
    expect(DatasetSearchSchema.parse(data.search)).toEqual(data.search);
  });
});

describe("a dataset read back", () => {
  it("refuses, read to its end, a file cut since its sidecar said it was complete, naming both counts", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cut-")), "data.jsonl");
    await simulate(referenceSpec, { rows: 12, out });
    const lines = (await readFile(out, "utf8")).trimEnd().split("\n");
    await writeFile(out, `${lines.slice(0, 7).join("\n")}\n`);
    const data = await loadDataset(out);
    await expect(data.rows()).rejects.toThrow(
      /data\.jsonl is invalid .*\n.*holds 7 rows, but its sidecar \(.*data\.jsonl\.meta\.json\) says 12: the file was cut or edited after it was written/,
    );
    // Reading only the first rows checks nothing more.
    const first = data.stream();
    expect((await first.next()).done).toBe(false);
    await first.return(undefined);
  });

  it("reads back a copy saved after rows were taken out in memory, its sidecar counting what was written", async () => {
    const folder = await mkdtemp(join(tmpdir(), "rehearse-saved-"));
    const out = join(folder, "data.jsonl");
    await simulate(referenceSpec, { rows: 12, out });
    const data = await loadDataset(out);
    const rows = await data.rows();
    rows.splice(0, 5);
    const saved = await data.save(join(folder, "kept.jsonl"));
    expect(saved.meta?.rows).toBe(7);
    const reread = await loadDataset(join(folder, "kept.jsonl"));
    expect(reread.size).toBe(7);
    expect((await reread.rows()).map((row) => row.id)).toEqual(rows.map((row) => row.id));
  });
});
