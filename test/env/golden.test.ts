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
    rows: "feb7d2df1fe0b9268fe4dc95604dda1ea8ef2451690a32f3ff167ad8b179d770",
    meta: "e6090358996398a525f1b4d7b1b5ebf3742e185ab64e8fc00f358f2aad56c568",
  },
  "personal-finance": {
    rows: "faebef5ac4c61a4999d0943b41c2cac1109739fd1af87a6650916a51fb7268f6",
    meta: "a8a93ad412e0416ca94cf5f0b78a1ebeb518f850689d7bacbca9aa9f106965b4",
  },
  "retail-orders": {
    rows: "3790e70e3d1acaea69dbf41e26a34f2b382bb54363f5c471afeab4fbdfd9b504",
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
