/** A connection with replies waiting to go out. */
export interface Flushable {
  /** Sends its waiting replies, in order. */
  flush(): void;
}

/**
 * Replies held until the frames that arrived in this turn of the event loop are answered, then
 * sent together. A client asleep on its sockets is then woken once for the lot instead of once a
 * reply, and on loopback the wake-up is most of what a write costs: the server's share of `writev`
 * fell from a quarter of its time to a sixteenth at 64 sessions (bench/server.ts).
 */
export class Outbox {
  readonly #waiting = new Set<Flushable>();

  /** Marks `connection` as having replies to send at the end of this turn. */
  add(connection: Flushable): void {
    if (this.#waiting.size === 0) setImmediate(() => this.#flush());
    this.#waiting.add(connection);
  }

  #flush(): void {
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const connection of waiting) connection.flush();
  }
}
