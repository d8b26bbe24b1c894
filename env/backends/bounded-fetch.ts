/** The most bytes a model server's reply may take: far above any chat completion, far below what would take the process down. */
export const MAX_REPLY_BYTES = 64 << 20;

/**
 * `fetch` for a model server that must not hold the caller: one deadline over the whole call,
 * body included (a body that never ends, or trickles a byte a second, is cut at the deadline),
 * and a cap on the reply's bytes as decoded (a gzip bomb stops at the cap too). The body is read
 * whole before it is handed on, and a wait the server asks for (`retry-after`, `retry-after-ms`)
 * is held to the deadline.
 */
export function boundedFetch(
  timeoutMs: number,
  maxBytes: number = MAX_REPLY_BYTES,
  inner: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await inner(input, { ...init, signal });
    const body = await readCapped(response, maxBytes);
    const headers = new Headers(response.headers);
    // The bytes handed on are decoded already, and their length is their own.
    headers.delete("content-encoding");
    headers.delete("content-length");
    holdRetryAfter(headers, timeoutMs);
    // These statuses take no body (the Response constructor refuses one).
    const bodiless = [101, 204, 205, 304].includes(response.status);
    return new Response(bodiless ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/** A reply's body, read whole; past `maxBytes` the reading stops and the call fails, naming the cap. */
export async function readCapped(response: Response, maxBytes: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new Error(`the reply is over ${maxBytes} bytes: it was cut off unread`);
    }
    chunks.push(value);
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  return body;
}

/** Holds a server's `retry-after` (seconds or a date) and `retry-after-ms` to at most `ms`. */
function holdRetryAfter(headers: Headers, ms: number): void {
  const millis = headers.get("retry-after-ms");
  if (millis !== null && !(Number(millis) <= ms)) headers.set("retry-after-ms", String(ms));
  const after = headers.get("retry-after");
  if (after === null) return;
  const seconds = /^\s*\d+(\.\d+)?\s*$/.test(after)
    ? Number(after)
    : (Date.parse(after) - Date.now()) / 1000;
  if (!(seconds * 1000 <= ms))
    headers.set("retry-after", String(Math.max(0, Math.floor(ms / 1000))));
}
