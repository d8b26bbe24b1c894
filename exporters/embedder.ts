import OpenAI from "openai";
import { BackendError, InputError, messageOf, parseBackend } from "../env/index.ts";
import type { BackendSpec } from "../spec/index.ts";

/** Turns texts into vectors, one per text, in order. */
export type Embedder = (texts: string[]) => Promise<number[][]>;

/**
 * An embedder from a function (used as given) or a backend spec naming an OpenAI-compatible
 * embeddings endpoint (`openai:text-embedding-3-small`, `<model>@http://127.0.0.1:8000/v1`, or the
 * object form): `POST <base-url>/embeddings` through the `openai` package, with the backend's
 * timeout and retries, keyed like every other backend.
 */
export function embedderOf(spec: Embedder | BackendSpec): Embedder {
  if (typeof spec === "function") return checked(spec, "the embedder function");
  const backend = parseBackend(spec, "embedder");
  if (backend.provider === "offline" || backend.provider === "typesafe")
    throw new InputError("embedder backend", [
      {
        path: "embedder",
        message: `${backend.name} is no embeddings endpoint; expected "openai:<model>", "<model>@<base-url>" or an object with provider openai or openai-compatible`,
      },
    ]);
  const keyEnv = backend.apiKeyEnv ?? "OPENAI_API_KEY";
  const key = process.env[keyEnv];
  if (!key && (backend.provider === "openai" || backend.apiKeyEnv))
    throw new InputError("embedder backend", [
      {
        path: "embedder",
        message: `${backend.name} needs an API key in the environment variable ${keyEnv}`,
      },
    ]);
  const client = new OpenAI({
    // A local OpenAI-compatible server usually takes any key.
    apiKey: key ?? "no-key",
    ...(backend.baseURL ? { baseURL: backend.baseURL } : {}),
    timeout: backend.timeoutMs,
    maxRetries: backend.maxRetries,
  });
  const call: Embedder = async (texts) => {
    try {
      const reply = await client.embeddings.create({
        model: backend.model,
        input: texts,
        // Plain numbers: many OpenAI-compatible servers do not speak the base64 form the client prefers.
        encoding_format: "float",
      });
      return [...reply.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
    } catch (error) {
      throw new BackendError(backend.name, `embeddings call failed: ${messageOf(error)}`);
    }
  };
  return checked(call, backend.name);
}

/** Wraps an embedder so that a reply of the wrong shape is a named failure, not NaN similarities. */
function checked(embed: Embedder, name: string): Embedder {
  return async (texts) => {
    const vectors = await embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length)
      throw new BackendError(
        name,
        `expected ${texts.length} vectors, one per text, got ${Array.isArray(vectors) ? vectors.length : typeof vectors}`,
      );
    for (const [i, vector] of vectors.entries())
      if (!Array.isArray(vector) || vector.length === 0 || !vector.every(Number.isFinite))
        throw new BackendError(name, `vector ${i} is not a non-empty list of finite numbers`);
    return vectors;
  };
}

/** A vector scaled to length 1 (all zeros stays zeros: it is similar to nothing). */
export function unit(vector: readonly number[]): Float64Array {
  const out = Float64Array.from(vector);
  let norm = 0;
  for (const x of out) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) / norm;
  return out;
}
