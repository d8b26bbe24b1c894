import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import type { Command } from "commander";
import { InputError, loadDataset, type RowReplay, replayRow, shownPath } from "../env/index.ts";
import type { BackendSpec, ChatMessage } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { backend } from "./options.ts";

/** The flags of `rehearse replay`. */
interface ReplayFlags {
  row: string;
  agent?: BackendSpec;
  simulator?: BackendSpec;
  userModel?: BackendSpec;
  json?: boolean;
}

/** Width of the side-by-side view when standard error is no terminal to measure. */
const DEFAULT_WIDTH = 100;

/** `rehearse replay data.jsonl --row <id>`: replays one row alone and says whether it reproduces. */
export function replayCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("replay")
    .description(
      "replay one row of a dataset alone from its situation and seed and say whether it reproduces byte for byte; with --agent, play the same situation with that agent and show the two side by side",
    )
    .argument(
      "<data>",
      "the JSONL dataset (its sidecar <data>.meta.json holds the spec and options)",
    )
    .requiredOption("--row <id>", "the row's id (row_…), or its line number in the file")
    .option(
      "--agent <backend>",
      'play the situation with this agent instead: "offline", "openai:<model>", "<model>@<base-url>", or a JSON object',
      backend,
    )
    .option(
      "--simulator <backend>",
      "the situation writer, when a model wrote the row's opening (same forms as --agent)",
      backend,
    )
    .option(
      "--user-model <backend>",
      "the simulated person, when a model played it (same forms as --agent)",
      backend,
    )
    .option("--json", "print the replay (both rows, the first difference) as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse replay data.jsonl --row row_3f2a9c0d1e4b5a67\n  rehearse replay data.jsonl --row 12 --agent openai:gpt-4o-mini\n",
    )
    .action(async (data: string, flags: ReplayFlags) => {
      const dataset = await loadDataset(data);
      if (!dataset.meta)
        throw new InputError(data, [
          {
            path: "",
            message: `no sidecar ${shownPath(`${data}.meta.json`)}: a replay needs the spec and options of the run that wrote the rows`,
          },
        ]);
      const line = await rowLine(data, flags.row);
      const replay = await replayRow(line, {
        meta: dataset.meta,
        ...(flags.agent !== undefined ? { agent: flags.agent } : {}),
        ...(flags.simulator !== undefined ? { simulator: flags.simulator } : {}),
        ...(flags.userModel !== undefined ? { userModel: flags.userModel } : {}),
      });
      const width = io.terminal?.columns ?? DEFAULT_WIDTH;
      io.out(flags.json ? `${JSON.stringify(replay, null, 2)}\n` : printed(replay, width));
      done(replay.reproduced === false ? EXIT.failed : EXIT.ok);
    });
}

/**
 * The JSONL line of the row `wanted` names (its id, or its 1-based line number among the rows),
 * read as a stream; an unknown id is refused naming the ids that start most like it and the count.
 */
async function rowLine(path: string, wanted: string): Promise<string> {
  const byNumber = /^\d+$/.test(wanted) ? Number(wanted) : null;
  const lines = createInterface({
    input: createReadStream(path, "utf8"),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let count = 0;
  let near: { id: string; shared: number }[] = [];
  for await (const line of lines) {
    if (line.trim() === "") continue;
    count++;
    if (byNumber === count) return line;
    const id = /^\{"id":"([^"]*)"/.exec(line)?.[1];
    if (id === undefined) continue;
    if (id === wanted) return line;
    // The three ids sharing the longest start with the one asked for: a typo's likely targets.
    near = [...near, { id, shared: sharedStart(id, wanted) }]
      .sort((a, b) => b.shared - a.shared)
      .slice(0, 3);
  }
  const where =
    byNumber !== null
      ? `expected a row number from 1 to ${count}`
      : `expected the id of one of its ${count} rows${near.length > 0 ? `; the closest: ${near.map((n) => n.id).join(", ")}` : ""}`;
  throw new InputError("--row", [
    { path: "--row", message: `no row ${wanted} in ${shownPath(path)}: ${where}` },
  ]);
}

function sharedStart(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** The replay for a person: what was played, the verdict, and the two conversations side by side when agents differ. */
function printed(replay: RowReplay, width: number): string {
  const { difference } = replay;
  const lines = [
    `row       ${replay.row} (situation ${replay.situation}, rollout ${replay.rollout})`,
    `agent     ${replay.agents.original}${replay.mode === "compare" ? ` -> ${replay.agents.replayed}` : ""}`,
  ];
  if (replay.not_compared.length > 0)
    lines.push(`skipped   ${replay.not_compared.join(", ")} (set after play, not replayed)`);
  const at = difference
    ? `${difference.path}${difference.message !== null ? ` (message ${difference.message})` : ""}`
    : "";
  if (replay.mode === "reproduce") {
    lines.push(
      replay.reproduced
        ? "result    reproduced byte for byte"
        : `result    NOT reproduced: first difference at ${at}`,
    );
    if (difference?.message !== null && difference !== null) {
      const index = difference.message;
      lines.push(
        `  was     ${said(replay.original.messages[index])}`,
        `  now     ${said(replay.replayed.messages[index])}`,
      );
    }
    return `${lines.map((line) => clip(line, width)).join("\n")}\n`;
  }
  lines.push(
    difference ? `result    the conversations part at ${at}` : "result    the same conversation",
    "",
    ...sideBySide(replay, width),
  );
  return `${lines.map((line) => clip(line, width)).join("\n")}\n`;
}

/** Two columns, the original conversation and the replayed one, message by message; `>` marks where they part. */
function sideBySide(replay: RowReplay, width: number): string[] {
  const column = Math.max(10, Math.floor((width - 5) / 2));
  const left = replay.original.messages;
  const right = replay.replayed.messages;
  const parts = replay.difference?.message ?? null;
  const rows = [
    `  ${cell(`original (${replay.agents.original})`, column)} | ${clip(`replayed (${replay.agents.replayed})`, column)}`,
  ];
  for (let i = 0; i < Math.max(left.length, right.length); i++)
    rows.push(
      `${i === parts ? ">" : " "} ${cell(said(left[i]), column)} | ${clip(said(right[i]), column)}`,
    );
  return rows;
}

/** One message as `role: text` on one line; a tool call as its name and arguments. */
function said(message: ChatMessage | undefined): string {
  if (!message) return "";
  const calls =
    message.role === "assistant"
      ? (message.tool_calls ?? []).map(
          (call) => `${call.function.name}(${call.function.arguments})`,
        )
      : [];
  const text = [message.content ?? "", ...calls].filter((part) => part !== "").join(" ");
  return `${message.role}: ${text.replace(/\s+/g, " ")}`;
}

function cell(text: string, width: number): string {
  return clip(text, width).padEnd(width);
}

function clip(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
}
