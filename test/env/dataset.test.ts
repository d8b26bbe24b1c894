import { mkdtemp, writeFile } from "node:fs/promises";
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
