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
    rows: "f0ca6dce2a1911e94a37e68888b1267779d52ff7e41f54be65681a8a17555e1c",
    meta: "ea75f28ca83c16ac2336270c762953ef1cb5c4676632132cdee9b7a6a9161fe7",
  },
  "retail-orders": {
    rows: "b4673bf647b16aa045c273994318efe35c3234bd619ff4dcc49984bd8b0021c0",
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
