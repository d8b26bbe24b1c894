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
    rows: "0ba70dcb4295c66ad9af14e865b65c4a2c3bcf042be39960927179ae27e13781",
    meta: "0a09b86d61a6f455f0472dcbdbba0eb689206ef900564d15c4406f03b1092b79",
  },
  "personal-finance": {
    rows: "30c66fb02070e78382134acada4b054c235dbc89fddeaf1a9832076d587299b1",
    meta: "04eca505d2a1099c918414efed1af6b6057993314436e84676c425346a9a7f7c",
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
