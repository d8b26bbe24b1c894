import { spawn } from "node:child_process";
import { mkdtemp, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, ROOT, rehearse, rehearseProcess } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");
/** Enough rows that a run stopped once its file holds 100 is far from done (rows are written as they finish). */
const ROWS = "600";

/** Lines in a file, 0 while it does not exist. */
async function lines(path: string): Promise<number> {
  const size = await stat(path).then(
    (s) => s.size,
    () => 0,
  );
  if (size === 0) return 0;
  return (await readFile(path, "utf8")).split("\n").length - 1;
}

/** Starts a run and stops it with `signal` once its partial file holds at least `atLeast` rows. */
async function interrupt(
  out: string,
  signal: NodeJS.Signals,
  atLeast: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(
    CLI[0],
    [...CLI.slice(1), "simulate", "--spec", RETAIL, "--rows", ROWS, "--out", out],
    { cwd: ROOT },
  );
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, sig) => resolve({ code, signal: sig })),
  );
  for (;;) {
    if ((await lines(`${out}.partial`)) >= atLeast) break;
    if (child.exitCode !== null)
      throw new Error(`the run ended before it could be interrupted: ${stderr}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  child.kill(signal);
  return { ...(await exited), stderr };
}

describe("rehearse simulate", () => {
  it("writes the rows and prints the run's figures", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-sim-")), "data.jsonl");
    const result = await rehearse("simulate", "--spec", RETAIL, "--rows", "64", "--out", out);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/wrote {5}64 rows to .*data\.jsonl/);
    expect(result.stdout).toMatch(/coverage {2}345 \/ 381 pairs = 0\.906/);
    expect(await lines(out)).toBe(64);
    const json = await rehearse(
      "simulate",
      "--spec",
      RETAIL,
      "--rows",
      "8",
      "--out",
      out,
      "--overwrite",
      "--json",
    );
    expect(JSON.parse(json.stdout)).toMatchObject({
      rows: 8,
      coverage: { pairwise: { pairs_planned: 381 } },
    });
  });

  it("killed halfway, keeps the finished rows intact; --resume completes the file without duplicates", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-cli-kill-"));
    const full = join(dir, "full.jsonl");
    const cut = join(dir, "cut.jsonl");
    // The reference run needs no signal, so it runs in process; the killed and resumed ones are real.
    expect((await rehearse("simulate", "--spec", RETAIL, "--rows", ROWS, "--out", full)).code).toBe(
      0,
    );
    const killed = await interrupt(cut, "SIGKILL", 100);
    expect(killed.signal).toBe("SIGKILL");
    const partial = (await readFile(`${cut}.partial`, "utf8")).split("\n");
    const whole = partial.slice(0, -1);
    expect(whole.length).toBeGreaterThanOrEqual(100);
    expect(whole.length).toBeLessThan(Number(ROWS));
    const reference = (await readFile(full, "utf8")).split("\n");
    expect(whole).toEqual(reference.slice(0, whole.length));
    const resumed = await rehearseProcess(
      "simulate",
      "--spec",
      RETAIL,
      "--rows",
      ROWS,
      "--out",
      cut,
      "--resume",
    );
    expect(resumed.code).toBe(0);
    expect(await readFile(cut, "utf8")).toBe(await readFile(full, "utf8"));
    await expect(stat(`${cut}.partial`)).rejects.toThrow();
  });

  it("stops cleanly on Ctrl-C, saying where the rows are and how to continue", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-cli-int-")), "data.jsonl");
    const stopped = await interrupt(out, "SIGINT", 50);
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toMatch(
      /interrupted after \d+ rows; they are in .*data\.jsonl\.partial, and --resume continues from them/,
    );
    expect((await readFile(`${out}.partial`, "utf8")).endsWith("\n")).toBe(true);
  });
});
