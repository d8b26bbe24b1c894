import { workerData } from "node:worker_threads";
import { messageOf, Planner } from "../env/index.ts";
import { renderReport } from "../exporters/index.ts";
import { heldDataset } from "./freeze.ts";
import type { ReportAnswer, ReportQuestion, ReportThreadSetup } from "./report-protocol.ts";
import { threadStart } from "./thread-start.ts";

/**
 * The thread that makes `GET /report`'s page: it plans the server's grid once, then reads and
 * grades the held episodes it is sent and renders their page, so the main thread, which every
 * socket waits on, only hands the lines over.
 */
const setup = workerData as ReportThreadSetup;
const { port, agent } = threadStart(setup, "report thread");
const plan = new Planner(agent, { rows: setup.rows, seed: setup.seed });

port.on("message", async (question: ReportQuestion) => {
  let answer: ReportAnswer;
  try {
    const data = heldDataset(question.held, setup.limits, { agent, plan, roles: setup.roles });
    const page = await renderReport(data, {
      title: "episodes held for freeze",
      ...(question.conversations === undefined ? {} : { conversations: question.conversations }),
    });
    answer = { ask: question.ask, page };
  } catch (error) {
    answer = { ask: question.ask, error: messageOf(error) };
  }
  port.postMessage(answer);
});
