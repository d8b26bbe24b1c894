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
    rows: "a0be88410f370c2cef5340b32c4ce680160c08e382c77677c6500659683ae8e9",
    meta: "d50f17bff6150e839f060afd968e980d68e2f06200d9c7cbda80e609c31b1de2",
  },
  "personal-finance": {
    rows: "9e0237c300ce60fada5cee10b04e52541ac5d00951b387fa91cb6f1241c3eee8",
    meta: "56dbe78372347810035573171717d0db6b3b238530ff6a4a0e689e8dec0c59cf",
  },
  "retail-orders": {
    rows: "9ba3a360d0dd0a368fba01604c9cececb0ed043db6edf5279b489b5463396d12",
    meta: "deed9f9af60841dbde06e1d79d3af863c2cb0f378342e65a0baa5ab6eace7b8f",
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
