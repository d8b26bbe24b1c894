import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { Episode } from "../../env/index.ts";
import { Connection, type ConnectionContext } from "../../server/connection.ts";
import { Metrics } from "../../server/metrics.ts";
import { Outbox } from "../../server/outbox.ts";
import { SessionTable } from "../../server/sessions.ts";

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A socket that records what is sent, or throws on send when `broken`. */
class FakeSocket extends EventEmitter {
  readyState = 1;
  readonly bufferedAmount = 0;
  sent: string[] = [];
  terminated = false;
  constructor(readonly broken = false) {
    super();
  }
  send(frame: string): void {
    if (this.broken) throw new Error("the socket is gone");
    this.sent.push(frame);
  }
  terminate(): void {
    this.terminated = true;
    this.readyState = 3;
  }
  close(): void {
    this.readyState = 2;
  }
}

describe("Outbox", () => {
  it("sends each connection's replies once, at the end of the turn, in the order they were marked", async () => {
    const outbox = new Outbox();
    const sent: string[] = [];
    const connection = (name: string) => ({ flush: () => sent.push(name) });
    const a = connection("a");
    const b = connection("b");
    outbox.add(a);
    outbox.add(b);
    outbox.add(a);
    // Nothing goes out while this turn's frames are still being answered.
    await Promise.resolve();
    expect(sent).toEqual([]);
    await turn();
    expect(sent).toEqual(["a", "b"]);
    // A later turn is flushed on its own.
    outbox.add(b);
    await turn();
    expect(sent).toEqual(["a", "b", "b"]);
  });

  it("drops a socket that cannot take its replies, and the other connections still get theirs", async () => {
    const context: ConnectionContext = {
      table: new SessionTable(4),
      metrics: new Metrics(),
      maxFrameBytes: 1 << 16,
      stepRate: 1e6,
      hooks: { finished: () => {} },
      outbox: new Outbox(),
      newEpisode: () => ({}) as Episode,
      draining: false,
    };
    const broken = new FakeSocket(true);
    const working = new FakeSocket();
    new Connection(broken as never, context);
    new Connection(working as never, context);
    const state = Buffer.from(JSON.stringify({ type: "state", id: 1 }));
    broken.emit("message", state, false);
    working.emit("message", state, false);
    working.emit("message", Buffer.from(JSON.stringify({ type: "state", id: 2 })), false);
    await turn();
    await turn();
    expect(broken.terminated).toBe(true);
    expect(working.sent.map((frame) => JSON.parse(frame).id)).toEqual([1, 2]);
  });
});
