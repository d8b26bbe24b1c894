import { spawn } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, ROOT } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");

/**
 * Runs the real CLI with its standard output read by a reader that goes away, as `rehearse … |
 * head -c 100` does: after the first chunk, or at once (`when: "start"`, before anything is
 * written); resolves with the exit code and standard error.
 */
function withReaderLeaving(
  when: "first chunk" | "start",
  ...args: string[]
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(CLI[0], [...CLI.slice(1), ...args], { cwd: ROOT });
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  if (when === "start") child.stdout.destroy();
  else child.stdout.once("data", () => child.stdout.destroy());
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("rehearse with a reader that closes the pipe early", () => {
  it("stops writing quietly instead of dying on EPIPE with a stack trace", async () => {
    const { code, stderr } = await withReaderLeaving(
      "first chunk",
      "plan",
      "--spec",
      RETAIL,
      "--rows",
      "4000",
      "--json",
    );
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });

  it("still finishes the file it writes when the reader of its summary leaves", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "rehearse-pipe-")), "data.jsonl");
    const { code, stderr } = await withReaderLeaving(
      "start",
      "simulate",
      "--spec",
      RETAIL,
      "--rows",
      "200",
      "--out",
      out,
      "--json",
    );
    expect(stderr).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
    expect((await readFile(out, "utf8")).split("\n").length - 1).toBe(200);
  });
});
