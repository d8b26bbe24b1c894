import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { simulate } from "../../env/index.ts";

/**
 * The offline path's output, recorded before the engine's restructuring (issue 11) with
 * `rehearse simulate --spec examples/<name>.json --rows 60 --seed 7`. A change that moves code
 * without changing behaviour keeps these bytes; a change that means to alter the data updates them
 * and says why in its commit.
 */
const RECORDED: Record<string, { rows: string; meta: string }> = {
  "it-helpdesk": {
    rows: "0ba70dcb4295c66ad9af14e865b65c4a2c3bcf042be39960927179ae27e13781",
    meta: "028dbc5a379796189090faeadf3fc236b2b51e952716338cbaeca617df00d32b",
  },
  "personal-finance": {
    rows: "31347cf54c5df4c69d5eb9a50830c290a238946e6f6a900d0ed63610f1413c0e",
    meta: "7637106e2dec861381d22f965c2f375d9c7a32e4fc22864bf9b6f37952df08d5",
  },
  "retail-orders": {
    rows: "9ba3a360d0dd0a368fba01604c9cececb0ed043db6edf5279b489b5463396d12",
    meta: "7f627806b5fb984dfa187bc78c671b77d705fcb05cbb926b4feea9dc74ad5470",
  },
};

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("simulate's offline output", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  for (const [name, recorded] of Object.entries(RECORDED)) {
    it(`is byte for byte the recorded output for examples/${name}.json`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "rehearse-golden-"));
      dirs.push(dir);
      const out = join(dir, `${name}.jsonl`);
      const spec = JSON.parse(await readFile(`examples/${name}.json`, "utf8"));
      await simulate(spec, { rows: 60, seed: 7, out });
      expect(sha256(await readFile(out))).toBe(recorded.rows);
      expect(sha256(await readFile(`${out}.meta.json`))).toBe(recorded.meta);
    });
  }
});
