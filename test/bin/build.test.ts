import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modulesLoaded } from "../../bench/startup.ts";
import { type BuiltCli, build } from "../../scripts/build.ts";
import { type CliRun, ROOT, rehearse, rehearseProcess } from "../support/cli.ts";

let folder: string;
let built: BuiltCli;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-build-"));
  // The bundle leaves its dependencies in node_modules, found from the folder it lies in.
  await symlink(join(ROOT, "node_modules"), join(folder, "node_modules"), "dir");
  built = await build(join(folder, "dist"));
}, 120_000);

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** Runs `file args…` (the built CLI through node by default) from the project's root. */
async function run(args: string[], file = process.execPath): Promise<CliRun> {
  const argv = file === process.execPath ? [built.entry, ...args] : args;
  try {
    const { stdout, stderr } = await promisify(execFile)(file, argv, { cwd: ROOT });
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const e = error as CliRun;
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/** Every file under a folder, relative to it, with its bytes. */
async function tree(root: string): Promise<Map<string, string>> {
  const files = await readdir(root, { recursive: true, withFileTypes: true });
  const entries = files
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  return new Map(
    await Promise.all(
      entries
        .sort()
        .map(async (path) => [relative(root, path), await readFile(path, "utf8")] as const),
    ),
  );
}

describe("the built CLI (npm run build)", () => {
  it("runs as a script with a node shebang and prints the version", async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, "package.json"), "utf8"));
    expect(pkg.bin).toEqual({ rehearse: "dist/rehearse.js" });
    expect(await readFile(built.entry, "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect((await stat(built.entry)).mode & 0o111).toBe(0o111);
    const direct = await run(["--version"], built.entry);
    expect(direct).toEqual({ stdout: `${pkg.version}\n`, stderr: "", code: 0 });
  });

  it("prints the help, and a command's, exactly as the sources do", async () => {
    for (const args of [["--help"], ["simulate", "--help"], ["help", "export"]]) {
      const source = await rehearse(...args);
      expect(source.code).toBe(0);
      expect(await run(args), args.join(" ")).toEqual(source);
    }
  });

  it("plans, simulates and grades byte for byte as the tsx CLI does", async () => {
    const plan = ["plan", "--spec", "examples/retail-orders.json", "--json"];
    const planned = await run(plan);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toBe((await rehearse(...plan)).stdout);

    const simulate = (out: string) => [
      "simulate",
      ...["--spec", "examples/it-helpdesk.json", "--rows", "24", "--seed", "5"],
      ...["--rollouts", "2", "--out", out],
    ];
    const ours = join(folder, "built.jsonl");
    const theirs = join(folder, "source.jsonl");
    // Built, two worker threads play the episodes from the bundle's worker.js; the tsx run plays
    // them on its one thread (24 rows are too few for workers by default). The server's engine
    // threads and its held-episodes thread are built beside it.
    expect([...built.workers].sort()).toEqual([
      "env/workers/worker.ts",
      "server/engine-thread.ts",
      "server/held-thread.ts",
    ]);
    const simulated = await run([...simulate(ours), "--workers", "2"]);
    expect(simulated.stderr).toBe("");
    expect(simulated.code).toBe(0);
    expect((await rehearseProcess(...simulate(theirs))).code).toBe(0);
    for (const suffix of ["", ".meta.json"])
      expect(await readFile(ours + suffix, "utf8")).toBe(await readFile(theirs + suffix, "utf8"));

    // A TypeScript grader, which Node 20 cannot import by itself, loads through tsx.
    const grade = (data: string) => ["grade", data, "--grader", "examples/grader.ts", "--json"];
    const graded = await run(grade(ours));
    expect(graded.code).toBe(0);
    // The tsx CLI in a process of its own: a custom grader's hash is its source as transpiled,
    // and vitest transpiles the grader another way.
    expect((await rehearseProcess(...grade(theirs))).code).toBe(0);
    const gradedRows = (data: string) =>
      readFile(data.replace(/\.jsonl$/, ".graded.jsonl"), "utf8");
    expect(await gradedRows(ours)).toBe(await gradedRows(theirs));
  });

  it("loads a TypeScript grader from outside an ES module package, whichever way it exports", async () => {
    // Outside a `"type": "module"` package tsx compiles a .ts file to CommonJS: Node's import then
    // gives its exports object as the default, where the grader function lies one level down.
    const data = join(folder, "commonjs.jsonl");
    const simulateArgs = ["--spec", "examples/retail-orders.json", "--rows", "2", "--out", data];
    expect((await run(["simulate", ...simulateArgs])).code).toBe(0);
    const graders = {
      "default.ts":
        "export default function grade(): { reward: number; reason: string } {\n  return { reward: 0.25, reason: 'default' };\n}\n",
      "named.ts":
        "export function grade(): { reward: number; reason: string } {\n  return { reward: 0.75, reason: 'named' };\n}\n",
    };
    for (const [file, source] of Object.entries(graders)) {
      const grader = join(folder, "graders", file);
      await mkdir(dirname(grader), { recursive: true });
      await writeFile(grader, source);
      const graded = await run(["grade", data, "--grader", grader, "--out", `${grader}.jsonl`]);
      expect(graded.stderr).toBe("");
      expect(graded.code).toBe(0);
      const rows = (await readFile(`${grader}.jsonl`, "utf8")).trim().split("\n");
      for (const line of rows) expect(JSON.parse(line).reason).toBe(file.replace(".ts", ""));
    }
  });

  it("exports a verifiers environment with the Python module it reads beside its source", async () => {
    expect(built.assets).toContain("exporters/environment/environment.py");
    const data = join(folder, "env.jsonl");
    const args = ["--spec", "examples/retail-orders.json", "--rows", "16", "--rollouts", "4"];
    expect((await rehearse("simulate", ...args, "--out", data)).code).toBe(0);
    expect((await rehearse("grade", data, "--grader", "examples/grader.ts")).code).toBe(0);
    const graded = join(folder, "env.graded.jsonl");
    const exported = await run([
      "export",
      "env",
      "--in",
      graded,
      "--out",
      join(folder, "pkg-built"),
    ]);
    expect(exported.stderr).toBe("");
    expect(exported.code).toBe(0);
    expect(
      (await rehearse("export", "env", "--in", graded, "--out", join(folder, "pkg-source"))).code,
    ).toBe(0);
    const ours = await tree(join(folder, "pkg-built"));
    expect(ours).toEqual(await tree(join(folder, "pkg-source")));
    // Filled in from the template the export reads beside its source.
    expect(ours.get("retail_orders.py")).toContain("def load_environment(");
  });

  it("starts --version and --help without loading any engine module or package but commander", async () => {
    const engine = /^(spec|env|exporters|server)\//;
    /** The bundle's files and the packages a run loads, and the sources those files hold. */
    const loaded = async (args: string[]) => {
      const urls = (await modulesLoaded([built.entry, ...args])).filter((url) =>
        url.startsWith("file:"),
      );
      const files = urls
        .filter((url) => url.includes("/dist/"))
        .map((url) => new URL(url).pathname);
      const packages = new Set(
        urls.flatMap((url) => url.match(/\/node_modules\/((?:@[^/]+\/)?[^/]+)\//)?.[1] ?? []),
      );
      return { files, packages, sources: files.flatMap((file) => built.sources.get(file) ?? []) };
    };
    for (const flag of ["--version", "--help"]) {
      const { files, packages, sources } = await loaded([flag]);
      expect(files[0]).toBe(built.entry);
      expect(
        sources.filter((source) => engine.test(source)),
        flag,
      ).toEqual([]);
      expect([...packages], flag).toEqual(["commander"]);
    }
    // The same count sees the engine when a command runs.
    const plan = await loaded(["plan", "--help"]);
    expect(plan.sources).toContain("env/index.ts");
    expect(plan.packages).toContain("zod");
  });
});

describe("the build (scripts/build.ts)", () => {
  /** A small project on disk: path → source. */
  async function plant(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(join(folder, "planted-"));
    for (const [path, source] of Object.entries(files)) {
      await mkdir(join(root, dirname(path)), { recursive: true });
      await writeFile(join(root, path), source);
    }
    return root;
  }

  it("copies the files modules locate beside themselves and builds the worker modules they start", async () => {
    const root = await plant({
      "bin/rehearse.ts": 'import { words } from "../lib/read.ts";\nconsole.log(words());\n',
      "lib/read.ts":
        'import { readFileSync } from "node:fs";\nimport { Worker } from "node:worker_threads";\n' +
        'export const words = () => readFileSync(new URL("./words.txt", import.meta.url), "utf8");\n' +
        'export const start = () => new Worker(new URL("./work.js", import.meta.url));\n',
      "lib/words.txt": "beside the chunks\n",
      "lib/work.ts": 'import { words } from "./read.ts";\nconsole.log(words());\n',
    });
    const out = join(root, "out");
    const planted = await build(out, root);
    expect(planted.workers).toEqual(["lib/work.ts"]);
    expect(planted.assets).toEqual(["lib/words.txt"]);
    for (const script of [planted.entry, join(out, "work.js")]) {
      const { stdout } = await promisify(execFile)(process.execPath, [script]);
      expect(stdout).toBe("beside the chunks\n\n");
    }
  });

  it("refuses import.meta.dirname in a bundled module, and a located file that does not exist", async () => {
    const dirnameUse = await plant({
      "bin/rehearse.ts": 'import { here } from "../lib/here.ts";\nconsole.log(here);\n',
      "lib/here.ts": "export const here = import.meta.dirname;\n",
    });
    await expect(build(join(dirnameUse, "out"), dirnameUse)).rejects.toThrow(
      "lib/here.ts uses import.meta.dirname or .filename",
    );
    const missing = await plant({
      "bin/rehearse.ts": 'console.log(new URL("./gone.txt", import.meta.url).href);\n',
    });
    await expect(build(join(missing, "out"), missing)).rejects.toThrow(
      "bin/rehearse.ts locates gone.txt beside itself, and there is no such file",
    );
  });
});
