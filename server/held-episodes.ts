import { Worker } from "node:worker_threads";
import { InputError, messageOf, threadModule } from "../env/index.ts";
import type { FreezeRequest, FreezeResult } from "../spec/index.ts";
import { settle } from "./engine.ts";
import {
  HELD_READY,
  type HeldAnswer,
  type HeldMessage,
  type HeldThreadSetup,
} from "./held-protocol.ts";

/** How long a closing server lets a freeze under way finish writing. */
const CLOSE_GRACE_MS = 10_000;
/** How long a finished episode's row may wait on the main thread to go to the held-episodes thread with others. */
const SEND_EVERY_MS = 50;

/** An ask of the held-episodes thread, before its number is given. */
type Ask = { kind: "report"; conversations?: number } | { kind: "freeze"; request: FreezeRequest };

/**
 * The main thread's side of the held-episodes thread (`held-thread.ts`): finished episodes go to
 * it as JSON lines, and `GET /report` and `POST /v1/freeze` are asked of it. One port carries both
 * in order, so a freeze asked after an episode's last reply went out holds that episode. A thread
 * that stops fails what it owed, and the server says it is unhealthy, with the episodes lost.
 */
export class HeldEpisodes {
  readonly #worker: Worker;
  readonly #asked = new Map<number, (answer: HeldAnswer) => void>();
  #nextAsk = 0;
  /** Why the thread stopped, once it has. */
  #stopped: string | null = null;
  /** Episodes finished since the thread stopped: nowhere to keep them. */
  #lost = 0;
  /** Called once no ask waits (a close waiting for a freeze under way). */
  #idle: (() => void) | null = null;
  /** Rows finished since the last were sent to the thread, and the timer that sends them. */
  #unsent: string[] = [];
  #sendTimer: NodeJS.Timeout | undefined;

