import type { Session } from "./session.ts";

/** Raised when a new session would pass the server's maximum (OpenEnv's CAPACITY_REACHED). */
export class CapacityError extends Error {
  override name = "CapacityError";
  constructor(
    readonly active: number,
    readonly max: number,
  ) {
    super(`Server at capacity: ${active} of ${max} sessions in use; try again later`);
  }
}

/**
 * The sessions the server holds, by id: at most `max` at once (a session whose connection
 * dropped keeps its slot until it is resumed or its idle TTL passes, so a leaked connection
 * frees its slot by itself).
 */
export class SessionTable {
  readonly max: number;
  readonly #sessions = new Map<string, Session>();

  constructor(max: number) {
    this.max = max;
  }

  /** Adds a session made by `make`, or throws a {@link CapacityError} when every slot is taken. */
  add(make: () => Session): Session {
    if (this.#sessions.size >= this.max) throw new CapacityError(this.#sessions.size, this.max);
    const session = make();
    this.#sessions.set(session.id, session);
    return session;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Forgets a session: closed by its client, or expired. */
  remove(session: Session): void {
    this.#sessions.delete(session.id);
  }

  /** Forgets sessions left without a connection for longer than `ttlMs`; returns how many. */
  sweep(ttlMs: number, now = performance.now()): number {
    let dropped = 0;
    for (const session of this.#sessions.values())
      if (session.connection === null && now - session.lastActive > ttlMs) {
        this.#sessions.delete(session.id);
        dropped++;
      }
    return dropped;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions waiting for a resume. */
  get detached(): number {
    let n = 0;
    for (const session of this.#sessions.values()) if (session.connection === null) n++;
    return n;
  }
}
