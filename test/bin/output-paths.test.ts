import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SimulationInterrupted, simulate } from "../../env/simulate.ts";
import { ROOT, rehearse } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");
const tmp = () => mkdtemp(join(tmpdir(), "rehearse-cli-out-"));
const STACK_LINE = /^\s+at /m;

/** A folder holding a copy of the retail spec, and the spec's path and text. */
async function withSpec(): Promise<{ dir: string; spec: string; text: string }> {
  const dir = await tmp();
  const text = await readFile(RETAIL, "utf8");
  await writeFile(join(dir, "s.json"), text);
  return { dir, spec: join(dir, "s.json"), text };
}

describe("rehearse simulate --out", () => {
  it("refuses the spec it reads as its output, by name or through a symlink, and leaves it whole", async () => {
    const { dir, spec, text } = await withSpec();
    await symlink(spec, join(dir, "link.json"));
    for (const out of [spec, join(dir, "link.json")]) {
      const run = await rehearse("simulate", "--spec", spec, "--out", out, "--rows", "1");
      expect(run.code, out).toBe(2);
      expect(run.stderr).toMatch(/✖ --out: .* is read by this command/);
      expect(run.stdout).toBe("");
    }
    expect(await readFile(spec, "utf8")).toBe(text);
    expect((await readdir(dir)).sort()).toEqual(["link.json", "s.json"]);
  });

  it("refuses a folder, `.` and `..` before any work, writing nothing (it used to run every row, then fail)", async () => {
    const { dir, spec } = await withSpec();
    await mkdir(join(dir, "out"));
    const before = (await readdir(ROOT)).sort();
    for (const [out, said] of [
      [join(dir, "out"), /out is a folder; expected a file/],
      [".", /✖ --out: \. names a folder; expected the path of a file to write/],
      ["..", /✖ --out: \.\. names a folder/],
    ] as const) {
      const run = await rehearse("simulate", "--spec", spec, "--out", out, "--rows", "1");
      expect(run.code, out).toBe(2);
      expect(run.stderr).toMatch(said);
    }
    expect((await readdir(dir)).sort()).toEqual(["out", "s.json"]);
    expect(await readdir(join(dir, "out"))).toEqual([]);
    // `--out .` wrote `..partial` into the working folder.
    expect((await readdir(ROOT)).sort()).toEqual(before);
  });

  it("refuses /proc/nope/x.jsonl at once (a recursive mkdir looped forever there), and paths under a file", async () => {
    const { dir, spec } = await withSpec();
    const started = Date.now();
    for (const [out, said] of [
      ["/proc/nope/x.jsonl", /the folder \/proc\/nope does not exist and cannot be made in \/proc/],
      [join(spec, "x.jsonl"), /s\.json is a file, not a folder/],
      ["/dev/null/x.jsonl", /\/dev\/null is a file, not a folder/],
    ] as const) {
      const run = await rehearse("simulate", "--spec", spec, "--out", out, "--rows", "1");
      expect(run.code, out).toBe(2);
      expect(run.stderr).toMatch(said);
      expect(run.stderr).not.toMatch(STACK_LINE);
    }
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await readdir(dir)).toEqual(["s.json"]);
  });

  it("refuses to start over an unfinished run: names the rows kept and the flags; --resume keeps them, --overwrite discards them", async () => {
    const { dir, spec } = await withSpec();
    const out = join(dir, "d.jsonl");
    const controller = new AbortController();
    await expect(
      simulate(spec, {
        rows: 16,
        out,
        signal: controller.signal,
        onProgress: (done) => done === 5 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    const partial = await readFile(`${out}.partial`, "utf8");
    const rows = partial.split("\n").filter(Boolean).length;
    const again = await rehearse("simulate", "--spec", spec, "--out", out, "--rows", "16");
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `rehearse: simulate flags is invalid (1 problem):\n  ✖ --out: ${out}.partial holds ${rows} rows of an unfinished run: use --resume to continue from them, or --overwrite to discard them\n`,
    );
    expect(await readFile(`${out}.partial`, "utf8")).toBe(partial);
    // The sidecar lost too: --resume rebuilds it from the rows instead of dropping them.
    await rm(`${out}.partial.meta.json`);
    const resumed = await rehearse(
      "simulate",
      "--spec",
      spec,
      "--out",
      out,
      "--rows",
      "16",
      "--resume",
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(
      /warning {3}sidecar rebuilt: .*d\.jsonl\.partial had lost its sidecar/,
    );
    expect((await readFile(out, "utf8")).startsWith(partial)).toBe(true);
    // A complete file is not replaced unasked either.
    const complete = await readFile(out, "utf8");
    const over = await rehearse("simulate", "--spec", spec, "--out", out, "--rows", "3");
    expect(over.code).toBe(2);
    expect(over.stderr).toMatch(
      /d\.jsonl already exists \(16 rows\): use --overwrite to replace it/,
    );
    expect(await readFile(out, "utf8")).toBe(complete);
    const replaced = await rehearse(
      "simulate",
      "--spec",
      spec,
      "--out",
      out,
      "--rows",
      "3",
      "--overwrite",
    );
    expect(replaced.code).toBe(0);
    expect((await readFile(out, "utf8")).split("\n").filter(Boolean)).toHaveLength(3);
  });
});

describe("rehearse grade --out and schemas --out", () => {
  it("refuses an output grade reads or cannot write, before grading, with one line and exit 2", async () => {
    const dir = await tmp();
    const data = join(dir, "d.jsonl");
    await simulate(RETAIL, { rows: 2, out: data });
    const before = await readFile(data, "utf8");
    for (const [out, said] of [
      [data, /d\.jsonl is read by this command/],
      [`${data}.meta.json`, /d\.jsonl\.meta\.json is read by this command/],
      [join(ROOT, "examples/grader.ts"), /grader\.ts is read by this command/],
      [join(data, "g.jsonl"), /d\.jsonl is a file, not a folder/],
      ["/proc/nope/g.jsonl", /cannot be made in \/proc/],
      // An unwritable folder (root may write anywhere, but not into /sys): an unhandled 'error' event.
      ["/sys/g.jsonl", /the folder \/sys takes no new files: permission denied \(EACCES\)/],
      [dir, /is a folder; expected a file/],
    ] as const) {
      const run = await rehearse("grade", data, "--grader", "examples/grader.ts", "--out", out);
      expect(run.code, out).toBe(2);
      expect(run.stderr).toMatch(said);
      expect(run.stderr.trim().split("\n"), out).toHaveLength(2);
    }
    expect(await readFile(data, "utf8")).toBe(before);
    expect((await readdir(dir)).sort()).toEqual(["d.jsonl", "d.jsonl.meta.json"]);
  });

  it("schemas: refuses a file as its folder (exit 2); a write failing on the way is one line, exit 1, no stack", async () => {
    const dir = await tmp();
    await writeFile(join(dir, "file"), "x");
    const refused = await rehearse("schemas", "--out", join(dir, "file"));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /✖ --out: cannot write into .*file: .*file is a file, not a folder/,
    );
    // A folder where a schema file goes: found only when that file is written.
    await mkdir(join(dir, "out/agent-spec.json/inside"), { recursive: true });
    const failed = await rehearse("schemas", "--out", join(dir, "out"));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toBe(
      `rehearse: cannot write ${join(dir, "out/agent-spec.json")}: it is a folder (EISDIR)\n`,
    );
    expect(await readdir(join(dir, "out/agent-spec.json"))).toEqual(["inside"]);
  });
});
