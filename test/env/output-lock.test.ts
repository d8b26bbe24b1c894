import { execFile, spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { simulate } from "../../index.ts";

const RETAIL = "examples/retail-orders.json";
const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe("one run at a time on an output", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rehearse-lock-"));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("refuses a second run on the same --out while the first writes, and the first's file is whole", async () => {
    const out = join(dir, "same.jsonl");
    const runs = await Promise.allSettled([
      simulate(RETAIL, { rows: 60, seed: 3, out }),
      simulate(RETAIL, { rows: 60, seed: 3, out }),
    ]);
    const refused = runs.filter((run) => run.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(String((refused[0] as PromiseRejectedResult).reason)).toMatch(
      /out: another run is writing .*same\.jsonl \(process \d+ on .+\): wait for it to finish, or remove .*same\.jsonl\.lock/,
    );
    const ids = (await readFile(out, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line).id);
    expect(ids).toHaveLength(60);
    expect(new Set(ids).size).toBe(60);
    expect(await exists(`${out}.lock`)).toBe(false);
    // A resume beside a live run is refused the same way.
    const again = simulate(RETAIL, { rows: 1500, seed: 3, out: join(dir, "again.jsonl") });
    for (let tries = 0; !(await exists(join(dir, "again.jsonl.partial"))); tries++) {
      expect(tries).toBeLessThan(500);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await expect(
      simulate(RETAIL, { rows: 1500, seed: 3, out: join(dir, "again.jsonl"), resume: true }),
    ).rejects.toThrow(/another run is writing/);
    await again;
  });

  it("takes over a lock left by a run that is gone: a process of this machine that ended, or another machine's lock untouched for 30 s", async () => {
    const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const dead = join(dir, "dead.jsonl");
    await writeFile(
      `${dead}.lock`,
      JSON.stringify({ pid: Number(gone.stdout), host: hostname(), started: "earlier" }),
    );
    expect((await simulate(RETAIL, { rows: 4, out: dead })).size).toBe(4);
    expect(await exists(`${dead}.lock`)).toBe(false);

    const elsewhere = join(dir, "elsewhere.jsonl");
    const lock = `${elsewhere}.lock`;
    await writeFile(lock, JSON.stringify({ pid: 1, host: "another-machine", started: "earlier" }));
    await expect(simulate(RETAIL, { rows: 4, out: elsewhere })).rejects.toThrow(
      /process 1 on another-machine/,
    );
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    expect((await simulate(RETAIL, { rows: 4, out: elsewhere })).size).toBe(4);
  });

  it("takes over a lock naming this very process that it does not hold (a restarted container reuses its pid)", async () => {
    const restarted = join(dir, "restarted.jsonl");
    await writeFile(
      `${restarted}.lock`,
      JSON.stringify({
        pid: process.pid,
        host: hostname(),
        started: "before the restart",
        token: "t",
      }),
    );
    expect((await simulate(RETAIL, { rows: 4, out: restarted })).size).toBe(4);
  });

  it("gives a stale lock to one run when several take it over at once", async () => {
    const lock = join(dir, "contended.jsonl.lock");
    await writeFile(
      lock,
      JSON.stringify({ pid: 1, host: "gone-machine", started: "earlier", token: "t" }),
    );
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    const taker = new URL("../support/take-lock.ts", import.meta.url).pathname;
    const outcomes = await Promise.all(
      Array.from({ length: 4 }, () =>
        promisify(execFile)(process.execPath, ["--import", "tsx", taker, lock]).then(
          (r) => r.stdout,
        ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === "held")).toHaveLength(1);
  }, 30_000);
});
