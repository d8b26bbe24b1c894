import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  type Dataset,
  firstPolicyIndex,
  PASS_THRESHOLD,
  simulate,
  splitOf,
} from "../../env/index.ts";
import grade from "../../examples/grader.ts";
import { exportEnvironment } from "../../exporters/index.ts";
import type { Row } from "../../spec/index.ts";
import { CLI, ROOT } from "../support/cli.ts";

const run = promisify(execFile);
/** Debian's Python, where .ci/run installs python3-websockets. */
const PYTHON = "/usr/bin/python3";
const STAND_IN = join(import.meta.dirname, "../python/verifiers_stand_in");
const SPEC = "examples/retail-orders.json";
const ROWS = 24;
const SEED = 5;

let folder: string;
let data: Dataset;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-env-"));
  data = await simulate(SPEC, {
    rows: ROWS,
    seed: SEED,
    rollouts: 4,
    out: join(folder, "data.jsonl"),
  });
  await data.grade({ grader: grade });
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

/** The pass rate of each situation, counted here from the rows. */
function passRates(rows: readonly Row[]): Map<string, number> {
  const counts = new Map<string, [number, number]>();
  for (const row of rows) {
    const [passed, graded] = counts.get(row.task_id) ?? [0, 0];
    counts.set(row.task_id, [passed + ((row.reward ?? 0) >= PASS_THRESHOLD ? 1 : 0), graded + 1]);
  }
  return new Map([...counts].map(([id, [passed, graded]]) => [id, passed / graded]));
}

const python = async (...args: string[]) =>
  (await run(PYTHON, args, { env: { ...process.env, PYTHONPATH: STAND_IN }, maxBuffer: 64 << 20 }))
    .stdout;

