import OpenAI from "openai";
import type {
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import pLimit, { type LimitFunction } from "p-limit";
import type { ToolCall } from "../../spec/index.ts";
import { BackendError, InputError, messageOf } from "../util/errors.ts";
import type { Backend } from "./backend.ts";
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
 * A chat client for one backend, through the `openai` package: per-call timeout, retries with
 * backoff on 429 and 5xx (honouring retry-after), and a bound on calls in flight per backend.
 */
export class ChatClient {
  readonly backend: Backend;
  readonly #client: OpenAI;
  readonly #limit: LimitFunction;

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
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const limitKey = `${backend.name}|${backend.baseURL ?? ""}`;
    let limit = limits.get(limitKey);
    if (!limit || limit.concurrency !== backend.concurrency) {
      limit = pLimit(backend.concurrency);
      limits.set(limitKey, limit);
    }
    this.#limit = limit;
  }

  /** Sends one chat completion; errors name the backend and what the server said. */
  async complete(request: ChatRequest): Promise<ChatReply> {
    const { sampling } = this.backend;
    const response = await this.#limit(async () => {
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
        throw new BackendError(this.backend.name, messageOf(error));
      }
    });
    const choice = response.choices[0];
    if (!choice) throw new BackendError(this.backend.name, "the response has no choices");
    const toolCalls: ToolCall[] = [];
    for (const call of choice.message.tool_calls ?? []) {
      if (call.type !== "function")
        throw new BackendError(
          this.backend.name,
          `answered with a ${call.type} tool call, which rehearse does not run`,
        );
      toolCalls.push({
        id: call.id,
        type: "function",
        function: { name: call.function.name, arguments: call.function.arguments },
      });
    }
    const tokens = choice.logprobs?.content ?? null;
    const first = tokens?.[0];
    return {
      content: choice.message.content ?? null,
      toolCalls,
      tokenLogprobs: tokens ? tokens.map((t) => t.logprob) : null,
      topLogprobs: first
        ? Object.fromEntries([
            [first.token, first.logprob],
            ...first.top_logprobs.map((t) => [t.token, t.logprob]),
          ])
        : null,
      completionTokens: response.usage?.completion_tokens ?? null,
      model: response.model,
      fingerprint: response.system_fingerprint ?? null,
    };
  }
}
