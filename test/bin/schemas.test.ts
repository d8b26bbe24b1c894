import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { schemaFiles } from "../../bin/schemas.ts";
import { writeFilesAtomic } from "../../env/util/files.ts";
import { rehearse } from "../support/cli.ts";

/** Every file in a folder with its content. */
async function contents(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    out[name] = await readFile(join(dir, name), "utf8").catch(() => "<folder>");
  }
  return out;
}

describe("rehearse schemas --out writes every file or none", () => {
  it("writes them all, and --check then finds them current", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-schemas-"));
    const run = await rehearse("schemas", "--out", dir);
    expect(run.code).toBe(0);
    expect(Object.keys(await contents(dir))).toEqual([...schemaFiles().keys()].sort());
    expect((await rehearse("schemas", "--out", dir, "--check")).code).toBe(0);
  });

  it("leaves the old files whole when one cannot be written", async () => {
    // Reproduction (issue 12): the files were written one by one, so a failure at the third left
    // two new files beside old ones: a folder of schemas from two versions.
    const dir = await mkdtemp(join(tmpdir(), "rehearse-schemas-"));
    const names = [...schemaFiles().keys()].sort();
    expect(names.length).toBeGreaterThan(2);
    for (const name of names) await writeFile(join(dir, name), `old ${name}\n`);
    // The last file's place is taken by a folder: no file can be renamed over it.
    const blocked = names.at(-1) as string;
    await rm(join(dir, blocked));
    await mkdir(join(dir, blocked));
    const before = await contents(dir);
    const run = await rehearse("schemas", "--out", dir);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot write ${join(dir, blocked)}`);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).toBe("");
    // Every old file as it was, and no temp file left.
    expect(await contents(dir)).toEqual(before);
  });

  it("writeFilesAtomic: a write that fails part way leaves every file as it was and no temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-files-"));
    await writeFile(join(dir, "a.json"), "old a");
    await writeFile(join(dir, "file"), "a file, not a folder");
    const files = new Map([
      [join(dir, "a.json"), "new a"],
      // Its temp file cannot be made: the path runs through a file.
      [join(dir, "file", "b.json"), "new b"],
      [join(dir, "c.json"), "new c"],
    ]);
    await expect(writeFilesAtomic(files)).rejects.toThrow(/cannot write .*b\.json/);
    expect(await contents(dir)).toEqual({ "a.json": "old a", file: "a file, not a folder" });
    await writeFilesAtomic(new Map([...files].filter(([path]) => !path.endsWith("b.json"))));
    expect(await contents(dir)).toEqual({
      "a.json": "new a",
      "c.json": "new c",
      file: "a file, not a folder",
    });
  });
});
