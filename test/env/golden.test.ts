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
    rows: "fc35a9590e722cd5f4e7898d085dbc52085512121d5cf3a9c42dc247e3216d02",
    meta: "d4695129bfa7b6a379e384ca765e90bc8b470c14f6b91acf061a220bc8c259fe",
  },
  "personal-finance": {
    rows: "faebef5ac4c61a4999d0943b41c2cac1109739fd1af87a6650916a51fb7268f6",
    meta: "62639bb0a7cc04f510459a61d509f4daf31ba73d851cd0b8bdcb45e962af8a29",
  },
  "retail-orders": {
    rows: "3790e70e3d1acaea69dbf41e26a34f2b382bb54363f5c471afeab4fbdfd9b504",
    meta: "78b122e8a5cc3db0bd62ed8e4a1ad10965f405183bb5d91049643534293cab84",
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
