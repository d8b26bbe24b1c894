import { type BackendObject, BackendObjectSchema, type BackendSpec } from "../../spec/index.ts";
import { InputError, issuesOf } from "../util/errors.ts";

/** A parsed backend: where the model is served and how it is called. */
export interface Backend {
  provider: "offline" | "openai" | "openai-compatible" | "typesafe";
  model: string;
  baseURL?: string;
  apiKeyEnv?: string;
  sampling: { temperature?: number; top_p?: number; max_tokens?: number; seed?: number };
  timeoutMs: number;
  maxRetries: number;
  concurrency: number;
  /** How rows name it: `offline`, `openai:gpt-4.1`, `qwen2.5-7b@http://127.0.0.1:8000/v1`, `typesafe:offline`. */
  name: string;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_BACKEND_CONCURRENCY = 8;

/** OpenAI's own endpoint: where `openai:<model>` is served unless OPENAI_BASE_URL says otherwise. */
export const OPENAI_ENDPOINT = "https://api.openai.com/v1";

/** Where the `openai` package sends a call made without a base URL (it reads OPENAI_BASE_URL the same way). */
export function openAIBaseURL(): string {
  return process.env.OPENAI_BASE_URL?.trim() || OPENAI_ENDPOINT;
}

const FORMS =
  '"offline", "openai:<model>", "<model>@<base-url>" or a decision model ("typesafe:<model>@<base-url>", "typesafe:openai:<model>", "typesafe:offline"), or an object {provider, model, baseURL, apiKeyEnv, temperature, top_p, max_tokens, seed}';

/**
 * Parses a backend spec for a role; an unparseable one is an error naming the role and the accepted
 * forms. A decision model reads logprobs from a server, so `typesafe:` must name one: its URL
 * (`typesafe:<model>@<base-url>`, or `baseURL` in the object form), or OpenAI's endpoint
 * (`typesafe:openai:<model>`, keyed by OPENAI_API_KEY); only `typesafe:offline` runs here.
 */
export function parseBackend(spec: BackendSpec | undefined, role: string): Backend {
  if (spec === undefined || spec === "offline") return offline();
  if (typeof spec === "string") return fromString(spec, role);
  const parsed = BackendObjectSchema.safeParse(spec);
  if (!parsed.success) throw new InputError(`${role} backend`, issuesOf(parsed.error, spec));
  return fromObject(parsed.data, role);
}

function fromString(spec: string, role: string): Backend {
  const typesafe = /^typesafe:(.+)$/.exec(spec);
  if (typesafe) return decisionModel(typesafe[1] as string, role);
  const openai = /^openai:(.+)$/.exec(spec);
  if (openai) return finish({ provider: "openai", model: openai[1] as string }, spec);
  const served = /^([^@\s]+)@(https?:\/\/\S+)$/.exec(spec);
  if (served) {
    const baseURL = urlOf(served[2] as string, role);
    return finish(
      { provider: "openai-compatible", model: served[1] as string, baseURL },
      `${served[1]}@${baseURL}`,
    );
  }
  throw new InputError(`${role} backend`, [
    { path: role, message: `"${spec}" is not a backend; expected ${FORMS}` },
  ]);
}

/** `typesafe:<inner>`: the offline decision model, one at OpenAI's endpoint, or one at a URL; nothing else. */
function decisionModel(inner: string, role: string): Backend {
  if (inner === "offline") return { ...offline(), provider: "typesafe", name: "typesafe:offline" };
  const openai = /^openai:([^@\s]+)$/.exec(inner);
  if (openai)
    return finish(
      {
        provider: "typesafe",
        model: openai[1] as string,
        baseURL: openAIBaseURL(),
        apiKeyEnv: "OPENAI_API_KEY",
      },
      `typesafe:${inner}`,
    );
  const served = /^([^@\s]+)@(https?:\/\/\S+)$/.exec(inner);
  if (served) {
    const baseURL = urlOf(served[2] as string, role);
    return finish(
      { provider: "typesafe", model: served[1] as string, baseURL },
      `typesafe:${served[1]}@${baseURL}`,
    );
  }
  throw new InputError(`${role} backend`, [
    {
      path: role,
      message: `"typesafe:${inner}" names no server to read logprobs from; expected "typesafe:<model>@<base-url>" (an OpenAI-compatible server), "typesafe:openai:<model>" (OpenAI's endpoint) or "typesafe:offline"`,
    },
  ]);
}

/** A base URL from a spec string, without trailing slashes; one that does not parse is refused here, not at the first call. */
function urlOf(url: string, role: string): string {
  if (!URL.canParse(url))
    throw new InputError(`${role} backend`, [
      {
        path: role,
        message: `"${url}" is not a URL; expected one such as http://127.0.0.1:8000/v1`,
      },
    ]);
  return url.replace(/\/+$/, "");
}

function fromObject(spec: BackendObject, role: string): Backend {
  if (spec.provider === "offline") return offline();
  if (!spec.model)
    throw new InputError(`${role} backend`, [
      {
        path: `${role}.model`,
        message: `expected the model's name for provider "${spec.provider}"`,
      },
    ]);
  if (spec.provider === "typesafe" && spec.model === "offline" && !spec.baseURL)
    return decisionModel("offline", role);
  if ((spec.provider === "openai-compatible" || spec.provider === "typesafe") && !spec.baseURL) {
    throw new InputError(`${role} backend`, [
      {
        path: `${role}.baseURL`,
        message: `expected the server's URL for provider "${spec.provider}", such as http://127.0.0.1:8000/v1${spec.provider === "typesafe" ? ` (${OPENAI_ENDPOINT} for OpenAI's), where the decision model's logprobs are read` : ""}`,
      },
    ]);
  }
  const baseURL = spec.baseURL?.replace(/\/+$/, "");
  const name =
    spec.provider === "openai-compatible"
      ? `${spec.model}@${baseURL}`
      : `${spec.provider}:${spec.model}${baseURL && spec.provider !== "openai" ? `@${baseURL}` : ""}`;
  return finish({ ...spec, model: spec.model, ...(baseURL ? { baseURL } : {}) }, name);
}

function finish(spec: BackendObject & { model: string }, name: string): Backend {
  if (spec.baseURL && URL.canParse(spec.baseURL)) {
    const url = new URL(spec.baseURL);
    // fetch refuses such a URL at every call ("Connection error."), and rows would show the password.
    if (url.username !== "" || url.password !== "")
      throw new InputError("backend", [
        {
          path: "baseURL",
          message: `${spec.model}'s base URL holds a user name or password, which no call can send: give the key in the environment variable its apiKeyEnv names (OPENAI_API_KEY by default)`,
        },
      ]);
  }
  const sampling: Backend["sampling"] = {};
  if (spec.temperature !== undefined) sampling.temperature = spec.temperature;
  if (spec.top_p !== undefined) sampling.top_p = spec.top_p;
  if (spec.max_tokens !== undefined) sampling.max_tokens = spec.max_tokens;
  if (spec.seed !== undefined) sampling.seed = spec.seed;
  return {
    provider: spec.provider,
    model: spec.model,
    ...(spec.baseURL ? { baseURL: spec.baseURL } : {}),
    ...(spec.apiKeyEnv ? { apiKeyEnv: spec.apiKeyEnv } : {}),
    sampling,
    timeoutMs: spec.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    maxRetries: spec.max_retries ?? DEFAULT_MAX_RETRIES,
    concurrency: spec.concurrency ?? DEFAULT_BACKEND_CONCURRENCY,
    name,
  };
}

/** Whether a backend is a program that runs here and calls nothing: the offline roles, `typesafe:offline`. */
export function runsHere(backend: Backend): boolean {
  return backend.provider === "offline" || backend.name === "typesafe:offline";
}

function offline(): Backend {
  return {
    provider: "offline",
    model: "offline",
    sampling: {},
    timeoutMs: DEFAULT_TIMEOUT_MS,
    maxRetries: 0,
    concurrency: 1,
    name: "offline",
  };
}

/** Names a model family goes by, in model ids from hubs, fine-tunes and quantizers. */
const FAMILIES: [family: string, pattern: RegExp][] = [
  // First: DeepSeek's distills of other bases write like DeepSeek, whose outputs they learned from.
  ["deepseek", /deepseek/],
  ["gpt", /^(ft:)?(gpt|chatgpt|o\d+)(\b|-|$)|davinci|babbage/],
  ["qwen", /qwen|qwq/],
  ["llama", /llama|vicuna|tulu/],
  ["mistral", /mistral|ministral|mixtral|codestral|magistral|devstral|pixtral/],
  ["phi", /(^|[^a-z])phi-?\d/],
  ["gemma", /gemma/],
  ["gemini", /gemini/],
  ["claude", /claude/],
  ["command", /command-?r|\bcohere\b|\baya\b/],
  ["granite", /granite/],
  ["olmo", /olmo/],
  ["yi", /(^|[^a-z])yi-/],
  ["glm", /glm/],
  ["kimi", /kimi|moonshot/],
  ["nemotron", /nemotron/],
];

/**
 * The family a model belongs to, from its name wherever the family appears in it:
 * gpt-4.1-mini and ft:gpt-4o:acme → gpt, Qwen/Qwen2.5-7B-Instruct and bartowski/qwq-32b → qwen.
 */
export function familyOf(model: string): string {
  const name = model.toLowerCase();
  const base = name.split("/").at(-1) as string;
  // The model's own name decides before its publisher's ("meta-llama/…", "mistralai/…").
  for (const text of [base, name])
    for (const [family, pattern] of FAMILIES) if (pattern.test(text)) return family;
  return base.replace(/^ft:/, "").split(/[-_:.\d]/)[0] || base;
}

/**
 * The warning for a judge of the agent's family, or null: a judge prefers its own family's writing.
 * `agent` is the agent as rows name it (`openai:gpt-4.1`, `qwen2.5-7b@http://…`) or a model id.
 */
export function familyWarning(judge: Backend, agent: string): string | null {
  if (runsHere(judge) || agent === "offline") return null;
  const model = agent.replace(/^openai:/, "").replace(/@https?:\/\/.*$/, "");
  const family = familyOf(model);
  if (family !== familyOf(judge.model)) return null;
  return `the judge ${judge.name} is of the agent's family (${family}, agent ${agent}): a judge prefers its own family's writing; judge with a model of another family`;
}
