import { z } from "zod";
import { LIMITS, wholeBetween } from "./options.ts";

/** Who serves a model: the offline roles, OpenAI, any OpenAI-compatible server, or a decision model. */
export const ProviderSchema = z.enum(["offline", "openai", "openai-compatible", "typesafe"]);

/** A backend written out as an object: the same fields every role accepts. */
export const BackendObjectSchema = z.object({
  provider: ProviderSchema,
  model: z.string().min(1, "expected the model's name").optional(),
  baseURL: z.url({ error: "expected an http(s) URL such as http://127.0.0.1:8000/v1" }).optional(),
  apiKeyEnv: z
    .string()
    .regex(
      /^[A-Z_][A-Z0-9_]*$/,
      "expected the name of an environment variable, such as OPENAI_API_KEY",
    )
    .optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  max_tokens: z.int().min(1).optional(),
  seed: z.int().optional(),
  /** Per-call timeout in milliseconds (default 60000). */
  timeout_ms: wholeBetween(
    1,
    "expected at least 1 ms (a whole number)",
    LIMITS.backendTimeoutMs,
    `expected at most ${LIMITS.backendTimeoutMs} ms`,
  ).optional(),
  /** Retries on 429 and 5xx, with backoff that honours retry-after (default 2). */
  max_retries: wholeBetween(
    0,
    "expected 0 or more retries (a whole number)",
    LIMITS.backendRetries,
    `expected at most ${LIMITS.backendRetries} retries`,
  ).optional(),
  /** Calls in flight at once to this backend (default 8). */
  concurrency: wholeBetween(
    1,
    "expected at least 1 call at once (a whole number)",
    LIMITS.concurrency,
    `expected at most ${LIMITS.concurrency} calls at once`,
  ).optional(),
});
export type BackendObject = z.infer<typeof BackendObjectSchema>;

/**
 * A backend for any role: `offline`, `openai:<model>`, `<model>@<base-url>` (vLLM, Ollama,
 * llama.cpp, LiteLLM…), a decision judge (`typesafe:<model>@<base-url>`, `typesafe:openai:<model>`,
 * `typesafe:offline`), or an object.
 */
export const BackendSpecSchema = z.union([z.string().min(1), BackendObjectSchema]);
export type BackendSpec = z.infer<typeof BackendSpecSchema>;
