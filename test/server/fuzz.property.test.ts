import fc from "fast-check";
import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServerHandle, serve } from "../../server/index.ts";
import { RawSocket } from "./harness.ts";

const packr = new Packr({ useRecords: false });
const MAX_FRAME = 8192;

/** Types that keep the connection open whatever their data (`close` and `resume` end it by design). */
const TYPES = ["reset", "step", "state", "reward", "jump", "", "STEP", "observation", "error"];

const message = fc.oneof(
  { arbitrary: fc.record({ role: fc.constant("assistant"), content: fc.string() }), weight: 3 },
  {
    arbitrary: fc.record({
      role: fc.constant("assistant"),
      content: fc.constantFrom(null, ""),
      tool_calls: fc.array(
        fc.record({
          id: fc.string({ maxLength: 8 }),
          type: fc.constant("function"),
          function: fc.record({
            name: fc.constantFrom("get_order", "cancel_order", "nope", ""),
            arguments: fc.oneof(fc.json(), fc.string()),
          }),
        }),
        { maxLength: 3 },
      ),
    }),
    weight: 2,
  },
  { arbitrary: fc.anything(), weight: 1 },
);

/** A frame as a client might send it: well-formed, half-formed, or junk; text or binary. */
const frame = fc.oneof(
  fc.record({
    type: fc.constantFrom(...TYPES),
    data: fc.option(fc.anything(), { nil: undefined }),
  }),
  fc.record({
    type: fc.constant("step"),
    data: fc.record({ message }),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 12 })),
  }),
  fc.record({
    type: fc.constant("reset"),
    data: fc.record(
      {
        seed: fc.oneof(fc.integer({ min: -5, max: 2 ** 33 }), fc.string()),
        task_id: fc.string({ maxLength: 20 }),
        split: fc.constantFrom("train", "eval", "holdout", "test"),
        episode_id: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: [] },
    ),
  }),
  fc.anything(),
  fc.string({ maxLength: 200 }),
  fc.uint8Array({ maxLength: 200 }),
  fc.constant("x".repeat(MAX_FRAME + 1)),
);

/** The frame's bytes and whether it goes as binary (MessagePack for values). */
function bytesOf(value: unknown, binary: boolean): { data: string | Buffer; binary: boolean } {
  if (value instanceof Uint8Array) return { data: Buffer.from(value), binary: true };
  if (typeof value === "string") return { data: value, binary };
  if (binary) {
    try {
      return { data: packr.pack(value), binary: true };
    } catch {
      return { data: Buffer.from([0xc1]), binary: true };
    }
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  return { data: text ?? "{", binary: false };
}

// Once with the episodes on the main thread, once on two engine threads that the main thread relays to.
describe.each([0, 2])("random and malformed frames (fast-check), %i engine threads", (threads) => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await serve("examples/retail-orders.json", {
      port: 0,
      rows: 8,
      maxFrameBytes: MAX_FRAME,
      stepRate: 1e6,
      threads,
    });
  });
  afterAll(() => server.close());

  it("answers every frame with one reply, never crashes, and the socket stays usable", async () => {
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(frame, fc.boolean()), { minLength: 1, maxLength: 25 }),
        async (frames) => {
          const socket = await RawSocket.open(server.wsUrl);
          try {
            for (const [value, binary] of frames) {
              const { data, binary: asBinary } = bytesOf(value, binary);
              socket.send(data, asBinary);
              const reply = await socket.next(5000);
              expect(["observation", "state", "reward", "error"]).toContain(reply.type);
              const kind = reply.type === "error" ? reply.data.code : reply.type;
              seen.set(kind, (seen.get(kind) ?? 0) + 1);
              if (reply.type === "error")
                expect(reply.data.code).toMatch(
                  /^(INVALID_JSON|UNKNOWN_TYPE|VALIDATION_ERROR|EXECUTION_ERROR)$/,
                );
            }
            const state = await socket.ask({ type: "state" });
            expect(state.type).toBe("state");
            const reset = await socket.ask({ type: "reset" }, true);
            expect(reset.type).toBe("observation");
            expect(socket.closeCode).toBeNull();
          } finally {
            socket.close();
          }
        },
      ),
      { numRuns: 60, seed: 1414 },
    );
    // The frames reached every branch: episodes ran, and each per-message error was met.
    for (const kind of [
      "observation",
      "state",
      "INVALID_JSON",
      "UNKNOWN_TYPE",
      "VALIDATION_ERROR",
      "EXECUTION_ERROR",
    ])
      expect(seen.get(kind) ?? 0).toBeGreaterThan(0);
    const health = await fetch(`${server.url}/health`);
    expect(await health.json()).toEqual({ status: "healthy" });
  });
});
