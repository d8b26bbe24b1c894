import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import pLimit, { type LimitFunction } from "p-limit";
import { z } from "zod";
import type { ToolCall } from "../../spec/index.ts";
import { BackendError, formatPath, InputError, messageOf, valueAt } from "../util/errors.ts";
import type { Backend } from "./backend.ts";
import { boundedFetch, MAX_REPLY_BYTES } from "./bounded-fetch.ts";
import { endpointOf } from "./endpoint.ts";

/** One call to a chat model. */
export interface ChatRequest {
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  logprobs?: boolean;
  /** Overrides the backend's sampling for this call. */
  max_tokens?: number;
  top_logprobs?: number;
}

/** What the model answered, with the figures an off-policy correction needs. */
export interface ChatReply {
  content: string | null;
  toolCalls: ToolCall[];
  /** Per-token log-probabilities of the generated text, when the server returned them. */
  tokenLogprobs: number[] | null;
  /** The first token's top alternatives (token → log-probability), when asked for. */
  topLogprobs: Record<string, number> | null;
  completionTokens: number | null;
  model: string;
  fingerprint: string | null;
}

/** In-flight limits, shared by every role that calls the same backend. */
const limits = new Map<string, LimitFunction>();

/**
 * A chat client for one backend, through the `openai` package: per-call timeout over the whole
 * reply, body included, replies of at most 64 MiB, retries with backoff on 429 and 5xx (honouring
 * retry-after up to the timeout), and a bound on calls in flight per backend. What the server says
 * in an error reaches the data with the API key blanked out.
 */
export class ChatClient {
  readonly backend: Backend;
  readonly #client: OpenAI;
  readonly #limit: LimitFunction;
  /** Secrets this client sends, blanked out of any error it raises. */
  readonly #secrets: string[];

  constructor(backend: Backend, role: string, options: { fetch?: typeof fetch } = {}) {
    this.backend = backend;
    // A program that runs here, or a model with no server named, has nowhere to send a call.
    if (endpointOf(backend) === null) {
      throw new InputError(`${role} backend`, [
        { path: role, message: `${backend.name} names no server to call` },
      ]);
    }
    const keyEnv = backend.apiKeyEnv ?? "OPENAI_API_KEY";
    const key = process.env[keyEnv];
    if (!key && (backend.provider === "openai" || backend.apiKeyEnv)) {
      throw new InputError(`${role} backend`, [
        {
          path: role,
          message: `${backend.name} needs an API key in the environment variable ${keyEnv}`,
        },
      ]);
    }
    this.#client = new OpenAI({
      // A local OpenAI-compatible server (vLLM, Ollama) usually takes any key.
      apiKey: key ?? "no-key",
      ...(backend.baseURL ? { baseURL: backend.baseURL } : {}),
      timeout: backend.timeoutMs,
      maxRetries: backend.maxRetries,
      fetch: boundedFetch(backend.timeoutMs, MAX_REPLY_BYTES, options.fetch ?? fetch),
    });
    this.#secrets = key !== undefined && key.length >= 4 ? [key] : [];
    const limitKey = `${backend.name}|${backend.baseURL ?? ""}`;
    let limit = limits.get(limitKey);
    if (!limit || limit.concurrency !== backend.concurrency) {
      limit = pLimit(backend.concurrency);
      limits.set(limitKey, limit);
    }
    this.#limit = limit;
  }

  /** Sends one chat completion; errors name the backend and what the server said, secrets blanked out. */
  async complete(request: ChatRequest): Promise<ChatReply> {
    try {
      return await this.#complete(request);
    } catch (error) {
      const message = messageOf(error);
      const blanked = this.#secrets.reduce(
        (text, secret) => text.replaceAll(secret, "[redacted]"),
        message,
      );
      if (blanked === message) throw error;
      throw new BackendError(this.backend.name, blanked.replace(`${this.backend.name}: `, ""));
    }
  }

  async #complete(request: ChatRequest): Promise<ChatReply> {
    const { sampling } = this.backend;
    const response: unknown = await this.#limit(async () => {
      try {
        return await this.#client.chat.completions.create({
          model: this.backend.model,
          messages: request.messages,
          ...(request.tools && request.tools.length > 0 ? { tools: request.tools } : {}),
          ...(sampling.temperature !== undefined ? { temperature: sampling.temperature } : {}),
          ...(sampling.top_p !== undefined ? { top_p: sampling.top_p } : {}),
          ...((request.max_tokens ?? sampling.max_tokens) !== undefined
            ? { max_tokens: request.max_tokens ?? sampling.max_tokens }
            : {}),
          ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
          ...(request.logprobs ? { logprobs: true } : {}),
          ...(request.top_logprobs ? { logprobs: true, top_logprobs: request.top_logprobs } : {}),
        });
      } catch (error) {
        // A body sent as JSON that does not parse fails inside the call, as a SyntaxError.
        throw new BackendError(
          this.backend.name,
          error instanceof SyntaxError
            ? `the reply is not valid JSON: ${error.message}`
            : withCause(error),
        );
      }
    });
    const reply = readReply(this.backend, response, (request.tools?.length ?? 0) > 0);
    // A call that sets its own token limit (a decision model reads one token) is short on purpose.
    if (request.max_tokens === undefined) refuseCutOff(this.backend, response);
    return reply;
  }
}

