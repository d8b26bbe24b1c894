import { mkdir, rename } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { threadId, Worker } from "node:worker_threads";
import type { Row, Situation } from "../../spec/index.ts";
import type { RowFacts } from "../run-tally.ts";
import type { PlayReply, PlayRequest, WorkerSetup } from "./protocol.ts";

/** Episodes handed to one worker before it answers: enough that it never waits on the main thread. */
const IN_FLIGHT_PER_WORKER = 8;

/** A row played by a worker: its JSON line, its tally facts, and the row itself when asked for. */
export interface PlayedRow {
  line: string;
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
    { resolve: (row: PlayedRow) => void; reject: (error: Error) => void; at: number }
  >();
  #next = 0;
  #failure: Error | null = null;

  /** Starts `size` worker threads, each building the engine for `setup`. */
  static async start(size: number, setup: WorkerSetup): Promise<WorkerPool> {
    return new WorkerPool(size, setup, await workerModule());
  }

  private constructor(size: number, setup: WorkerSetup, module: URL) {
    this.capacity = size * IN_FLIGHT_PER_WORKER;
    this.#workers = Array.from({ length: size }, (_, at) => {
      const worker = new Worker(module, { workerData: setup });
      worker.on("message", (reply: PlayReply) => this.#answer(at, reply));
      worker.on("error", (error) => this.#fail(new Error(`worker ${at}: ${error.message}`)));
      worker.on("exit", (code) => {
        if (this.#pending.size > 0) this.#fail(new Error(`worker ${at} exited with code ${code}`));
      });
      return { worker, busy: 0 };
    });
  }

  /** Plays one episode on the least busy worker. */
  play(situation: Situation, rollout: number): Promise<PlayedRow> {
    if (this.#failure) return Promise.reject(this.#failure);
    let at = 0;
    for (let i = 1; i < this.#workers.length; i++)
      if ((this.#workers[i]?.busy ?? 0) < (this.#workers[at]?.busy ?? 0)) at = i;
    const slot = this.#workers[at] as { worker: Worker; busy: number };
    const id = this.#next++;
    slot.busy++;
    return new Promise<PlayedRow>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject, at });
      const request: PlayRequest = { id, situation, rollout };
      slot.worker.postMessage(request);
    });
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    await Promise.all(this.#workers.map(({ worker }) => worker.terminate()));
  }

  #answer(at: number, reply: PlayReply): void {
    const waiting = this.#pending.get(reply.id);
    if (!waiting) return;
    this.#pending.delete(reply.id);
    (this.#workers[at] as { busy: number }).busy--;
    if ("error" in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply);
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
  }
}

/**
 * The worker's module: the built JavaScript beside this one, or, when the engine runs from its
 * TypeScript sources (tsx, vitest), worker.ts bundled once per process with esbuild (tsx's own
 * compiler) into node_modules/.cache, where its packages resolve. Node 20 applies no
 * module.register() hooks in worker threads, so `--import tsx` does not reach them, and tsx's
 * require hook compiles the engine file by file in each thread: seconds per worker, where the
 * bundle loads in a fraction of one.
 */
function workerModule(): Promise<URL> {
  if (!import.meta.url.endsWith(".ts"))
    return Promise.resolve(new URL("./worker.js", import.meta.url));
  bundled ??= bundleWorker();
  return bundled;
}

let bundled: Promise<URL> | undefined;

async function bundleWorker(): Promise<URL> {
  const { build } = await import("esbuild");
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const folder = join(root, "node_modules", ".cache", "rehearse");
  await mkdir(folder, { recursive: true });
  const target = join(folder, "simulate-worker.mjs");
  // Another process may be loading the bundle: write beside it and rename over it in one step.
  const temp = `${target}.${process.pid}.${threadId}.tmp`;
  await build({
    entryPoints: [fileURLToPath(new URL("./worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outfile: temp,
    logLevel: "warning",
  });
  await rename(temp, target);
  return pathToFileURL(target);
}
