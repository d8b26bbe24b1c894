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
    meta: "132f3c10213aeb6817d34a9b3d93b070ee03e3849667f96984b1b7f57581dcb5",
  },
  "personal-finance": {
    rows: "115ca853052fd79cfbc97928dffbdb06a259c1d4ac7619b9da31b0dcccf72fd5",
    meta: "e58f7ba72c663b1e8ee2468d88cfceeac2266805aa68a627643e82723d8ed5ef",
  },
  "retail-orders": {
    rows: "128faeb1941dd736d520b67b92e5836fa8c2cb3ebfeb64c4ab5527d085588e31",
    meta: "2d38e46808e793c24e117aecca0cde91c0388f7c51b666cf03fd211e86396fe8",
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
