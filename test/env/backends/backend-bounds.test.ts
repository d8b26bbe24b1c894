import { describe, expect, it } from "vitest";
import { parseBackend } from "../../../env/backends/backend.ts";
import { InputError } from "../../../env/util/errors.ts";
import { LIMITS } from "../../../spec/options.ts";

const BASE = {
  provider: "openai-compatible",
  model: "m",
  baseURL: "http://127.0.0.1:9/v1",
} as const;

/** The one-line refusal a backend object gets, or null when it is accepted. */
function refusal(fields: Record<string, unknown>): string | null {
  try {
    parseBackend({ ...BASE, ...fields } as never, "agent");
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
}

describe("a backend object's retries, timeout and concurrency have bounds", () => {
  // Reproduction (issue 12): max_retries 1e9, timeout_ms 1e15 and concurrency 1e8 were accepted, so a
  // typo made a run retry for ever, wait past setTimeout's range, or open a hundred million calls.
  it("accepts every value up to the bound", () => {
    expect(
      refusal({
        max_retries: LIMITS.backendRetries,
        timeout_ms: LIMITS.backendTimeoutMs,
        concurrency: LIMITS.concurrency,
      }),
    ).toBeNull();
    expect(refusal({ max_retries: 0, timeout_ms: 1, concurrency: 1 })).toBeNull();
  });

  it.each([
    ["max_retries", LIMITS.backendRetries + 1, `at most ${LIMITS.backendRetries} retries`],
    ["max_retries", 1e9, `at most ${LIMITS.backendRetries} retries`],
    ["timeout_ms", LIMITS.backendTimeoutMs + 1, `at most ${LIMITS.backendTimeoutMs} ms`],
    ["timeout_ms", 1e15, `at most ${LIMITS.backendTimeoutMs} ms`],
    ["concurrency", LIMITS.concurrency + 1, `at most ${LIMITS.concurrency} calls`],
    ["concurrency", 1e8, `at most ${LIMITS.concurrency} calls`],
  ])("refuses %s %d by name, with the bound", (field, value, bound) => {
    const message = refusal({ [field]: value });
    expect(message).toContain("agent backend");
    expect(message).toContain(`${field}: expected`);
    expect(message).toContain(bound);
    expect(message).toContain(String(value));
  });

  it("refuses values below the bound and fractions, naming the field", () => {
    expect(refusal({ max_retries: -1 })).toContain("max_retries: expected");
    expect(refusal({ timeout_ms: 0 })).toContain("timeout_ms: expected");
    expect(refusal({ concurrency: 0.5 })).toContain("concurrency: expected");
  });
});
