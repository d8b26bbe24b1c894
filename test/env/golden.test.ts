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
    rows: "fcba495d383701fd2c0811428b713b1f5172bbe6b539e2b50697795bc9378fbd",
    meta: "4435095c11602a2c13bdef755967d68833645286d992a32912de8c76ca98b4ad",
  },
  "personal-finance": {
    rows: "040f20d493b182f967572d5ea7b51901c32ed67457de5b063818c1ef61cb9dbe",
    meta: "b72ba272e421f06bea83f3043363c6ec2eff72c9d626698b2715f0820526b39b",
  },
  "retail-orders": {
    rows: "97b91e85ba7dec5f77ae2ffefc5542db52031f4599644596771115767880b2d6",
    meta: "9eabd265629ff888582572cf5d59b5b864194f1d0be39f491b0fabed66318fef",
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
