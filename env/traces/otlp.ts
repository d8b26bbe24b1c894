import type { Trace, TraceCall, TraceGrade } from "../../spec/index.ts";
import { coordinateOfCalls } from "./classify.ts";

/** OTLP/JSON's attribute value: one of its typed fields. */
interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface Span {
  traceId?: string;
  spanId?: string;
  name?: string;
  startTimeUnixNano?: string | number;
  attributes?: KeyValue[];
  events?: { name?: string; attributes?: KeyValue[] }[];
  status?: { code?: number; message?: string };
}

const ERROR_STATUS = 2;

/** The spans of one OTLP/JSON export request (`{resourceSpans: [...]}`), each with where it came from. */
export function spansOf(request: unknown, source: string): { span: Span; source: string }[] {
  const out: { span: Span; source: string }[] = [];
  const resources = (request as { resourceSpans?: unknown }).resourceSpans;
  if (!Array.isArray(resources)) return out;
  for (const resource of resources) {
    for (const scope of (resource as { scopeSpans?: unknown[] })?.scopeSpans ?? []) {
      for (const span of (scope as { spans?: Span[] })?.spans ?? [])
        if (span && typeof span === "object")
          out.push({ span, source: `${source} span ${span.spanId ?? "?"}` });
    }
  }
  return out;
}

/**
 * Conversations from spans following the GenAI semantic conventions: spans are grouped by
 * `gen_ai.conversation.id` (found on any span of a trace), else by trace id; tool spans
 * (`execute_tool`, or any span with `gen_ai.tool.name`) become calls in start order, an error
 * status or `error.type` their error; the model is `gen_ai.response.model` or
 * `gen_ai.request.model`; a grade is an evaluation attribute or event (`gen_ai.evaluation.score.value`
 * in 0–1, or a pass/fail `gen_ai.evaluation.score.label`).
 */
export function tracesFromSpans(
  spans: readonly { span: Span; source: string }[],
  known: ReadonlySet<string>,
): Trace[] {
  const conversationOfTrace = new Map<string, string>();
  for (const { span } of spans) {
    const id = text(attribute(span.attributes, "gen_ai.conversation.id"));
    if (id && span.traceId && !conversationOfTrace.has(span.traceId))
      conversationOfTrace.set(span.traceId, id);
  }
  const groups = new Map<string, { span: Span; source: string }[]>();
  for (const entry of spans) {
    const own = text(attribute(entry.span.attributes, "gen_ai.conversation.id"));
    const key =
      own ??
      conversationOfTrace.get(entry.span.traceId ?? "") ??
      entry.span.traceId ??
      entry.source;
    const group = groups.get(key) ?? [];
    group.push(entry);
    groups.set(key, group);
  }
  const traces: Trace[] = [];
  for (const [id, group] of groups) {
    const ordered = [...group].sort((a, b) => nanos(a.span) - nanos(b.span));
    const calls: TraceCall[] = [];
    let model: string | null = null;
    let grade: TraceGrade | null = null;
    for (const { span } of ordered) {
      model ??=
        text(attribute(span.attributes, "gen_ai.response.model")) ??
        text(attribute(span.attributes, "gen_ai.request.model")) ??
        null;
      grade ??= gradeOf(span.attributes) ?? firstGrade(span.events);
      const tool = text(attribute(span.attributes, "gen_ai.tool.name"));
      if (tool) calls.push(callOf(span, tool));
    }
    const source = ordered[0]?.source ?? id;
    const unknown = [...new Set(calls.map((call) => call.tool).filter((tool) => !known.has(tool)))];
    traces.push({
      id,
      source,
      model,
      started: ordered.length > 0 ? nanos(ordered[0]?.span as Span) / 1e6 : null,
      calls,
      coordinate: coordinateOfCalls(calls, known),
      grade,
      unknown_tools: unknown,
    });
  }
  return traces;
}

function callOf(span: Span, tool: string): TraceCall {
  const failed = span.status?.code === ERROR_STATUS;
  const errorType = text(attribute(span.attributes, "error.type"));
  const error =
    failed || errorType
      ? [errorType, span.status?.message].filter(Boolean).join(": ") || "error"
      : null;
  const result = attribute(span.attributes, "gen_ai.tool.call.result");
  return {
    tool,
    error,
    result: result === undefined ? null : (text(result) ?? JSON.stringify(plain(result))),
  };
}

function gradeOf(attributes: KeyValue[] | undefined): TraceGrade | null {
  const score = attribute(attributes, "gen_ai.evaluation.score.value");
  const value =
    score?.doubleValue ?? (score?.intValue !== undefined ? Number(score.intValue) : undefined);
  if (value !== undefined && value >= 0 && value <= 1) return { reward: value, by: "evaluation" };
  const label = text(attribute(attributes, "gen_ai.evaluation.score.label"))?.toLowerCase();
  if (label === undefined) return null;
  if (["pass", "passed", "true", "success", "correct", "good"].includes(label))
    return { reward: 1, by: "evaluation" };
  if (["fail", "failed", "false", "failure", "incorrect", "bad"].includes(label))
    return { reward: 0, failure_class: label, by: "evaluation" };
  return null;
}

function firstGrade(events: Span["events"]): TraceGrade | null {
  for (const event of events ?? []) {
    const grade = gradeOf(event.attributes);
    if (grade) return grade;
  }
  return null;
}

function attribute(attributes: KeyValue[] | undefined, key: string): AnyValue | undefined {
  return attributes?.find((entry) => entry?.key === key)?.value;
}

function text(value: AnyValue | undefined): string | undefined {
  return typeof value?.stringValue === "string" && value.stringValue !== ""
    ? value.stringValue
    : undefined;
}

function plain(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return value.stringValue ?? value.doubleValue ?? value.boolValue ?? value.intValue ?? null;
}

function nanos(span: Span): number {
  const at = Number(span.startTimeUnixNano ?? 0);
  return Number.isFinite(at) ? at : 0;
}
