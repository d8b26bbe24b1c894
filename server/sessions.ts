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

/** Told when a session joins or leaves a table (a server on engine threads keeps its directory so). */
export interface SessionEvents {
  added(id: string): void;
  removed(id: string): void;
}

/**
 * The sessions the server holds, by id: at most `max` at once (a session whose connection
 * dropped keeps its slot until it is resumed or its idle TTL passes, so a leaked connection
 * frees its slot by itself). Tables on several engine threads share one count of the slots in
 * use, an `Int32Array` over shared memory, so `max` holds for the server as a whole.
 */
export class SessionTable {
  readonly max: number;
  readonly #sessions = new Map<string, Session>();
  readonly #shared: Int32Array | null;
  readonly #events: SessionEvents | null;

  constructor(max: number, options: { shared?: Int32Array; events?: SessionEvents } = {}) {
    this.max = max;
    this.#shared = options.shared ?? null;
    this.#events = options.events ?? null;
  }

  /** Adds a session made by `make`, or throws a {@link CapacityError} when every slot is taken. */
  add(make: () => Session): Session {
    this.#take();
    let session: Session;
    try {
      session = make();
    } catch (error) {
      this.#give();
      throw error;
    }
    this.#sessions.set(session.id, session);
    this.#events?.added(session.id);
    return session;
  }

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /** Forgets a session: closed by its client, or expired. */
  remove(session: Session): void {
    if (this.#sessions.delete(session.id)) this.#forgot(session.id);
  }

  /** Forgets sessions left without a connection for longer than `ttlMs`; returns how many. */
  sweep(ttlMs: number, now = performance.now()): number {
    let dropped = 0;
    for (const session of this.#sessions.values())
      if (session.connection === null && now - session.lastActive > ttlMs) {
        this.#sessions.delete(session.id);
        this.#forgot(session.id);
        dropped++;
      }
    return dropped;
  }

  /** Sessions this table holds. */
  get size(): number {
    return this.#sessions.size;
  }

  /** Slots in use on the whole server: this table's, and those of the tables it shares a count with. */
  get active(): number {
    return this.#shared ? Atomics.load(this.#shared, 0) : this.#sessions.size;
  }

  /** Sessions waiting for a resume. */
  get detached(): number {
    let n = 0;
    for (const session of this.#sessions.values()) if (session.connection === null) n++;
    return n;
  }

  /** Takes a slot, or throws when none is free. */
  #take(): void {
    if (!this.#shared) {
      if (this.#sessions.size >= this.max) throw new CapacityError(this.#sessions.size, this.max);
      return;
    }
    const before = Atomics.add(this.#shared, 0, 1);
    if (before >= this.max) {
      Atomics.sub(this.#shared, 0, 1);
      // Another thread may be taking a slot at this instant too: the count it saw can pass max.
      throw new CapacityError(Math.min(before, this.max), this.max);
    }
  }

  #give(): void {
    if (this.#shared) Atomics.sub(this.#shared, 0, 1);
  }

  #forgot(id: string): void {
    this.#give();
    this.#events?.removed(id);
  }
}
