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
    rows: "ffeb0c6dc85b2e81384326c02a5a99752ed927f2d700ffddf4954a717f67d2e3",
    meta: "58f138317d30c91478b0fc2f9144a22935e617f840e4b920511022cb1e9da1b7",
  },
  "personal-finance": {
    rows: "2098727c1fe1b4bf69030c3de60af97ae4dc4261723166ff382da7f768614857",
    meta: "c4ab4bf318afd0ac652f7800f833d81ab01998fca8f2d0622385288cb0a7ccf0",
  },
  "retail-orders": {
    rows: "f8bd1fbbb2af0224ee0d6e3219f78d28325dbda258271c477c6d836700a5c1a0",
    meta: "51b18d559d7fa3468e5ed5a8c5d6e116c0ae489b5bfed038ec23930492d9d5f3",
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
