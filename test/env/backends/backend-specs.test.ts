import { describe, expect, it } from "vitest";
import { familyOf, parseBackend } from "../../../env/backends/backend.ts";

describe("backend specs", () => {
  it("parses every accepted form", () => {
    expect(parseBackend("offline", "agent")).toMatchObject({
      provider: "offline",
      name: "offline",
    });
    expect(parseBackend("openai:gpt-4.1-mini", "agent")).toMatchObject({
      provider: "openai",
      model: "gpt-4.1-mini",
      name: "openai:gpt-4.1-mini",
    });
    expect(parseBackend("Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1/", "agent")).toMatchObject({
      provider: "openai-compatible",
      model: "Qwen2.5-7B-Instruct",
      baseURL: "http://127.0.0.1:8000/v1",
      name: "Qwen2.5-7B-Instruct@http://127.0.0.1:8000/v1",
    });
    expect(parseBackend("typesafe:jev-latest@http://127.0.0.1:8000/v1/", "judge")).toMatchObject({
      provider: "typesafe",
      model: "jev-latest",
      baseURL: "http://127.0.0.1:8000/v1",
      name: "typesafe:jev-latest@http://127.0.0.1:8000/v1",
    });
    expect(parseBackend("typesafe:offline", "judge")).toMatchObject({
      provider: "typesafe",
      name: "typesafe:offline",
    });
    expect(
      parseBackend(
        {
          provider: "openai-compatible",
          model: "llama3.1",
          baseURL: "http://localhost:11434/v1",
          temperature: 0.7,
          top_p: 0.9,
          max_tokens: 512,
          seed: 3,
        },
        "agent",
      ),
    ).toMatchObject({
      name: "llama3.1@http://localhost:11434/v1",
      sampling: { temperature: 0.7, top_p: 0.9, max_tokens: 512, seed: 3 },
    });
  });

  it("refuses an unparseable spec, naming the role and the accepted forms", () => {
    expect(() => parseBackend("gpt-4o", "userModel")).toThrow(
      /userModel: "gpt-4o" is not a backend; expected "offline", "openai:<model>", "<model>@<base-url>" or a decision model \("typesafe:<model>@<base-url>"/,
    );
    expect(() => parseBackend({ provider: "openai-compatible", model: "x" }, "agent")).toThrow(
      /agent\.baseURL: expected the server's URL/,
    );
    expect(() =>
      parseBackend({ provider: "openai", model: "x", temperature: 9 } as never, "agent"),
    ).toThrow(/temperature/);
  });

  it("reads a model's family from its name", () => {
    expect(
      [
        "gpt-4.1",
        "o3-mini",
        "Qwen/Qwen2.5-7B-Instruct",
        "phi-4",
        "meta-llama/Llama-3.1-8B",
        "mixtral-8x7b",
        "ft:gpt-4o-mini-2024-07-18:acme::abc123",
        "chatgpt-4o-latest",
        "bartowski/QwQ-32B-GGUF",
        "unsloth/Meta-Llama-3.1-8B-Instruct-bnb-4bit",
        "mistralai/Ministral-8B-Instruct-2410",
        "codestral-latest",
        "my-org/acme-support-v2",
        "deepseek-ai/DeepSeek-R1-Distill-Llama-70B",
      ].map(familyOf),
    ).toEqual([
      "gpt",
      "gpt",
      "qwen",
      "phi",
      "llama",
      "mistral",
      "gpt",
      "gpt",
      "qwen",
      "llama",
      "mistral",
      "mistral",
      "acme",
      "deepseek",
    ]);
  });
});