describe("exportEnvironment: a verifiers package", () => {
  it("lays the package out as verifiers environments are, and Python reads it", async () => {
    // In a folder that does not exist yet, made for it; the package's folder has the mode any new
    // folder gets (0755 under the usual umask), as its files do, not mkdtemp's private 0700.
    const out = join(folder, "envs", "retail-env");
    const exported = await exportEnvironment(data, out);
    const fresh = join(folder, "a-new-folder");
    await mkdir(fresh);
    expect((await stat(out)).mode & 0o777).toBe((await stat(fresh)).mode & 0o777);
    expect((await stat(out)).mode & 0o777).not.toBe(0o700);
    expect(exported.id).toBe("retail-orders");
    expect(exported.module).toBe("retail_orders");
    await python("-m", "py_compile", join(out, "retail_orders.py"));
    const toml = JSON.parse(
      await python(
        "-c",
        "import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))))",
        join(out, "pyproject.toml"),
      ),
    );
    expect(toml.project).toMatchObject({
      name: "retail-orders",
      version: "0.1.0",
      description: expect.stringContaining("rehearse"),
      "requires-python": ">=3.10",
    });
    expect(toml.project.tags).toContain("multi-turn");
    expect(toml.project.dependencies.some((dep: string) => dep.startsWith("verifiers"))).toBe(true);
    expect(toml["build-system"]).toEqual({
      requires: ["hatchling"],
      "build-backend": "hatchling.build",
    });
    expect(toml.tool.hatch.build.include).toContain("retail_orders.py");
    expect(toml.tool.verifiers.eval).toEqual({
      num_examples: expect.any(Number),
      rollouts_per_example: 4,
    });
    const readme = await readFile(join(out, "README.md"), "utf8");
    for (const section of [
      "### Overview",
      "### Datasets",
      "### Task",
      "### Quickstart",
      "### Environment Arguments",
      "### Metrics",
    ])
      expect(readme).toContain(section);
    expect(readme).toContain(`rehearse serve --spec spec.json --rows ${ROWS} --seed ${SEED}`);
    const spec = JSON.parse(await readFile(join(out, "spec.json"), "utf8"));
    expect(spec.world).toMatchObject({
      fault_rate: data.meta?.options.fault_rate,
      prefer_success: true,
      seed: SEED,
    });
    expect(Agent.from(spec).hash).toBeTypeOf("string");
  });

  it("keeps the situations whose graded pass rate lies in 20–80%, splits train/holdout, and says what it left out", async () => {
    const out = join(folder, "banded");
    const exported = await exportEnvironment(data, out, { name: "banded-env" });
    const rates = passRates(await data.rows());
    const expected = { train: 0, holdout: 0, below: 0, above: 0, eval: 0 };
    for (const [id, rate] of rates) {
      const split = splitOf({ id });
      if (split === "eval") expected.eval++;
      else if (rate < 0.2) expected.below++;
      else if (rate > 0.8) expected.above++;
      else expected[split]++;
    }
    expect(exported.tasks).toEqual({ train: expected.train, holdout: expected.holdout });
    expect(exported.left_out).toEqual({
      below_band: expected.below,
      above_band: expected.above,
      ungraded: 0,
      eval_split: expected.eval,
    });
    expect(expected.train).toBeGreaterThan(0);
    expect(expected.below + expected.above).toBeGreaterThan(0);
    const readme = await readFile(join(out, "README.md"), "utf8");
    expect(readme).toContain(
      `${expected.below} were left out as too hard (below), ${expected.above} as too easy (above)`,
    );

    const listed = JSON.parse(
      await python(
        "-c",
        "import importlib.util, json, sys\nspec = importlib.util.spec_from_file_location('m', sys.argv[1])\nm = importlib.util.module_from_spec(spec)\nspec.loader.exec_module(m)\nprint(json.dumps({k: [t['task_id'] for t in v] for k, v in m.TASKS.items()}))",
        join(out, "banded_env.py"),
      ),
    );
    for (const id of [...listed.train, ...listed.holdout]) {
      expect(rates.get(id)).toBeGreaterThanOrEqual(0.2);
      expect(rates.get(id)).toBeLessThanOrEqual(0.8);
    }
  });

  it("refuses what cannot make an environment, and replaces only its own folder", async () => {
    const ungraded = await simulate(SPEC, { rows: 6, seed: 1 });
    await expect(exportEnvironment(ungraded, join(folder, "none"))).rejects.toThrow(
      /no row is graded: the difficulty band needs graded rows/,
    );
    await expect(exportEnvironment(data, join(folder, "x"), { band: [0.3, 0.4] })).rejects.toThrow(
      /no situation is left for training/,
    );
    await expect(exportEnvironment(data, join(folder, "x"), { name: "Bad Name" })).rejects.toThrow(
      /name: expected lower-case letters/,
    );
    const mine = join(folder, "mine");
    await mkdir(mine);
    await writeFile(join(mine, "notes.txt"), "keep me");
    await expect(exportEnvironment(data, mine, { overwrite: true })).rejects.toThrow(
      /exists and is not an environment this exporter wrote/,
    );
    expect(await readFile(join(mine, "notes.txt"), "utf8")).toBe("keep me");
    const again = join(folder, "again");
    await exportEnvironment(data, again);
    await expect(exportEnvironment(data, again)).rejects.toThrow(
      /already holds an environment; pass overwrite: true/,
    );
    await exportEnvironment(data, again, { overwrite: true, band: null });
  });

  describe("its WebSocket client against `rehearse serve` on its spec.json (verifiers replaced by a named stand-in)", () => {
    const live = join(tmpdir(), `rehearse-env-live-${process.pid}`);
    let server: ChildProcess;
    let wsUrl: string;
    beforeAll(async () => {
      await exportEnvironment(data, live, { band: null, overwrite: true }).catch(async (error) => {
        await rm(live, { recursive: true, force: true });
        throw error;
      });
      // The command the package's README prints, as a user runs it.
      server = spawn(
        CLI[0],
        [
          ...CLI.slice(1),
          "serve",
          "--spec",
          join(live, "spec.json"),
          "--rows",
          String(ROWS),
          "--port",
          "0",
          "--step-rate",
          "100000",
        ],
        { cwd: ROOT },
      );
      wsUrl = await new Promise<string>((resolve, reject) => {
        let printed = "";
        server.stdout?.on("data", (chunk: Buffer) => {
          printed += chunk.toString();
          const url = printed.match(/WebSocket (ws:\/\/[^\s,)]+)/)?.[1];
          if (url) resolve(url);
        });
        server.on("exit", (code) =>
          reject(new Error(`rehearse serve exited with ${code}: ${printed}`)),
        );
      });
    });
    afterAll(async () => {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGINT");
      await exited;
      await rm(live, { recursive: true, force: true });
    });

    it("plays each task to the same conversation and reward as simulate()", async () => {
      const out = live;
      const rows = await data.rows();
      const firstOf = new Map<string, Row>();
      for (const row of rows) if (!firstOf.has(row.task_id)) firstOf.set(row.task_id, row);
      const turns = Object.fromEntries(
        [...firstOf].map(([id, row]) => [
          id,
          row.messages
            .slice(firstPolicyIndex(row))
            .filter((message) => message.role === "assistant"),
        ]),
      );
      await writeFile(join(folder, "turns.json"), JSON.stringify(turns));
      const played = JSON.parse(
        await python(
          join(import.meta.dirname, "../python/run_environment.py"),
          out,
          wsUrl,
          join(folder, "turns.json"),
          "train",
        ),
      ) as Record<string, { reward: number; completion: unknown[]; grade: { reward: number } }>;
      const ids = Object.keys(played);
      expect(ids.length).toBeGreaterThan(5);
      for (const id of ids) {
        const row = firstOf.get(id) as Row;
        const start = firstPolicyIndex(row);
        const opening = row.messages.findIndex(
          (message, at) => at >= start && message.role === "assistant",
        );
        expect(played[id]?.completion).toEqual(row.messages.slice(opening));
        const reward = row.episode.outcome?.reached && row.conduct.length === 0 ? 1 : 0;
        expect(played[id]?.reward).toBe(reward);
        expect(played[id]?.grade.reward).toBe(reward);
      }
      // Both outcomes occur, so the comparison is not of a constant.
      expect(new Set(ids.map((id) => played[id]?.reward))).toEqual(new Set([0, 1]));
    });
  });
});
