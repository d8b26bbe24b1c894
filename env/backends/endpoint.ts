import { type Backend, openAIBaseURL, runsHere } from "./backend.ts";

/** Names written for a server on this machine, one as good as another (a server on 0.0.0.0 answers on all). */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "0.0.0.0", "[::]"]);

/**
 * Where a backend is served, written one way so that one server spelled two ways compares equal:
 * the host in lower case with this machine's aliases as `localhost`, no default port (http 80,
 * https 443), no trailing slash, and an `openai` model without a URL at OpenAI's endpoint. Null for
 * what runs here and calls nothing (the offline roles, `typesafe:offline`) and for a backend that
 * names no server.
 */
export function endpointOf(backend: Backend): string | null {
  if (runsHere(backend)) return null;
  const raw = backend.baseURL ?? (backend.provider === "openai" ? openAIBaseURL() : null);
  if (raw === null) return null;
  // The WHATWG parser already lower-cases the host, drops default ports and canonicalises IP forms.
  const url = new URL(raw);
  const host = LOOPBACK.has(url.hostname) ? "localhost" : url.hostname;
  const port = url.port ? `:${url.port}` : "";
  return `${url.protocol}//${host}${port}${url.pathname.replace(/\/+$/, "")}${url.search}`;
}
