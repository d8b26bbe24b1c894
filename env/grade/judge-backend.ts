import type { BackendSpec } from "../../spec/index.ts";
import { type Backend, parseBackend, runsHere } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { InputError } from "../util/errors.ts";

/**
 * A judge ready to ask: a chat model, or a decision model (`typesafe:`), whose client is null when
 * it is the offline decision model, which runs here and calls nothing.
 */
export type OpenJudge =
  | { kind: "chat"; backend: Backend; client: ChatClient }
  | { kind: "decision"; backend: Backend; client: ChatClient | null };

/** Which judge to ask: a backend spec (with a fetch for tests or proxies), or a judge already open. */
export type JudgeChoice = { spec: BackendSpec; fetch?: typeof fetch } | OpenJudge;

/** What a judge function takes, checked before any client is made. */
export interface JudgeUse {
  /** What an InputError calls the input (`judge`, `grade options`). */
  what: string;
  /** The rubric the caller gave, if any: the offline decision model reads none, so it is refused there. */
  rubric?: unknown;
  /** Why this function refuses a backend (its `spec` field), or null when it takes it. */
  refuse?: (backend: Backend) => string | null;
}

/**
 * Opens a judge, refusing before any call what cannot judge here: the offline roles (programs that
 * play a person or an agent), a backend the function refuses, and a rubric given to the offline
 * decision model, which would ignore it.
 */
export function openJudge(choice: JudgeChoice, use: JudgeUse): OpenJudge {
  const backend = "kind" in choice ? choice.backend : parseBackend(choice.spec, "judge");
  const refused =
    backend.provider === "offline"
      ? 'the offline roles do not judge; use "typesafe:offline" for the offline decision model, or a chat model'
      : (use.refuse?.(backend) ?? null);
  if (refused !== null) throw new InputError(use.what, [{ path: "spec", message: refused }]);
  if (use.rubric !== undefined && backend.name === "typesafe:offline")
    throw new InputError(use.what, [
      {
        path: "rubric",
        message:
          "typesafe:offline decides from the conduct checks' evidence and reads no rubric; leave rubric out, or judge with a served model",
      },
    ]);
  if ("kind" in choice) return choice;
  const options = choice.fetch ? { fetch: choice.fetch } : {};
  if (backend.provider !== "typesafe")
    return { kind: "chat", backend, client: new ChatClient(backend, "judge", options) };
  return {
    kind: "decision",
    backend,
    client: runsHere(backend) ? null : new ChatClient(backend, "judge", options),
  };
}