  private constructor(worker: Worker) {
    this.#worker = worker;
    worker.on("message", (answer: HeldAnswer | typeof HELD_READY) => {
      if (answer === HELD_READY) return;
      const waiting = this.#asked.get(answer.ask);
      this.#asked.delete(answer.ask);
      waiting?.(answer);
      if (this.#asked.size === 0) {
        worker.unref();
        this.#idle?.();
      }
    });
    worker.on("error", (error) => this.#lose(error.message));
    worker.on("exit", (code) => this.#lose(`exited with code ${code}`));
    // Held only while an ask waits. After the listeners: adding one to a worker let go takes it back.
    worker.unref();
  }

  /** Starts the thread and resolves once it holds episodes; one that cannot start fails with its reason. */
  static async start(setup: HeldThreadSetup): Promise<HeldEpisodes> {
    const module = await threadModule(
      import.meta.url,
      new URL("./held-thread.js", import.meta.url),
      new URL("./held-thread.ts", import.meta.url),
    );
    const worker = new Worker(module, { workerData: setup });
    let failed: (why: string) => void = () => {};
    const onError = (error: Error) => failed(error.message);
    const onExit = (code: number) => failed(`exited with code ${code}`);
    try {
      await new Promise<void>((resolve, reject) => {
        failed = (why) => reject(new Error(why));
        worker.once("message", (message) =>
          message === HELD_READY ? resolve() : failed(`it first sent ${JSON.stringify(message)}`),
        );
        worker.on("error", onError).on("exit", onExit);
      });
    } catch (error) {
      await worker.terminate();
      throw new Error(`the held-episodes thread could not start: ${messageOf(error)}`);
    } finally {
      worker.off("error", onError).off("exit", onExit);
    }
    return new HeldEpisodes(worker);
  }

  /**
   * Holds a finished episode's row, written as its JSON line, for the next freeze. Rows go to the
   * thread together, once every {@link SEND_EVERY_MS}: waking it for each one cost the server 7% of
   * its CPU a frame at 64 sessions, on a machine whose two cores its clients share.
   */
  addLine(line: string): void {
    if (this.#stopped !== null) {
      this.#lost++;
      return;
    }
    this.#unsent.push(line);
    if (this.#unsent.length === 1) {
      this.#sendTimer = setTimeout(() => this.#send(), SEND_EVERY_MS);
      this.#sendTimer.unref();
    }
  }

  /** Sends the rows waiting; before any ask, so that a freeze holds every episode finished before it. */
  #send(): void {
    clearTimeout(this.#sendTimer);
    if (this.#unsent.length === 0) return;
    const lines = this.#unsent;
    this.#unsent = [];
    if (this.#stopped !== null) this.#lost += lines.length;
    else this.#worker.postMessage({ kind: "add", lines } satisfies HeldMessage);
  }

  /** The page of the held episodes, listing at most `conversations` of them (2,000 by default). */
  async report(conversations?: number): Promise<string> {
    const answer = await this.#ask({
      kind: "report",
      ...(conversations === undefined ? {} : { conversations }),
    });
    if ("page" in answer) return answer.page;
    throw failure(answer);
  }

  /** Writes the held episodes as a dataset (`POST /v1/freeze`); a request refused throws an {@link InputError}. */
  async freeze(request: FreezeRequest): Promise<FreezeResult> {
    const answer = await this.#ask({ kind: "freeze", request });
    if ("frozen" in answer) return answer.frozen;
    throw failure(answer);
  }

  /** Why the thread cannot hold episodes any more, or null while it runs. */
  get unhealthy(): string | null {
    if (this.#stopped === null) return null;
    return `the held-episodes thread stopped (${this.#stopped}): the episodes it held are lost, and ${this.#lost} finished since were not kept; restart the server`;
  }

  /** Resolves once no freeze or page is under way, or after `graceMs`, whichever is first. */
  async settle(graceMs = CLOSE_GRACE_MS): Promise<void> {
    if (this.#asked.size === 0 || this.#stopped !== null) return;
    await settle(
      new Promise<void>((resolve) => {
        this.#idle = resolve;
      }),
      graceMs,
    );
  }

  /** Lets a freeze or page under way finish (for at most `graceMs`), then stops the thread; what it still owed fails. */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    await this.settle(graceMs);
    if (this.#asked.size > 0 && this.#stopped === null)
      process.emitWarning(
        `the server closed with ${this.#asked.size} freeze or report requests still under way after ${graceMs} ms: they were cut, and the episodes a cut freeze had taken are lost`,
        { code: "REHEARSE_HELD_THREAD" },
      );
    this.#stop("the server is closing");
    await this.#worker.terminate();
  }

  #ask(ask: Ask): Promise<HeldAnswer> {
    this.#send();
    if (this.#stopped !== null)
      return Promise.reject(new Error(`the held-episodes thread stopped (${this.#stopped})`));
    const number = this.#nextAsk++;
    if (this.#asked.size === 0) this.#worker.ref();
    return new Promise((resolve) => {
      this.#asked.set(number, resolve);
      this.#worker.postMessage({ ...ask, ask: number } satisfies HeldMessage);
    });
  }

  /** The thread stopped by itself: said as a warning, and the server is unhealthy from now on. */
  #lose(why: string): void {
    if (this.#stopped !== null) return;
    process.emitWarning(
      `the held-episodes thread stopped (${why}): the episodes it held are lost, and those finished from now on are not kept`,
      { code: "REHEARSE_HELD_THREAD" },
    );
    this.#stop(why);
  }

  #stop(why: string): void {
    this.#stopped ??= why;
    clearTimeout(this.#sendTimer);
    this.#lost += this.#unsent.length;
    this.#unsent = [];
    for (const [ask, waiting] of this.#asked)
      waiting({ ask, error: `the held-episodes thread stopped (${this.#stopped})` });
    this.#asked.clear();
    this.#idle?.();
  }
}

/** The error a failed answer stands for: the input refused, as the server answers it (409), or what went wrong. */
function failure(answer: HeldAnswer): Error {
  if (!("error" in answer)) return new Error("the held-episodes thread answered out of turn");
  return answer.refused
    ? new InputError(answer.refused.what, answer.refused.issues)
    : new Error(answer.error);
}
