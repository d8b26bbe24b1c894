import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Whether a request carries the server's token, compared in constant time: `Authorization:
 * Bearer <token>`, or `Authorization: Basic` with the token as the password (what a client sends
 * for a URL such as `ws://rehearse:<token>@host:8000`, which OpenEnv's GenericEnvClient passes
 * through unchanged). Tokens in the query string are not read: URLs end up in logs.
 */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  const given = presented(authorization ?? "");
  // Digests have one length, so the comparison takes the same time whatever was sent.
  const expected = createHash("sha256").update(token).digest();
  const actual = createHash("sha256")
    .update(given ?? "")
    .digest();
  return timingSafeEqual(expected, actual) && given !== null;
}

/** The token an Authorization header presents, or null. */
function presented(header: string): string | null {
  const space = header.indexOf(" ");
  if (space < 0) return null;
  const scheme = header.slice(0, space).toLowerCase();
  const value = header.slice(space + 1).trim();
  if (scheme === "bearer") return value;
  if (scheme !== "basic") return null;
  const decoded = Buffer.from(value, "base64").toString();
  const colon = decoded.indexOf(":");
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * A session's step allowance: a token bucket holding `rate` steps that refills at `rate` a second,
 * so a burst of a second's worth passes and a sustained flood is paced.
 */
export class StepBucket {
  readonly #rate: number;
  #tokens: number;
  #at: number;

  constructor(rate: number, now = performance.now()) {
    this.#rate = rate;
    this.#tokens = rate;
    this.#at = now;
  }

  /** Takes one step's allowance; returns 0 when granted, else the milliseconds until one is. */
  take(now = performance.now()): number {
    this.#tokens = Math.min(this.#rate, this.#tokens + ((now - this.#at) / 1000) * this.#rate);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.#rate) * 1000);
  }
}
