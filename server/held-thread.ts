import { workerData } from "node:worker_threads";
import { InputError, messageOf } from "../env/index.ts";
import { renderReport } from "../exporters/index.ts";
import { FinishedEpisodes, freeze, heldDataset } from "./freeze.ts";
import {
  HELD_READY,
  type HeldAnswer,
  type HeldMessage,
  type HeldThreadSetup,
} from "./held-protocol.ts";
import { threadStart } from "./thread-start.ts";

/**
 * The thread that holds the server's finished episodes until a freeze: it keeps their JSON lines,
 * writes `POST /v1/freeze`'s dataset and makes `GET /report`'s page from them. The main thread,
 * which every socket waits on, then neither keeps up to `keepBytes` of rows for its garbage
 * collector to carry nor stops for the second a freeze of 10,000 episodes takes to read and write.
 */
const setup = workerData as HeldThreadSetup;
const { port, agent } = threadStart(setup, "held-episodes thread");
const finished = new FinishedEpisodes(setup.limits.keep, setup.limits.keepBytes);
const setting = { agent, plan: setup.plan, roles: setup.roles };
/** The last page made: asked again, it is made again only once the held episodes change. */
let shown: { version: number; conversations?: number; page: Promise<string> } | null = null;

port.on("message", (message: HeldMessage) => {
  if (message.kind === "add") {
    for (const line of message.lines) finished.addLine(line);
    return;
  }
  // Inside a promise: what the work throws is answered, and never stops the thread.
  const answer: Promise<Omit<HeldAnswer, "ask">> = Promise.resolve().then(async () =>
    message.kind === "report"
      ? { page: await report(message.conversations) }
      : { frozen: await freeze(finished, message.request, { folder: setup.folder, ...setting }) },
  );
  answer.then(
    (answered) => port.postMessage({ ask: message.ask, ...answered }),
    (error: unknown) =>
      port.postMessage({
        ask: message.ask,
        error: messageOf(error),
        ...(error instanceof InputError
          ? { refused: { what: error.what, issues: error.issues } }
          : {}),
      } satisfies HeldAnswer),
  );
});

port.postMessage(HELD_READY);

/** The page of the held episodes, listing at most `conversations` of them; taking none. */
function report(conversations: number | undefined): Promise<string> {
  if (shown?.version === finished.version && shown.conversations === conversations)
    return shown.page;
  const listing = conversations === undefined ? {} : { conversations };
  const page = renderReport(heldDataset(finished.peek(), setup.limits, setting), {
    title: "episodes held for freeze",
    ...listing,
  });
  const made = { version: finished.version, ...listing, page };
  shown = made;
  // A page that failed is not kept: the next request makes it again.
  page.catch(() => {
    if (shown === made) shown = null;
  });
  return page;
}
