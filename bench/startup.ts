/**
 * `npm run bench -- startup`: how long `rehearse --version` and `--help` take to start, built
 * (`npm run build`) and from the TypeScript sources through tsx, as a ratio to `node -e 0` measured
 * in the same run (goal: the built CLI within 3×), and how many files each loads.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBuiltCli } from "./built-cli.ts";
import { median } from "./stats.ts";

const ROOT = join(import.meta.dirname, "..");

/** A module hook that appends every URL node loads to the file named by REHEARSE_LOADS. */
const RECORD = `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.REHEARSE_LOADS, url + "\\n");
  return next(url, context);
}`;

/** The `--import` flag that installs {@link RECORD} before the script runs. */
const RECORDING = `data:text/javascript,${encodeURIComponent(
  `import { register } from "node:module"; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(RECORD)}`)});`,
)}`;

/**
 * The URLs of the modules that `node <args>` loads, in order: node's own (`node:`), and files, the
 * project's and packages' (a CommonJS file's own require() calls pass no module hook on Node 20).
 * An operation count for start-up, unlike wall time the same on any machine.
 */
export async function modulesLoaded(args: readonly string[]): Promise<string[]> {
  const folder = await mkdtemp(join(tmpdir(), "rehearse-loads-"));
  try {
    const log = join(folder, "loads");
    await writeFile(log, "");
    const run = spawnSync(process.execPath, ["--import", RECORDING, ...args], {
      cwd: ROOT,
      env: { ...process.env, REHEARSE_LOADS: log },
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${run.stderr}`);
    return (await readFile(log, "utf8")).split("\n").filter((url) => url !== "");
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Milliseconds `node <args>` takes from spawn to exit. */
function millis(args: readonly string[]): number {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, args, { cwd: ROOT, stdio: "ignore" });
  if (run.status !== 0) throw new Error(`node ${args.join(" ")} exited ${run.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Builds the CLI into a temporary folder and prints its start-up beside tsx's and `node -e 0`'s. */
export async function run(): Promise<void> {
  await withBuiltCli(async (entry) => {
    const tsx = ["--import", "tsx", join(ROOT, "bin/rehearse.ts")];
    const cases: [string, string[]][] = [
      ["node -e 0", ["-e", "0"]],
      ["built rehearse --version", [entry, "--version"]],
      ["built rehearse --help", [entry, "--help"]],
      ["tsx rehearse --version", [...tsx, "--version"]],
      ["tsx rehearse --help", [...tsx, "--help"]],
    ];
    const runs = 11;
    const times = new Map(cases.map(([name]) => [name, [] as number[]]));
    // Interleaved, so that a busy moment of the machine falls on every case alike.
    for (let i = 0; i < runs; i++)
      for (const [name, args] of cases) times.get(name)?.push(millis(args));
    const base = median(times.get("node -e 0") as number[]);
    process.stdout.write(
      `\nCLI start-up, median of ${runs} runs (goal: built within 3× node -e 0)\n`,
    );
    process.stdout.write(
      "| command | ms | × node -e 0 | files loaded |\n| --- | --- | --- | --- |\n",
    );
    for (const [name, args] of cases) {
      const ms = median(times.get(name) as number[]);
      const files = (await modulesLoaded(args)).filter((url) => url.startsWith("file:")).length;
      process.stdout.write(
        `| ${name} | ${ms.toFixed(0)} | ${(ms / base).toFixed(2)} | ${files} |\n`,
      );
    }
  });
}
