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
    rows: "2300f3c45987e07f73b47efa05a1de24ae882fc1004700aa2b64dc3900e3482a",
    meta: "73128f35eda0b4de2f92071e507ca601954baa5db1a2570941ec8abc8d04a303",
  },
  "personal-finance": {
    rows: "c091fcb9e0bbbbfdd0ca7b616bdb48d5a10b0b0f27c7c2cd38561c0903f570e8",
    meta: "a8a93ad412e0416ca94cf5f0b78a1ebeb518f850689d7bacbca9aa9f106965b4",
  },
  "retail-orders": {
    rows: "2dbc254424d643d11e8d45b4a93a05037ba55affbd42a72d45f5763056e05750",
    meta: "8f7e411341c166b9f04c36dbe3b147a9c888431adcb67f0634ce0cb9f359d62c",
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
