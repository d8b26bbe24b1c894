import { Worker } from "node:worker_threads";
import type { WebSocket } from "ws";
import { threadModule } from "../env/index.ts";
import {
  backlogLimit,
  holdReading,
  isHeld,
  pauseIfBacklogged,
  releaseAll,
  releaseReading,
} from "./backpressure.ts";
import { MAX_PENDING } from "./connection.ts";
import type { MetricsCounts } from "./metrics.ts";
import { decodeFrame } from "./protocol.ts";
import {
  append,
  type Batch,
  type EngineThreadSetup,
  type FromThread,
  type ThreadAnswer,
  type ThreadRequest,
  type ToThread,
} from "./thread-protocol.ts";

/** One engine thread, the frames waiting to go to it, and how many connections it serves. */
interface Thread {
  readonly worker: Worker;
  batch: Batch<ToThread>;
  connections: number;
  alive: boolean;
}

/** A client's socket on the main thread, and the engine thread that serves it. */
interface Relayed {
  readonly id: number;
  readonly socket: WebSocket;
  thread: Thread;
  /** Whether a frame has come yet: only the first may move the connection. */
  started: boolean;
  /** The bytes of each frame relayed and not yet answered, oldest first, and their sum. */
  unanswered: number[];
  unansweredBytes: number;
}

/**
 * Frames a connection may have relayed to its thread and not yet answered before the main thread
 * stops reading it: twice what the thread lets wait (past which it answers RATE_LIMITED), so a
 * burst still meets that limit while a flood waits in the network instead of in the thread's queue.
 */
const MAX_UNANSWERED = 2 * MAX_PENDING;

/** The bytes of unanswered frames past which a connection is not read: 8 MiB, or two frames at the limit. */
function unansweredBytesLimit(maxFrameBytes: number): number {
  return Math.max(8 << 20, 2 * maxFrameBytes);
}

/** How long a thread may take to answer a question, beyond the work it was asked to wait for. */
const ANSWER_MS = 5_000;

/**
 * The main thread's side of a server on engine threads: each connection is pinned to the thread
 * serving the fewest, its frames relayed there in one message per turn of the event loop and its
 * replies sent as they come back. A connection that opens with a `resume` of a session another
 * thread holds moves to that thread first (the threads tell which sessions they hold). Finished
 * episodes' rows come back as JSON lines for `POST /v1/freeze`.
 */
export class EngineThreads {
  readonly #threads: Thread[];
  readonly #relayed = new Map<number, Relayed>();
  /** Which thread holds each session. */
  readonly #owners = new Map<string, Thread>();
  readonly #finished: (line: string) => void;
  readonly #maxFrameBytes: number;
  /** The session count every thread shares. */
  readonly #shared: Int32Array;
  /** Questions asked of the threads, by number, waiting for their answers. */
  readonly #asked = new Map<
    number,
    { thread: Thread; resolve: (answer: ThreadAnswer | null) => void }
  >();
  #nextId = 0;
  #nextAsk = 0;
  #scheduled = false;

  /** Resolves once every thread has planned its grid; rejects if one stops first. */
  readonly #ready: Promise<void>;
  /** Set once every thread is ready: a thread lost before then fails the start instead of warning. */
  #serving = false;