/** A tool call as rehearse reads it: a server that leaves out the id or the type means a function call. */
const ToolCallShape = z.object({
  id: z.string({ error: "expected a string" }).nullish(),
  type: z.string({ error: "expected a string" }).nullish(),
  function: z.object(
    {
      name: z.string({ error: "expected the tool's name, a string" }),
      arguments: z.string({ error: "expected the arguments as a JSON string" }),
    },
    { error: "expected an object with name and arguments" },
  ),
});

/**
 * The parts of a chat completion rehearse cannot do without, checked where the reply comes in: a
 * first choice with a message, its text (a string or null) and its tool calls (read only when the
 * request offered tools). What only adds figures (usage, model, fingerprint, logprobs) is read
 * leniently by {@link readReply}, and other choices are not read at all.
 */
const ReplyShape = z.object(
  {
    choices: z
      .array(z.unknown(), { error: "expected a list" })
      .min(1, { error: "expected at least one choice" }),
  },
  { error: "expected a JSON object" },
);
const choiceShape = (tools: boolean) =>
  z.object(
    {
      message: z.object(
        {
          content: z.string({ error: "expected a string or null" }).nullish(),
          tool_calls: tools
            ? z.array(ToolCallShape, { error: "expected a list" }).nullish()
            : z
                .unknown()
                .optional()
                .transform(() => undefined),
        },
        { error: "expected an object" },
      ),
    },
    { error: "expected an object" },
  );
const CHOICE = { withTools: choiceShape(true), withoutTools: choiceShape(false) };

/** One generated token's log-probability and, when asked for, its top alternatives. */
const TokenShape = z.object({
  token: z.string(),
  logprob: z.number(),
  top_logprobs: z.array(z.unknown()).nullish(),
});
const AlternativeShape = z.object({ token: z.string(), logprob: z.number() });

/**
 * A reply of any shape read into a {@link ChatReply}, or a {@link BackendError} naming the backend
 * and what the reply lacks. Log-probabilities are optional figures: a missing or null one drops
 * the turn's list (the run's warnings count such turns), never the turn.
 */
/**
 * A turn the server cut off at its token limit (`finish_reason: "length"`) is half a message: as
 * data it would teach a model to stop mid-sentence, or run a call whose arguments were cut. It is
 * the role's failure, recorded on the row, never kept as if whole.
 */
function refuseCutOff(backend: Backend, response: unknown): void {
  const choice = (response as { choices: { finish_reason?: unknown }[] }).choices[0];
  if (choice?.finish_reason === "length")
    throw new BackendError(
      backend.name,
      "the reply was cut off at the token limit (finish_reason length): raise max_tokens, or shorten the conversation",
    );
}

