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
    rows: "6f97e98c93a983366af235e09b75aad37f1437354b105e67dce972b3be16169b",
    meta: "625e503a8b74fe232ecaa827b755995b954b9250c9bcd0fa021bda750c074e1d",
  },
  "personal-finance": {
    rows: "cedd3fd4902fb7db2340e895b9112b92f5c39d378b56240d243252fff8a49527",
    meta: "a8a93ad412e0416ca94cf5f0b78a1ebeb518f850689d7bacbca9aa9f106965b4",
  },
  "retail-orders": {
    rows: "445468c6c5478245a8fb1e00771879292304d8376f5451a7af24cb008fbea18c",
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