  private constructor(
    workers: Worker[],
    setup: EngineThreadSetup,
    finished: (line: string) => void,
  ) {
    this.#finished = finished;
    this.#maxFrameBytes = setup.maxFrameBytes;
    this.#shared = new Int32Array(setup.sessions);
    this.#threads = workers.map((worker) => ({
      worker,
      batch: [],
      connections: 0,
      alive: true,
    }));
    // Every listener is on before any thread can answer, so a thread that stops early is never missed.
    const ready = this.#threads.map(
      (thread, index) =>
        new Promise<void>((resolve, reject) => {
          thread.worker.on("message", (message: Batch<FromThread> | ThreadAnswer) => {
            if (Array.isArray(message)) this.#replies(thread, message);
            else if (message.kind === "ready") resolve();
            else this.#answered(message);
          });
          thread.worker.on("error", (error) => {
            reject(new Error(`engine thread ${index}: ${error.message}`));
            this.#lost(thread, index, error.message);
          });
          thread.worker.on("exit", (code) => {
            reject(new Error(`engine thread ${index} exited with code ${code}`));
            this.#lost(thread, index, `exited with code ${code}`);
          });
        }),
    );
    this.#ready = Promise.all(ready).then(() => {});
  }

  /** Starts `count` engine threads and resolves once each has planned its grid. */
  static async start(
    count: number,
    setup: EngineThreadSetup,
    finished: (line: string) => void,
  ): Promise<EngineThreads> {
    const module = await threadModule(
      import.meta.url,
      new URL("./engine-thread.js", import.meta.url),
      new URL("./engine-thread.ts", import.meta.url),
    );
    const workers: Worker[] = [];
    try {
      for (let i = 0; i < count; i++) workers.push(new Worker(module, { workerData: setup }));
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
    const threads = new EngineThreads(workers, setup, finished);
    try {
      await threads.#ready;
    } catch (error) {
      await threads.close();
      throw error;
    }
    threads.#serving = true;
    return threads;
  }

  /** Whether any engine thread is still running (`/health` says the server is unhealthy when none is). */
  get running(): boolean {
    return this.#threads.some((thread) => thread.alive);
  }

  /** Connections open on every thread. */
  get connections(): number {
    return this.#relayed.size;
  }

  /** Times a socket stopped being read because its client left too many replies unread. */
  backlogPauses = 0;
  /** Times a socket stopped being read because its thread had too many of its frames unanswered. */
  relayPauses = 0;

  /** Bytes of replies sent on the sockets that their clients have not yet taken. */
  get backlogBytes(): number {
    let bytes = 0;
    for (const relayed of this.#relayed.values()) bytes += relayed.socket.bufferedAmount;
    return bytes;
  }

  /** Pins a new connection to the live thread serving the fewest, and relays it there. */
  accept(socket: WebSocket): void {
    const thread = this.#leastBusy();
    if (!thread) {
      socket.close(1011, "no engine thread is running");
      return;
    }
    const relayed: Relayed = {
      id: this.#nextId++,
      socket,
      thread,
      started: false,
      unanswered: [],
      unansweredBytes: 0,
    };
    this.#relayed.set(relayed.id, relayed);
    this.#pin(relayed, thread);
    socket.on("message", (data: Buffer, isBinary: boolean) => {
      if (!relayed.started) {
        relayed.started = true;
        // Read whole, not searched for the word: JSON may spell `resume` with escapes.
        if (data.length <= this.#maxFrameBytes) this.#follow(relayed, data, isBinary);
      }
      // A binary frame's own bytes, copied out of the read buffer they may share (a clone would copy it whole).
      this.#queue(relayed.thread, [
        "frame",
        relayed.id,
        isBinary ? new Uint8Array(data) : data.toString(),
      ]);
      relayed.unanswered.push(data.length);
      relayed.unansweredBytes += data.length;
      if (
        relayed.unanswered.length > MAX_UNANSWERED ||
        relayed.unansweredBytes > unansweredBytesLimit(this.#maxFrameBytes)
      ) {
        if (!isHeld(socket, "relay")) this.relayPauses++;
        holdReading(socket, "relay");
      }
    });
    socket.on("close", () => {
      this.#relayed.delete(relayed.id);
      relayed.thread.connections--;
      this.#queue(relayed.thread, ["closed", relayed.id, null]);
    });
  }

  /** Every thread's counters and its sessions waiting for a resume. */
  async counts(): Promise<{ metrics: MetricsCounts[]; detached: number }> {
    const answers = await Promise.all(
      this.#live().map((thread) =>
        this.#ask(thread, (ask) => ({ kind: "counts", ask }), ANSWER_MS),
      ),
    );
    let detached = 0;
    const metrics: MetricsCounts[] = [];
    for (const answer of answers)
      if (answer?.kind === "counts") {
        metrics.push(answer.metrics);
        detached += answer.detached;
      }
    return { metrics, detached };
  }

  /** Has every thread finish its work in flight (at most `ms`) and close its connections. */
  async drain(ms: number): Promise<void> {
    this.#flush();
    await Promise.all(
      this.#live().map((thread) =>
        this.#ask(thread, (ask) => ({ kind: "drain", ask, ms }), ms + ANSWER_MS),
      ),
    );
  }

  /** Stops every thread; questions still waiting are answered with null. */
  async close(): Promise<void> {
    for (const thread of this.#threads) thread.alive = false;
    for (const waiting of this.#asked.values()) waiting.resolve(null);
    this.#asked.clear();
    await Promise.all(this.#threads.map((thread) => thread.worker.terminate()));
  }

  #pin(relayed: Relayed, thread: Thread): void {
    relayed.thread = thread;
    thread.connections++;
    this.#queue(thread, ["open", relayed.id, null]);
  }

  /**
   * A connection whose first frame resumes a session another thread holds moves to that thread
   * before the frame goes anywhere: nothing of it has run yet, so nothing is lost or left behind.
   * (A resume later on a connection finds the sessions of its own thread only; clients resume as
   * the first frame of a new connection, as `EnvClient` does.)
   */
  #follow(relayed: Relayed, data: Buffer, isBinary: boolean): void {
    const decoded = decodeFrame(data, isBinary ? "msgpack" : "json");
    if (!decoded.ok || decoded.message.type !== "resume") return;
    const owner = this.#owners.get(decoded.message.data.session_id);
    if (!owner || owner === relayed.thread || !owner.alive) return;
    relayed.thread.connections--;
    this.#queue(relayed.thread, ["closed", relayed.id, null]);
    this.#pin(relayed, owner);
  }

  #queue(thread: Thread, item: ToThread): void {
    if (!thread.alive) return;
    append(thread.batch, item);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    }
  }

  /** Sends each thread the frames of this turn, in one message. */
  #flush(): void {
    this.#scheduled = false;
    for (const thread of this.#threads) {
      if (thread.batch.length === 0) continue;
      if (thread.alive) thread.worker.postMessage(thread.batch);
      thread.batch = [];
    }
  }

  #replies(thread: Thread, batch: Batch<FromThread>): void {
    for (let at = 0; at < batch.length; at += 3) {
      const item = [batch[at], batch[at + 1], batch[at + 2]] as unknown as FromThread;
      switch (item[0]) {
        case "send":
        case "close":
        case "terminate":
          this.#onSocket(thread, item);
          break;
        case "added":
          this.#owners.set(item[1], thread);
          break;
        case "removed":
          this.#owners.delete(item[1]);
          break;
        case "finished":
          this.#finished(item[1]);
          break;
      }
    }
  }

  /**
   * A frame of the connection was answered (each frame earns one reply; a close none, and closes
   * the socket): once what is unanswered is back to half the limits, the socket is read again.
   */
  #replied(relayed: Relayed): void {
    relayed.unansweredBytes -= relayed.unanswered.shift() ?? 0;
    if (
      relayed.unanswered.length <= MAX_UNANSWERED / 2 &&
      relayed.unansweredBytes <= unansweredBytesLimit(this.#maxFrameBytes) / 2
    )
      releaseReading(relayed.socket, "relay");
  }

  /**
   * A reply, close or drop for a connection's socket, from the thread serving it (a thread it
   * left has nothing more to say to it). A socket that throws is dropped, as a broken one is.
   */
  #onSocket(
    thread: Thread,
    item: FromThread & readonly ["send" | "close" | "terminate", ...unknown[]],
  ): void {
    const relayed = this.#relayed.get(item[1] as number);
    if (!relayed || relayed.thread !== thread) return;
    try {
      if (item[0] === "send") {
        this.#replied(relayed);
        relayed.socket.send(item[2] as string | Uint8Array);
        if (pauseIfBacklogged(relayed.socket, backlogLimit(this.#maxFrameBytes)))
          this.backlogPauses++;
      } else if (item[0] === "close") {
        const [code, reason] = item[2] as readonly [number, string];
        releaseAll(relayed.socket);
        relayed.socket.close(code, reason);
      } else relayed.socket.terminate();
    } catch {
      relayed.socket.terminate();
    }
  }

  /**
   * Asks a thread a question; resolves with its answer, or null if the thread stops first or
   * takes longer than `timeoutMs` (a thread stuck in a loop must not hang `/metrics` or shutdown).
   */
  #ask(
    thread: Thread,
    request: (ask: number) => ThreadRequest,
    timeoutMs: number,
  ): Promise<ThreadAnswer | null> {
    const ask = this.#nextAsk++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#asked.delete(ask);
        resolve(null);
      }, timeoutMs);
      timer.unref();
      this.#asked.set(ask, {
        thread,
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
      });
      thread.worker.postMessage(request(ask));
    });
  }

  #answered(answer: Exclude<ThreadAnswer, { kind: "ready" }>): void {
    this.#asked.get(answer.ask)?.resolve(answer);
    this.#asked.delete(answer.ask);
  }

  /**
   * A thread that stopped: its connections end (their sessions are gone with it), new ones go
   * elsewhere, and the process is warned, since a thread only stops on a bug or a lack of memory.
   * One that stops while starting fails {@link EngineThreads.start} with the reason instead.
   */
  #lost(thread: Thread, index: number, why: string): void {
    if (!thread.alive) return;
    thread.alive = false;
    if (this.#serving)
      process.emitWarning(`engine thread ${index} stopped (${why}): its connections were closed`, {
        code: "REHEARSE_ENGINE_THREAD",
      });
    // The sessions it told of are gone with it: their slots are given back.
    let held = 0;
    for (const [id, owner] of this.#owners)
      if (owner === thread) {
        this.#owners.delete(id);
        held++;
      }
    Atomics.sub(this.#shared, 0, held);
    for (const relayed of this.#relayed.values())
      if (relayed.thread === thread) relayed.socket.close(1011, "engine thread stopped");
    for (const [ask, waiting] of this.#asked)
      if (waiting.thread === thread) {
        this.#asked.delete(ask);
        waiting.resolve(null);
      }
  }

  #live(): Thread[] {
    return this.#threads.filter((thread) => thread.alive);
  }

  #leastBusy(): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.#threads)
      if (thread.alive && (!best || thread.connections < best.connections)) best = thread;
    return best;
  }
}
