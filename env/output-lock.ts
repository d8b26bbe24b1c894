import { randomUUID } from "node:crypto";
import { mkdir, open, readFile, rm, stat, utimes } from "node:fs/promises";
import { hostname } from "node:os";
import { dirname } from "node:path";
import { InputError } from "./util/errors.ts";

/** How often a run touches its lock, so that runs on other machines can tell it is alive. */
const TOUCH_MS = 5_000;
/** A lock untouched this long was left by a run that is gone (machines' clocks are taken to agree within it). */
const STALE_MS = 30_000;
/** A takeover guard older than this was left by a run that died while taking a lock over. */
const GUARD_STALE_MS = 10_000;
/** How long a run waits for another's takeover before looking at the lock again. */
const GUARD_WAIT_MS = 50;

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
    for (;;) {
      try {
        const file = await open(path, "wx");
        await file.writeFile(`${JSON.stringify(mine)}\n`);
        await file.close();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      const held = await holderOf(path);
      if (held?.holder.token === mine.token) {
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
      // Left by a run that is gone: cleared, and taken next time round by whichever run makes it first.
      await clearStale(path);
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

/**
 * Removes a stale lock, one run at a time, judging it again under `<lock>.takeover` (made
 * exclusively): no lock can be made while the stale one is there, so the lock judged is the lock
 * removed. Without the guard, a run that judged the old lock stale could remove the lock another
 * run had just made in its place, and both would write.
 */
async function clearStale(path: string): Promise<void> {
  const guard = `${path}.takeover`;
  try {
    await (await open(guard, "wx")).close();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = await stat(guard).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > GUARD_STALE_MS) await rm(guard, { force: true });
    await new Promise((resolve) => setTimeout(resolve, GUARD_WAIT_MS));
    return;
  }
  try {
    const now = await holderOf(path);
    if (!now?.alive) await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
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
