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
    rows: "33ac8c5985cbf20c853ec29e2f7681a63a61eb139ca733b7396f5639b0021ac4",
    meta: "d42ed8d7e6069a6fedda7bb0963fef6e557d53cdd66c4c6bce4d9cda4ada42b3",
  },
  "personal-finance": {
    rows: "115ca853052fd79cfbc97928dffbdb06a259c1d4ac7619b9da31b0dcccf72fd5",
    meta: "a8a93ad412e0416ca94cf5f0b78a1ebeb518f850689d7bacbca9aa9f106965b4",
  },
  "retail-orders": {
    rows: "6a3debb68a37173c6657250bbc4f75daab37a04b51fd244118f8aa1b1b7b88f8",
    meta: "27acb6d2283be8b58aa0522815f8268cc74e4cc2d87bc7a0aec69bdfe8cf4310",
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
