import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutputLock } from "../../env/output-lock.ts";
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
    // Long enough that the first run is still writing when the second looks, on a fast machine too.
    const runs = await Promise.allSettled([
      simulate(RETAIL, { rows: 600, seed: 3, out }),
      simulate(RETAIL, { rows: 600, seed: 3, out }),
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
    expect(ids).toHaveLength(600);
    expect(new Set(ids).size).toBe(600);
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

  it("clears a stale lock only under its takeover guard, and a guard left by a run that died is cleared", async () => {
    const lock = join(dir, "guarded.jsonl.lock");
    const stale = JSON.stringify({ pid: 1, host: "gone-machine", started: "earlier", token: "t" });
    await writeFile(lock, stale);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lock, longAgo, longAgo);
    // Another run is taking the lock over: this one waits instead of removing what it judged stale.
    await writeFile(`${lock}.takeover`, "");
    let taken: OutputLock | null = null;
    const taking = OutputLock.take(lock, "guarded.jsonl").then((got) => {
      taken = got;
      return got;
    });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(taken).toBeNull();
    expect(await readFile(lock, "utf8")).toBe(stale);
    await rm(`${lock}.takeover`);
    const got = await taking;
    expect(JSON.parse(await readFile(lock, "utf8")).pid).toBe(process.pid);
    await got.release();
    expect(await exists(`${lock}.takeover`)).toBe(false);

    await writeFile(lock, stale);
    await utimes(lock, longAgo, longAgo);
    await writeFile(`${lock}.takeover`, "");
    await utimes(`${lock}.takeover`, longAgo, longAgo);
    await (await OutputLock.take(lock, "guarded.jsonl")).release();
    expect(await exists(lock)).toBe(false);
  });

  it("gives a stale lock to one run when several take it over at once", async () => {
    const taker = new URL("../support/take-lock.ts", import.meta.url).pathname;
    for (let round = 0; round < 2; round++) {
      const lock = join(dir, `contended-${round}.jsonl.lock`);
      await writeFile(
        lock,
        JSON.stringify({ pid: 1, host: "gone-machine", started: "earlier", token: "t" }),
      );
      const longAgo = new Date(Date.now() - 60_000);
      await utimes(lock, longAgo, longAgo);
      // Each holder keeps the lock until every taker has said what it got.
      const takers = Array.from({ length: 5 }, () =>
        spawn(process.execPath, ["--import", "tsx", taker, lock], {
          stdio: ["pipe", "pipe", "inherit"],
        }),
      );
      const outcomes = await Promise.all(
        takers.map(
          (child) =>
            new Promise<string>((resolve) => child.stdout.once("data", (d) => resolve(String(d)))),
        ),
      );
      await Promise.all(
        takers.map((child) => {
          child.stdin.end();
          return once(child, "exit");
        }),
      );
      expect(
        outcomes.filter((outcome) => outcome === "held"),
        outcomes.join(" "),
      ).toHaveLength(1);
      expect(outcomes.filter((outcome) => outcome === "refused")).toHaveLength(4);
    }
  }, 60_000);
});
