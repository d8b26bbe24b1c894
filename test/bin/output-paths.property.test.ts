import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ROOT, rehearse } from "../support/cli.ts";

const SPEC_TEXT = await readFile(join(ROOT, "examples/retail-orders.json"), "utf8");

/** A fresh folder with the spec, a symlink to it and an empty folder, to aim `--out` at. */
interface Scene {
  dir: string;
  spec: string;
}

/** The hostile shapes of an output path, each built in a scene; `n` sizes the long names. */
const SHAPES: Record<string, (scene: Scene, n: number) => string> = {
  "existing folder": ({ dir }) => join(dir, "folder"),
  "trailing slash": ({ dir }) => `${join(dir, "new")}/`,
  ".": () => ".",
  "..": () => "..",
  empty: () => "",
  "the spec": ({ spec }) => spec,
  "a symlink to the spec": ({ dir }) => join(dir, "link.json"),
  "under the spec, a file": ({ spec }) => join(spec, "x.jsonl"),
  "/proc/nope": () => "/proc/nope/x.jsonl",
  "/proc/self": () => "/proc/self/x.jsonl",
  "/sys (no new files, even for root)": () => "/sys/x.jsonl",
  "/dev/null": () => "/dev/null",
  "under /dev/null": () => "/dev/null/x.jsonl",
  "a long name": ({ dir }, n) => join(dir, `${"n".repeat(n)}.jsonl`),
  "a long path": ({ dir }, n) =>
    join(dir, ...Array.from({ length: 4 * n - 60 }, () => "deep"), "x.jsonl"),
  "a NUL": ({ dir }) => join(dir, "a\0b.jsonl"),
  "a newline": ({ dir }) => join(dir, "new\nline.jsonl"),
  "a name that reads as a stack line": ({ dir }) => join(dir, "x\n    at main (y.ts:1:1)"),
  "a new file": ({ dir }) => join(dir, "ok.jsonl"),
  "new folders": ({ dir }) => join(dir, "a", "b", "ok.jsonl"),
};

/** Every path under a folder, with each file's content, so that a refusal can be shown to leave it as it was. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    out[path] = entry.isFile() ? await readFile(path, "utf8") : entry.isDirectory() ? "/" : "@";
  }
  return out;
}

describe("rehearse simulate --out, over hostile paths", () => {
  it("exits 0, 1 or 2 with no stack trace, never changes the spec, and leaves nothing on refusal", async () => {
    const root = await mkdtemp(join(tmpdir(), "rehearse-out-prop-"));
    const rootBefore = (await readdir(ROOT)).sort();
    let scenes = 0;
    const property = fc.asyncProperty(
      fc.constantFrom(...Object.keys(SHAPES)),
      fc.integer({ min: 1, max: 2 }),
      fc.integer({ min: 200, max: 300 }),
      async (shape, rows, n) => {
        const dir = join(root, String(scenes++));
        await mkdir(join(dir, "folder"), { recursive: true });
        const spec = join(dir, "s.json");
        await writeFile(spec, SPEC_TEXT);
        await symlink(spec, join(dir, "link.json"));
        const before = await snapshot(dir);
        const out = (SHAPES[shape] as (scene: Scene, n: number) => string)({ dir, spec }, n);
        const run = await rehearse(
          "simulate",
          "--spec",
          spec,
          "--out",
          out,
          "--rows",
          String(rows),
        );
        const said = `${shape}: ${run.stdout}${run.stderr}`;
        expect([0, 1, 2], said).toContain(run.code);
        expect(`${run.stdout}${run.stderr}`, said).not.toMatch(/^\s+at /m);
        expect(await readFile(spec, "utf8"), said).toBe(SPEC_TEXT);
        if (run.code === 0) {
          expect((await readFile(out, "utf8")).split("\n").filter(Boolean), said).toHaveLength(
            rows,
          );
        } else {
          expect(await snapshot(dir), said).toEqual(before);
        }
      },
    );
    // Every shape once, then random draws of shape, rows and length.
    await fc.assert(property, {
      seed: 12,
      numRuns: 20,
      examples: Object.keys(SHAPES).map((shape, i) => [shape, 1 + (i % 2), 200 + 7 * i]),
    });
    expect((await readdir(ROOT)).sort()).toEqual(rootBefore);
  });
});