function readReply(backend: Backend, response: unknown, tools: boolean): ChatReply {
  if (typeof response === "string" || response === null || response === undefined)
    throw new BackendError(
      backend.name,
      `the reply is not JSON: ${response ? JSON.stringify(snippet(response)) : "it is empty"}`,
    );
  const reply = ReplyShape.safeParse(response);
  if (!reply.success) throw new BackendError(backend.name, problemOf(reply.error, response, []));
  const parsed = CHOICE[tools ? "withTools" : "withoutTools"].safeParse(reply.data.choices[0]);
  if (!parsed.success)
    throw new BackendError(backend.name, problemOf(parsed.error, response, ["choices", 0]));
  const choice = parsed.data;
  const toolCalls: ToolCall[] = [];
  for (const call of choice.message.tool_calls ?? []) {
    if (call.type != null && call.type !== "function")
      throw new BackendError(
        backend.name,
        `answered with a ${call.type} tool call, which rehearse does not run`,
      );
    toolCalls.push({
      id: call.id ?? "",
      type: "function",
      function: { name: call.function.name, arguments: call.function.arguments },
    });
  }
  const raw = response as Record<string, unknown>;
  const figures = (raw.choices as Record<string, unknown>[])[0] as Record<string, unknown>;
  const tokens = tokensOf(figures.logprobs);
  const first = tokens?.[0];
  const usage = raw.usage as { completion_tokens?: unknown } | null | undefined;
  const completionTokens = usage?.completion_tokens;
  return {
    content: choice.message.content ?? null,
    toolCalls,
    tokenLogprobs: tokens ? tokens.map((t) => t.logprob) : null,
    topLogprobs: first
      ? Object.fromEntries([
          [first.token, first.logprob],
          ...(first.top_logprobs ?? []).flatMap((t) => {
            const alternative = AlternativeShape.safeParse(t);
            return alternative.success ? [[alternative.data.token, alternative.data.logprob]] : [];
          }),
        ])
      : null,
    completionTokens:
      Number.isSafeInteger(completionTokens) && (completionTokens as number) >= 0
        ? (completionTokens as number)
        : null,
    model: typeof raw.model === "string" ? raw.model : backend.model,
    fingerprint: typeof raw.system_fingerprint === "string" ? raw.system_fingerprint : null,
  };
}

/** The generated tokens of a choice's `logprobs`, or null when any is missing its number. */
function tokensOf(logprobs: unknown): z.infer<typeof TokenShape>[] | null {
  const content = (logprobs as { content?: unknown } | null | undefined)?.content;
  if (!Array.isArray(content)) return null;
  const tokens: z.infer<typeof TokenShape>[] = [];
  for (const entry of content) {
    const token = TokenShape.safeParse(entry);
    if (!token.success) return null;
    tokens.push(token.data);
  }
  return tokens;
}

/** The first problem zod found in a part of the reply at `prefix`, as a sentence about the reply. */
function problemOf(error: z.ZodError, response: unknown, prefix: PropertyKey[]): string {
  const issue = error.issues[0] as z.core.$ZodIssue;
  const at = [...prefix, ...issue.path];
  const path = formatPath(at);
  const value = valueAt(response, at);
  if (path === "") return `the reply is ${kindOf(response)}; ${issue.message}`;
  return value === undefined
    ? `the reply has no ${path}`
    : `the reply's ${path} is ${kindOf(value)}; ${issue.message}`;
}

/** What a value is, for a sentence: "a number (42)", "a list", "null". */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length === 0 ? "an empty list" : "a list";
  if (typeof value === "string") return `a string (${JSON.stringify(snippet(value))})`;
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${String(value)})`;
}

/** The start of a text, on one line: enough to recognise an HTML page or an error. */
function snippet(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= 80 ? line : `${line.slice(0, 79)}…`;
}

/** An error's message and, when the `openai` package wrapped ours ("Connection error."), what it wrapped. */
function withCause(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
  return cause && cause !== messageOf(error) ? `${messageOf(error)} (${cause})` : messageOf(error);
}
