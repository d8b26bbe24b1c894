import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { Row, Situation } from "../../spec/index.ts";
import type { RowFacts } from "../run-tally.ts";
import { threadModule } from "./module.ts";
import type { PlayReply, PlayRequest, WorkerSetup } from "./protocol.ts";

/** Episodes handed to one worker before it answers: enough that it never waits on the main thread. */
const IN_FLIGHT_PER_WORKER = 32;
/**
 * Episodes sent to a worker in one message, and answered in one: a message costs about 35 µs a
 * row one by one and about 10 µs in eights (a row is some 7 KB of JSON).
 */
const BATCH = 8;

/** A played row: its JSON line (text in this thread, UTF-8 bytes from a worker), its tally facts, and the row itself when asked for. */
export interface PlayedRow {
  line: string | Uint8Array;
  facts: RowFacts;
  row?: Row;
}

/** The worker threads a run uses by default: one per core the process may use. */
export function defaultWorkers(): number {
  return availableParallelism();
}

/**
 * Worker threads that play offline episodes: each builds the agent and roles once and plays the
 * episodes it is sent. {@link WorkerPool.play} hands an episode to the least busy worker; the
 * caller keeps the plan order.
 */
export class WorkerPool {
  /** Episodes to keep in flight so that every worker stays busy. */
  readonly capacity: number;
  readonly #workers: { worker: Worker; busy: number }[];
  readonly #pending = new Map<
    number,
    { resolve: (row: PlayedRow) => void; reject: (error: Error) => void }
  >();
  #next = 0;
  #failure: Error | null = null;
  /** Episodes asked for and not yet sent, and whether a send is scheduled. */
  #batch: PlayRequest[] = [];
  #scheduled = false;

  /** Starts `size` worker threads, each building the engine for `setup`. */
  static async start(size: number, setup: WorkerSetup): Promise<WorkerPool> {
    return new WorkerPool(
      size,
      setup,
      await threadModule(
        import.meta.url,
        new URL("./worker.js", import.meta.url),
        new URL("./worker.ts", import.meta.url),
      ),
    );
  }

  private constructor(size: number, setup: WorkerSetup, module: URL) {
    this.capacity = size * IN_FLIGHT_PER_WORKER;
    this.#workers = Array.from({ length: size }, (_, at) => {
      const worker = new Worker(module, { workerData: setup });
      worker.on("message", (replies: PlayReply[]) => this.#answer(at, replies));
      worker.on("error", (error) => this.#fail(new Error(`worker ${at}: ${error.message}`)));
      worker.on("exit", (code) => {
        if (this.#pending.size > 0) this.#fail(new Error(`worker ${at} exited with code ${code}`));
      });
      return { worker, busy: 0 };
    });
  }

  /** Plays one episode on the least busy worker (sent with the others asked for at the same time). */
  play(situation: Situation, rollout: number, keepStart = false): Promise<PlayedRow> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise<PlayedRow>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#batch.push({ id, situation, rollout, keepStart });
      if (this.#batch.length >= BATCH) this.#send();
      else if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#send());
      }
    });
  }

  /** Sends the episodes asked for so far to the least busy worker. */
  #send(): void {
    this.#scheduled = false;
    if (this.#batch.length === 0) return;
    let at = 0;
    for (let i = 1; i < this.#workers.length; i++)
      if ((this.#workers[i]?.busy ?? 0) < (this.#workers[at]?.busy ?? 0)) at = i;
    const slot = this.#workers[at] as { worker: Worker; busy: number };
    slot.busy += this.#batch.length;
    slot.worker.postMessage(this.#batch);
    this.#batch = [];
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.map(({ worker }) => worker.terminate()));
  }

  #answer(at: number, replies: PlayReply[]): void {
    for (const reply of replies) {
      const waiting = this.#pending.get(reply.id);
      if (!waiting) continue;
      this.#pending.delete(reply.id);
      (this.#workers[at] as { busy: number }).busy--;
      if ("error" in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply);
    }
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }
}
