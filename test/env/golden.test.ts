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
    rows: "3797a2e62ba495ed4d332d79e7878719f21e34ff12ea3b762a55dea34c01fd3e",
    meta: "d4695129bfa7b6a379e384ca765e90bc8b470c14f6b91acf061a220bc8c259fe",
  },
  "personal-finance": {
    rows: "180a61238a84c3777ae9c3e21a61036e3c828381b2268d75b28b9d4c2ebfb110",
    meta: "ea75f28ca83c16ac2336270c762953ef1cb5c4676632132cdee9b7a6a9161fe7",
  },
  "retail-orders": {
    rows: "a3fa877fcc7f370560442fdcce2953a1d02e1fbc00e588931872ce62d6247fdb",
    meta: "016cab9ed744719a3d419ef58288bace88c700151a961924699542e4e6d4aac1",
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
