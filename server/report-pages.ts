import { Worker } from "node:worker_threads";
import { threadModule } from "../env/index.ts";
import type { ReportAnswer, ReportQuestion, ReportThreadSetup } from "./report-protocol.ts";

/**
 * `GET /report`'s pages, made on a thread of their own (started at the first page asked for):
 * reading and grading 10,000 held episodes takes seconds, which every socket on the main thread
 * would otherwise wait out. The main thread only hands the held lines over. A thread that stops
 * fails the pages it owed and is started again for the next.
 */
export class ReportPages {
  readonly #setup: ReportThreadSetup;
  #worker: Promise<Worker> | null = null;
  readonly #asked = new Map<
    number,
    { resolve: (page: string) => void; reject: (error: Error) => void }
  >();
  #nextAsk = 0;

  constructor(setup: ReportThreadSetup) {
    this.#setup = setup;
  }

  /** The page of the held episodes, listing at most `conversations` of them (2,000 by default). */
  async page(held: ReportQuestion["held"], conversations?: number): Promise<string> {
    const worker = await this.#started();
    const ask = this.#nextAsk++;
    return new Promise<string>((resolve, reject) => {
      this.#asked.set(ask, { resolve, reject });
      const question: ReportQuestion = {
        ask,
        held,
        ...(conversations === undefined ? {} : { conversations }),
      };
      worker.postMessage(question);
    });
  }

  /** Stops the thread; pages still owed fail. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#fail("the server is closing");
    await (await worker?.catch(() => null))?.terminate();
  }

  #started(): Promise<Worker> {
    this.#worker ??= (async () => {
      const module = await threadModule(
        import.meta.url,
        new URL("./report-thread.js", import.meta.url),
        new URL("./report-thread.ts", import.meta.url),
      );
      const worker = new Worker(module, { workerData: this.#setup });
      worker.unref();
      worker.on("message", (answer: ReportAnswer) => {
        const waiting = this.#asked.get(answer.ask);
        this.#asked.delete(answer.ask);
        if ("page" in answer) waiting?.resolve(answer.page);
        else waiting?.reject(new Error(answer.error));
      });
      const lost = (why: string) => {
        this.#worker = null;
        this.#fail(`the report thread stopped (${why})`);
      };
      worker.on("error", (error) => lost(error.message));
      worker.on("exit", (code) => lost(`exited with code ${code}`));
      return worker;
    })();
    return this.#worker;
  }

  #fail(why: string): void {
    for (const waiting of this.#asked.values()) waiting.reject(new Error(why));
    this.#asked.clear();
  }
}
