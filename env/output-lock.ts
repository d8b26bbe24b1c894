import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { InputError } from "./util/errors.ts";

/** How often a run touches its lock, so that runs on other machines can tell it is alive. */
const TOUCH_MS = 5_000;
/** A lock untouched this long was left by a run that is gone (machines' clocks are taken to agree within it). */
const STALE_MS = 30_000;
/** How long a run that took over a stale lock waits before checking the lock is still its own. */
const SETTLE_MS = 100;

/** The tokens of the locks this process holds or is taking: a lock naming this process is alive only with one of these. */
const heldHere = new Set<string>();

/** Who holds a lock, as its file says. */
interface Holder {
  pid: number;
  host: string;
  started: string;
  /** Tells this taking of the lock from any other, by the same process too. */
  token: string;
}

/**
 * The lock a run holds on its output while it writes `<out>.partial`: one run at a time, so two
 * runs (or a retried pod beside one still alive) never append to one file. It is a file made
 * exclusively, naming the process and machine, and touched every few seconds. A lock whose process
 * is gone from this machine, or from another machine untouched for 30 s, is taken over.
 */
export class OutputLock {
  readonly path: string;
  readonly #touch: NodeJS.Timeout;
  readonly #token: string;

  private constructor(path: string, touch: NodeJS.Timeout, token: string) {
    this.path = path;
    this.#touch = touch;
    this.#token = token;
  }

  /**
   * Takes the lock at `path` for writing `out` (making its folder), or refuses, naming the run that
   * holds it; a failure of the file system is thrown as it came.
   */
  static async take(path: string, out: string): Promise<OutputLock> {
    const mine: Holder = {
      pid: process.pid,
      host: hostname(),
      started: new Date().toISOString(),
      token: randomUUID(),
    };
    await mkdir(dirname(path), { recursive: true });
    heldHere.add(mine.token);
    try {
      return await OutputLock.#take(path, out, mine);
    } catch (error) {
      heldHere.delete(mine.token);
      throw error;
    }
  }

  static async #take(path: string, out: string, mine: Holder): Promise<OutputLock> {
    for (let tookOver = false; ; ) {
      try {
        const file = await open(path, "wx");
        await file.writeFile(`${JSON.stringify(mine)}\n`);
        await file.close();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = await holderOf(path);
      if (held?.holder.token === mine.token) {
        // Two runs that both found a lock stale may each have removed it and made their own: the
        // one whose lock is there once both have settled holds it, and the other sees it alive.
        if (tookOver) {
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          if ((await holderOf(path))?.holder.token !== mine.token) continue;
        }
        const touch = setInterval(() => {
          const now = new Date();
          utimes(path, now, now).catch(() => {});
        }, TOUCH_MS);
        touch.unref();
        return new OutputLock(path, touch, mine.token);
      }
      if (held?.alive)
        throw new InputError("output", [
          {
            path: "out",
            message: `another run is writing ${out} (process ${held.holder.pid} on ${held.holder.host}, started ${held.holder.started}): wait for it to finish, or remove ${path} if that run is gone`,
          },
        ]);
      // Left by a run that is gone: taken over (another run taking it first is refused above next time round).
      await rm(path, { force: true });
      tookOver = true;
    }
  }

  /** Lets the lock go, removing the file only while it is still this run's. */
  async release(): Promise<void> {
    clearInterval(this.#touch);
    heldHere.delete(this.#token);
    if ((await holderOf(this.path))?.holder.token === this.#token)
      await rm(this.path, { force: true });
  }
}

/** Who holds the lock and whether that run is still alive; null when the lock is gone or unreadable. */
async function holderOf(path: string): Promise<{ holder: Holder; alive: boolean } | null> {
  let holder: Holder;
  let touched: number;
  try {
    holder = JSON.parse(await readFile(path, "utf8")) as Holder;
    touched = (await stat(path)).mtimeMs;
  } catch {
    // Half written by a run taking it this moment, or removed: a lock younger than a touch is alive.
    const age = await stat(path).then(
      (s) => Date.now() - s.mtimeMs,
      () => Number.POSITIVE_INFINITY,
    );
    return age < TOUCH_MS
      ? { holder: { pid: 0, host: "unknown", started: "just now", token: "" }, alive: true }
      : null;
  }
  const fresh = Date.now() - touched < STALE_MS;
  if (holder.host !== hostname()) return { holder, alive: fresh };
  // This process's own pid: alive only while it holds the lock (a restarted container has the
  // pid of the run before it). Another pid of this machine: while it runs and touches the lock.
  if (holder.pid === process.pid) return { holder, alive: heldHere.has(holder.token) };
  return { holder, alive: fresh && processAlive(holder.pid) };
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
