import { open } from "node:fs/promises";
import { RowSchema, type Trace, TraceLabelSchema, type TraceProblem } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { InputError } from "../util/errors.ts";
import { shownPath } from "../util/files.ts";
import { spansOf, tracesFromSpans } from "./otlp.ts";
import { traceOfRow } from "./rows.ts";

/** What reading trace files gave: the conversations, and every problem by where it was. */
export interface IngestedTraces {
  traces: Trace[];
  problems: TraceProblem[];
}

/** Options of `ingestTraces`: the agent spec whose axes the traces are placed on, and a labels file. */
export interface IngestOptions {
  agent: Agent;
  /** JSONL of `{conversation_id, reward, failure_class?}`: grades kept apart from the traces. */
  labels?: string;
}

/**
 * Reads trace files into conversations on the spec's axes (the brief's second way in): our own
 * graded rows (JSONL), and OpenTelemetry traces as OTLP/JSON following the GenAI semantic
 * conventions — one export request per file, or one per line as the OTLP file exporter writes
 * them. Lines that are not JSON, not a trace, traces without a grade or a model, and calls of
 * tools the spec does not have are counted and named in `problems`, never dropped silently.
 */
export async function ingestTraces(
  files: readonly string[],
  options: IngestOptions,
): Promise<IngestedTraces> {
  if (files.length === 0)
    throw new InputError("traces", [
      { path: "files", message: "expected at least one trace file" },
    ]);
  const known = new Set(options.agent.tools.map((tool) => tool.name));
  const traces: Trace[] = [];
  const problems: TraceProblem[] = [];
  for (const file of files) {
    const spans: ReturnType<typeof spansOf> = [];
    for await (const { value, source } of jsonRecords(file, problems)) {
      if (isObject(value) && Array.isArray(value.resourceSpans))
        spans.push(...spansOf(value, source));
      else {
        const row = RowSchema.safeParse(value);
        if (row.success) traces.push(traceOfRow(row.data, source, known));
        else
          problems.push({
            source,
            kind: "not_a_trace",
            detail: "expected an OTLP/JSON export ({resourceSpans: [...]}) or a rehearse row",
          });
      }
    }
    traces.push(...tracesFromSpans(spans, known));
  }
  if (options.labels) await applyLabels(traces, options.labels, problems);
  for (const trace of traces) {
    if (!trace.grade)
      problems.push({
        source: trace.source,
        kind: "no_grade",
        detail: `conversation ${trace.id} carries no grade`,
      });
    if (!trace.model)
      problems.push({
        source: trace.source,
        kind: "no_model",
        detail: `conversation ${trace.id} names no model`,
      });
    for (const tool of trace.unknown_tools)
      problems.push({
        source: trace.source,
        kind: "unknown_tool",
        detail: `${tool} is not a tool of ${options.agent.name}`,
      });
  }
  return { traces, problems };
}

/** Grades from a labels file replace what the traces carried, by conversation id. */
async function applyLabels(traces: Trace[], file: string, problems: TraceProblem[]): Promise<void> {
  const byId = new Map(traces.map((trace) => [trace.id, trace]));
  for await (const { value, source } of jsonRecords(file, problems)) {
    const label = TraceLabelSchema.safeParse(value);
    if (!label.success) {
      problems.push({
        source,
        kind: "not_a_trace",
        detail: `expected a label {conversation_id, reward, failure_class?}: ${label.error.issues[0]?.message}`,
      });
      continue;
    }
    const trace = byId.get(label.data.conversation_id);
    if (!trace) {
      problems.push({
        source,
        kind: "no_conversation",
        detail: `no trace has the conversation id ${label.data.conversation_id}`,
      });
      continue;
    }
    trace.grade = {
      reward: label.data.reward,
      ...(label.data.failure_class ? { failure_class: label.data.failure_class } : {}),
      by: "label",
    };
  }
}

/**
 * The JSON values of a file, streamed: one per line, or the whole file when it is one
 * pretty-printed document. A line that is not JSON is a `broken_json` problem, named by line.
 */
async function* jsonRecords(
  file: string,
  problems: TraceProblem[],
): AsyncGenerator<{ value: unknown; source: string }> {
  const shown = shownPath(file);
  const handle = await open(file).catch((error: Error) => {
    throw new InputError("traces", [{ path: shown, message: `cannot read it: ${error.message}` }]);
  });
  const lines = handle.readLines({ encoding: "utf8" });
  let held: string[] | null = null;
  let n = 0;
  const reading = lines[Symbol.asyncIterator]();
  for (;;) {
    const next = await reading.next().catch((error: Error) => {
      throw new InputError("traces", [
        { path: shown, message: `cannot read it: ${error.message}` },
      ]);
    });
    if (next.done) break;
    const line = next.value;
    n++;
    if (held) {
      held.push(line);
      continue;
    }
    if (line.trim() === "") continue;
    try {
      yield { value: JSON.parse(line), source: `${shown}:${n}` };
    } catch (error) {
      // A document spread over lines: gather the rest and parse it whole.
      if (n === 1 && line.trim() === "{") held = [line];
      else
        problems.push({
          source: `${shown}:${n}`,
          kind: "broken_json",
          detail: (error as Error).message,
        });
    }
  }
  if (held) {
    try {
      yield { value: JSON.parse(held.join("\n")), source: shown };
    } catch (error) {
      problems.push({ source: shown, kind: "broken_json", detail: (error as Error).message });
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
