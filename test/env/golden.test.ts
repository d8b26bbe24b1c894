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
    rows: "cafd2d75a075721a6fef29704185c6a400b7238ad15336368f6782ec61f975d4",
    meta: "8094cb03b53707b8850a4f95db6dc7474079f54483400ce4deafdfac64c84e36",
  },
  "personal-finance": {
    rows: "115ca853052fd79cfbc97928dffbdb06a259c1d4ac7619b9da31b0dcccf72fd5",
    meta: "a8a93ad412e0416ca94cf5f0b78a1ebeb518f850689d7bacbca9aa9f106965b4",
  },
  "retail-orders": {
    rows: "1df319e846bf463ad1b4f3e3237ee866f1ea90345e6f962e6441d29189b8c2d9",
    meta: "a1b80598f859854395dc049bfcc1ac0dde1101e5c161c16a414f6e0163850b23",
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
