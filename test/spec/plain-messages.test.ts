import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import {
  AssistantMessageSchema,
  ClientMessageSchema,
  plainAssistantMessage,
  plainStepMessage,
} from "../../spec/index.ts";

/** JSON text of a value with its keys in the order they were made: equal texts, equal objects. */
const text = (value: unknown) => JSON.stringify(value);

const word = fc.constantFrom(
  "",
  "x",
  "call_1",
  "get_order",
  "{}",
  '{"a":1}',
  "assistant",
  "function",
);
const extra = fc.constantFrom(undefined, 1, null, "x", [], {});
/** Mostly the usual value, now and then a wrong one. */
const near = <T>(usual: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 8, arbitrary: usual }, { weight: 1, arbitrary: fc.oneof(word, extra) });
/** An object of these members, each one now and then left out, now and then with another member. */
function shape(members: Record<string, fc.Arbitrary<unknown>>) {
  return fc
    .tuple(
      fc.record(members),
      fc.array(fc.constantFrom(...Object.keys(members)), { maxLength: 1 }),
      fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: extra }),
    )
    .map(([object, dropped, added]) => {
      const out: Record<string, unknown> = { ...object };
      for (const key of dropped) delete out[key];
      if (added !== undefined) out.extra = added;
      return out;
    });
}
const call = shape({
  id: near(fc.constantFrom("call_1", "c")),
  type: near(fc.constant("function")),
  function: near(
    shape({
      name: near(fc.constantFrom("get_order", "x")),
      arguments: near(fc.constantFrom("{}", "")),
    }),
  ),
});
/** Assistant messages near the usual shape: any member may be missing, wrong or joined by another. */
const message = shape({
  role: near(fc.constant("assistant")),
  content: near(fc.oneof(word, fc.constant(null))),
  tool_calls: near(fc.array(call, { maxLength: 3 })),
});

/**
 * Over 5,000 values: each one `plain` reads is one the schema takes, read into the same object (key
 * order included); and the values reach the usual shape often enough for that to mean something.
 */
function agreesWithSchema<T extends Record<string, unknown>>(
  values: fc.Arbitrary<T>,
  plain: (value: T) => unknown,
  schema: z.ZodType,
): void {
  let read = 0;
  fc.assert(
    fc.property(values, (value) => {
      const fast = plain(value);
      if (fast === null) return;
      read++;
      const parsed = schema.safeParse(value);
      expect(parsed.success).toBe(true);
      expect(text(fast)).toBe(text(parsed.data));
      expect(fast).toEqual(parsed.data);
    }),
    { numRuns: 5000 },
  );
  expect(read).toBeGreaterThan(50);
}

describe("plainAssistantMessage", () => {
  it("returns what the schema returns, or leaves the message to the schema", () => {
    agreesWithSchema(message, plainAssistantMessage, AssistantMessageSchema);
  });

  it("reads the usual messages itself, copying them", () => {
    const asked = { role: "assistant", content: "Which order?" };
    const called = {
      content: null,
      role: "assistant",
      tool_calls: [
        { function: { arguments: "{}", name: "get_order" }, type: "function", id: "c1" },
      ],
    };
    expect(plainAssistantMessage(asked)).toEqual(asked);
    const read = plainAssistantMessage(called);
    expect(text(read)).toBe(text(AssistantMessageSchema.parse(called)));
    expect(read?.tool_calls?.[0]).not.toBe(called.tool_calls[0]);
    expect(plainAssistantMessage({ role: "assistant", content: "" })).toBeNull();
    expect(plainAssistantMessage({ ...asked, logprob: -1 })).toBeNull();
  });
});

describe("plainStepMessage", () => {
  const frame = shape({
    type: near(fc.constant("step")),
    data: near(shape({ message: near(message) })),
    id: fc.oneof(word, fc.integer(), fc.double(), fc.string({ minLength: 120, maxLength: 140 })),
  });

  it("returns what the envelope's schema returns, or leaves the frame to it", () => {
    agreesWithSchema(frame, plainStepMessage, ClientMessageSchema);
  });

  it("reads the usual step itself", () => {
    const step = { type: "step", data: { message: { role: "assistant", content: "hi" } }, id: 7 };
    expect(plainStepMessage(step)).toEqual(step);
    expect(plainStepMessage({ type: "step", data: { message: {} } })).not.toBeNull();
    expect(plainStepMessage({ type: "reset" })).toBeNull();
  });
});
