import { context, SpanStatusCode, trace } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";

/** One scripted tool call: a result, or an error the span ends with. */
export interface ScriptedCall {
  tool: string;
  result?: string;
  error?: string;
}

/** One scripted conversation of a deployed agent, as its instrumentation would record it. */
export interface ScriptedConversation {
  id: string;
  model: string;
  calls: ScriptedCall[];
  /** An evaluation score (0–1) recorded as a `gen_ai.evaluation.result` event; none when absent. */
  score?: number;
  /** Start time, milliseconds since the epoch. */
  at?: number;
}

/**
 * OTLP/JSON of scripted conversations made by the real OpenTelemetry JS SDK: an `invoke_agent`
 * span per conversation with a `chat` span and an `execute_tool` span per call beneath it, the
 * GenAI attributes set as an instrumented agent sets them, serialised by otlp-transformer.
 */
export function scriptedOtlp(conversations: readonly ScriptedConversation[]): string {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("scripted-agent", "1.0.0");
  for (const conversation of conversations) {
    const at = conversation.at ?? 1_780_000_000_000;
    const root = tracer.startSpan("invoke_agent support", {
      startTime: at,
      attributes: {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.conversation.id": conversation.id,
        "gen_ai.provider.name": "openai",
      },
    });
    const inside = trace.setSpan(context.active(), root);
    const chat = tracer.startSpan(
      `chat ${conversation.model}`,
      {
        startTime: at + 1,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": conversation.model,
          "gen_ai.response.model": conversation.model,
        },
      },
      inside,
    );
    chat.end(at + 2);
    conversation.calls.forEach((call, n) => {
      const span = tracer.startSpan(
        `execute_tool ${call.tool}`,
        {
          startTime: at + 10 + n,
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.tool,
            "gen_ai.tool.call.id": `call_${n}`,
            ...(call.result !== undefined ? { "gen_ai.tool.call.result": call.result } : {}),
          },
        },
        inside,
      );
      if (call.error !== undefined) {
        span.setAttribute("error.type", call.error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: call.error });
      }
      span.end(at + 11 + n);
    });
    if (conversation.score !== undefined)
      root.addEvent("gen_ai.evaluation.result", {
        "gen_ai.evaluation.name": "resolution",
        "gen_ai.evaluation.score.value": conversation.score,
      });
    root.end(at + 100);
  }
  return new TextDecoder().decode(
    JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans()),
  );
}

/** Conversations of one model version: for each kind, `n` of them with the same calls, the first `failing` scored 0. */
export function versionConversations(
  model: string,
  at: number,
  kinds: Record<string, { calls: ScriptedCall[]; n: number; failing: number }>,
): ScriptedConversation[] {
  const out: ScriptedConversation[] = [];
  for (const [kind, { calls, n, failing }] of Object.entries(kinds))
    for (let i = 0; i < n; i++)
      out.push({
        id: `${model}-${kind}-${i}`,
        model,
        calls,
        score: i < failing ? 0 : 1,
        at: at + out.length,
      });
  return out;
}
