import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

/** An embeddings request as the server received it. */
export type EmbeddingsRequest = {
  model: string;
  input: string | string[];
  encoding_format?: "float" | "base64";
};

/** A chat completion request as the server received it. */
export type ReceivedRequest = {
  model: string;
  messages: { role: string; content?: string | null; tool_calls?: unknown[] }[];
  tools?: unknown[];
  logprobs?: boolean;
  top_logprobs?: number;
  [key: string]: unknown;
};

/**
 * What the server answers to one request: a completion, an error, or a delayed answer. `body` is
 * sent as JSON; `raw` is sent byte for byte instead (an HTML page, an empty or truncated body),
 * with the content type `headers` give it, JSON's unless they say otherwise.
 */
export type Scripted = {
  status?: number;
  headers?: Record<string, string>;
  delayMs?: number;
} & ({ body: unknown; raw?: undefined } | { raw: string; body?: undefined });

/** Scripts the server: a fixed answer, or one computed from the request. */
export type Script = Scripted | ((request: ReceivedRequest, index: number) => Scripted);

/** A completion body in the real API's shape. */
export function completion(options: {
  content?: string | null;
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
  logprobs?: { token: string; logprob: number; top?: Record<string, number> }[];
  model?: string;
  completionTokens?: number;
  /** The choice's finish_reason (default: tool_calls with calls, else stop). */
  finishReason?: string;
}): Scripted {
  const toolCalls = (options.toolCalls ?? []).map((c, n) => ({
    id: c.id ?? `call_${n + 1}`,
    type: "function",
    function: {
      name: c.name,
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
    },
  }));
  return {
    body: {
      id: "chatcmpl-test",
      object: "chat.completion",
      created: 1_780_000_000,
      model: options.model ?? "test-model-0125",
      system_fingerprint: "fp_test",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: options.content ?? null,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: options.logprobs
            ? {
                content: options.logprobs.map((t) => ({
                  token: t.token,
                  logprob: t.logprob,
                  bytes: [...Buffer.from(t.token)],
                  top_logprobs: Object.entries(t.top ?? {}).map(([token, logprob]) => ({
                    token,
                    logprob,
                    bytes: [...Buffer.from(token)],
                  })),
                })),
                refusal: null,
              }
            : null,
          finish_reason: options.finishReason ?? (toolCalls.length > 0 ? "tool_calls" : "stop"),
        },
      ],
      usage: {
        prompt_tokens: 50,
        completion_tokens: options.completionTokens ?? options.logprobs?.length ?? 7,
        total_tokens: 57,
      },
    },
  };
}

/** An error body in the real API's shape, with its status and headers. */
export function apiError(
  status: number,
  message: string,
  headers: Record<string, string> = {},
): Scripted {
  const type =
    status === 429
      ? "rate_limit_exceeded"
      : status >= 500
        ? "server_error"
        : "invalid_request_error";
  return { status, headers, body: { error: { message, type, param: null, code: type } } };
}

/**
 * A small local OpenAI-compatible HTTP server for tests (no network model is reachable here): it
 * answers `POST /v1/chat/completions` with responses of the real API's shape, scripted per test,
 * and records every request it received.
 */
export class OpenAICompatibleServer {
  readonly requests: ReceivedRequest[] = [];
  /** Every embeddings request received. */
  readonly embeddingRequests: EmbeddingsRequest[] = [];
  #embed: (text: string) => number[] = () => [1, 0];
  readonly url: string;
  readonly #close: () => Promise<void>;
  #script: Script[] = [];
  #fallback: Script | null = null;

  private constructor(url: string, close: () => Promise<void>) {
    this.url = url;
    this.#close = close;
  }

  /** Starts a server on a free port of 127.0.0.1. */
  static async start(): Promise<OpenAICompatibleServer> {
    const app = new Hono();
    let server: OpenAICompatibleServer | null = null;
    app.get("/v1/models", (c) =>
      c.json({
        object: "list",
        data: [{ id: "test-model", object: "model", created: 0, owned_by: "test" }],
      }),
    );
    // Embeddings in the real API's shape: one vector per input, in order, from the test's function.
    app.post("/v1/embeddings", async (c) => {
      const request = (await c.req.json()) as EmbeddingsRequest;
      const self = server as OpenAICompatibleServer;
      self.embeddingRequests.push(request);
      const inputs = typeof request.input === "string" ? [request.input] : request.input;
      // As the real API: floats, or little-endian float32 bytes in base64 when asked for.
      const encoded = (vector: number[]) =>
        request.encoding_format === "base64"
          ? Buffer.from(new Float32Array(vector).buffer).toString("base64")
          : vector;
      const vectors = inputs.map((text) => encoded(self.#embed(text)));
      return c.json({
        object: "list",
        data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
        model: request.model,
        usage: { prompt_tokens: inputs.length, total_tokens: inputs.length },
      });
    });
    app.post("/v1/chat/completions", async (c) => {
      const request = (await c.req.json()) as ReceivedRequest;
      const self = server as OpenAICompatibleServer;
      self.requests.push(request);
      const script = self.#script.shift() ?? self.#fallback;
      if (!script)
        return c.json(
          apiError(500, "the test server has no scripted answer left").body as object,
          500,
        );
      const answer =
        typeof script === "function" ? script(request, self.requests.length - 1) : script;
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      return new Response(answer.raw ?? JSON.stringify(answer.body), {
        status: answer.status ?? 200,
        headers: { "content-type": "application/json", ...answer.headers },
      });
    });
    const http = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    const { port } = http.address() as AddressInfo;
    server = new OpenAICompatibleServer(
      `http://127.0.0.1:${port}/v1`,
      () => new Promise((resolve) => http.close(() => resolve())),
    );
    return server;
  }

  /** Queues answers, one per request, in order. */
  script(...answers: Script[]): this {
    this.#script.push(...answers);
    return this;
  }

  /** The answer for every request once the queue is empty. */
  otherwise(answer: Script): this {
    this.#fallback = answer;
    return this;
  }

  /** How `/v1/embeddings` turns each input into a vector. */
  embeddings(embed: (text: string) => number[]): this {
    this.#embed = embed;
    return this;
  }

  /** Forgets the script and the recorded requests. */
  reset(): void {
    this.#script = [];
    this.#fallback = null;
    this.requests.length = 0;
  }

  async close(): Promise<void> {
    await this.#close();
  }
}
