import { link, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../../env/util/errors.ts";
import {
  checkOutputFolder,
  checkOutputPath,
  makeFolder,
  writeFileAtomic,
} from "../../../env/util/files.ts";

const tmp = () => mkdtemp(join(tmpdir(), "rehearse-files-"));

/** The message of what `run` rejects with. */
async function failure(run: () => Promise<unknown>): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("writeFileAtomic", () => {
  it("makes missing folders, and under /proc fails at once naming the file (Node's recursive mkdir looped forever there)", async () => {
    const dir = await tmp();
    await writeFileAtomic(join(dir, "a/b/c.json"), "{}\n");
    expect(await readFile(join(dir, "a/b/c.json"), "utf8")).toBe("{}\n");
    const started = Date.now();
    const error = await failure(() => writeFileAtomic("/proc/nope/deeper/x.json", "{}"));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toBe(
      "cannot write /proc/nope/deeper/x.json: no such file or folder (ENOENT)",
    );
    await expect(makeFolder("/proc/nope/x")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("names the file and why in one line, and leaves the old content and no temp file when the rename fails", async () => {
    const dir = await tmp();
    // A folder that holds a file cannot be replaced by a file: the rename fails after the write.
    const target = join(dir, "taken");
    await mkdir(target);
    await writeFile(join(target, "inside.txt"), "kept\n");
    const error = await failure(() => writeFileAtomic(target, "new"));
    expect(error.message).toBe(`cannot write ${target}: it is a folder (EISDIR)`);
    expect(await readdir(dir)).toEqual(["taken"]);
    expect(await readFile(join(target, "inside.txt"), "utf8")).toBe("kept\n");
    const under = await failure(() => writeFileAtomic(join(target, "inside.txt", "x"), "new"));
    expect(under.message).toMatch(/^cannot write .*inside\.txt\/x: a part of the path is a file/);
  });
});

describe("checkOutputPath", () => {
  const check = (path: string, reads: string[] = [], writes?: string[]) =>
    checkOutputPath(path, { what: "test", field: "--out", reads, ...(writes ? { writes } : {}) });

  it("refuses every hostile shape before writing, with one line naming the flag, the path and what was expected", async () => {
    const dir = await tmp();
    const spec = join(dir, "spec.json");
    await writeFile(spec, '{"spec": true}\n');
    await symlink(spec, join(dir, "link.json"));
    await link(spec, join(dir, "hard.json"));
    await mkdir(join(dir, "folder"));
    const cases: [string, RegExp][] = [
      [spec, /spec\.json is read by this command; write to another file$/],
      [
        join(dir, "link.json"),
        /link\.json is read by this command \(the same file as .*spec\.json\)/,
      ],
      [
        join(dir, "hard.json"),
        /hard\.json is read by this command \(the same file as .*spec\.json\)/,
      ],
      [join(dir, "folder"), /folder is a folder; expected a file$/],
      [`${join(dir, "folder")}/`, /folder\/ names a folder; expected the path of a file/],
      [".", /^\. names a folder/],
      ["..", /^\.\. names a folder/],
      [
        join(spec, "x.jsonl"),
        /cannot write .*spec\.json\/x\.jsonl: .*spec\.json is a file, not a folder$/,
      ],
      ["/dev/null", /\/dev\/null is not a regular file/],
      ["/dev/null/x", /\/dev\/null is a file, not a folder/],
      [
        "/proc/nope/x.jsonl",
        /the folder \/proc\/nope does not exist and cannot be made in \/proc: no such file or folder \(ENOENT\)/,
      ],
      [join(dir, `${"n".repeat(250)}.jsonl`), /file name .* is too long: .* needs 273 bytes/],
      [join(dir, "a\0b"), /"[^"]*a\\u0000b" holds a NUL character/],
    ];
    for (const [path, said] of cases) {
      const error = await failure(() => check(path, [spec]));
      expect(error, path).toBeInstanceOf(InputError);
      const issue = (error as InputError).issues[0];
      expect(issue?.path, path).toBe("--out");
      expect(issue?.message, path).toMatch(said);
      expect(issue?.message, path).not.toContain("\n");
    }
    // Written beside the output, the input is refused too: a sidecar over the spec.
    const beside = await failure(() => check(join(dir, "spec"), [spec], [join(dir, "spec"), spec]));
    expect(beside.message).toMatch(/spec\.json \(written beside .*spec\) is read by this command/);
    expect((await readdir(dir)).sort()).toEqual(["folder", "hard.json", "link.json", "spec.json"]);
    expect(await readFile(spec, "utf8")).toBe('{"spec": true}\n');
  });

  it("takes a new file, a file in folders still to be made, and a name with a newline, creating nothing", async () => {
    const dir = await tmp();
    for (const path of [
      join(dir, "new.jsonl"),
      join(dir, "a/b/new.jsonl"),
      join(dir, "new\nline.jsonl"),
    ])
      await expect(check(path)).resolves.toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe("checkOutputFolder", () => {
  it("refuses a file or a folder that cannot be made, and takes one that can", async () => {
    const dir = await tmp();
    await writeFile(join(dir, "file"), "x");
    const check = (folder: string) =>
      checkOutputFolder(folder, { what: "test", field: "--out", name: "schema.json" });
    await expect(check(join(dir, "file"))).rejects.toThrow(/file is a file, not a folder/);
    await expect(check("/proc/nope")).rejects.toThrow(/cannot be made in \/proc/);
    await expect(check(join(dir, "to/be/made"))).resolves.toBeUndefined();
    expect(await readdir(dir)).toEqual(["file"]);
  });
});
