import { describe, expect, it } from "vitest";
import { Outbox } from "../../server/outbox.ts";

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
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["a", "b"]);
    // A later turn is flushed on its own.
    outbox.add(b);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toEqual(["a", "b", "b"]);
  });
});
