import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InputError } from "../../env/index.ts";
import { decontaminate, type Embedder } from "../../exporters/index.ts";
import type { Row } from "../../spec/index.ts";
import { OpenAICompatibleServer } from "../support/openai-compatible-server.ts";
import { craftedRow, distinctWords } from "./rows.ts";

/** A row whose trained-on words are exactly `words` (the person says 90 of them, the agent the rest). */
async function rowOf(id: string, words: string[], taskId = `task-${id}`): Promise<Row> {
  return craftedRow({
    id,
    task_id: taskId,
    messages: [
      { role: "system", content: "You are the support agent of an online shop." },
      { role: "user", content: words.slice(0, 90).join(" ") },
      { role: "assistant", content: words.slice(90).join(" ") },
    ],
  });
}

const WORDS = distinctWords(100);

describe("the near-copy rule: one eval text covering ≥ 80% of the row's words with shared 8-word n-grams", () => {
  it("removes a row exactly 80% covered, and says by which eval item", async () => {
    const row = await rowOf("r80", WORDS);
    const result = await decontaminate(
      [row],
      [{ id: "eval-80", text: WORDS.slice(0, 80).join(" ") }],
    );
    expect(result.kept).toEqual([]);
    expect(result.removed).toEqual([
      { id: "r80", task_id: "task-r80", rule: "ngram", eval_id: "eval-80", score: 0.8 },
    ]);
    expect(result.counts).toEqual({ task_id: 0, exact_text: 0, ngram: 1, embedding: 0 });
  });

  it("keeps a row 79% covered", async () => {
    const row = await rowOf("r79", WORDS);
    const result = await decontaminate(
      [row],
      [{ id: "eval-79", text: WORDS.slice(0, 79).join(" ") }],
    );
    expect(result.kept.map((r) => r.id)).toEqual(["r79"]);
    expect(result.removed).toEqual([]);
  });

  it("counts the union of the shared n-grams of one eval text, wherever they are", async () => {
    const row = await rowOf("split", WORDS);
    // Two stretches of 40 words, apart in the eval text and with other words between: 80 words covered.
    const text = [...WORDS.slice(60), "unrelated", "filler", "words", ...WORDS.slice(0, 40)].join(
      " ",
    );
    const removed = await decontaminate([row], [{ id: "two-stretches", text }]);
    expect(removed.removed).toEqual([expect.objectContaining({ rule: "ngram", score: 0.8 })]);
    // The same 80 words over two eval items: no one eval text covers 80%, so the row stays.
    const apart = await decontaminate(
      [row],
      [
        { id: "first", text: WORDS.slice(0, 40).join(" ") },
        { id: "second", text: WORDS.slice(60).join(" ") },
      ],
    );
    expect(apart.removed).toEqual([]);
    // A stretch shorter than 8 words shares no 8-gram: 72 + 7 words is 72% covered.
    const short = [...WORDS.slice(0, 72), "gap", ...WORDS.slice(73, 80)].join(" ");
    expect((await decontaminate([row], [{ text: short }])).removed).toEqual([]);
  });

  it("reads words case-blind and apart from punctuation", async () => {
    const row = await rowOf("p", WORDS);
    const text = WORDS.slice(0, 85)
      .map((w, i) => (i % 3 === 0 ? `${w.toUpperCase()},` : w))
      .join("  ");
    expect((await decontaminate([row], [{ id: "loud", text }])).removed).toEqual([
      expect.objectContaining({ rule: "ngram", eval_id: "loud", score: 0.85 }),
    ]);
  });
});

describe("the rules apply in order, each removal naming its rule and eval item", () => {
  it("same task id first, then the same text after folding case and whitespace", async () => {
    const sameTask = await rowOf("a", distinctWords(30, "alpha"), "sit_shared");
    const sameText = await rowOf("b", distinctWords(30, "beta"));
    const clean = await rowOf("c", distinctWords(30, "gamma"));
    const evalSet = [
      // Matches row a by task id and, lower in the order, by text: the task id is reported.
      { id: "e1", task_id: "sit_shared", text: distinctWords(30, "alpha").join(" ") },
      { text: `  ${distinctWords(30, "BETA").join("\n\t ")}  ` },
      { task_id: "sit_other", text: "nothing alike" },
    ];
    const result = await decontaminate([sameTask, sameText, clean], evalSet);
    expect(result.removed).toEqual([
      { id: "a", task_id: "sit_shared", rule: "task_id", eval_id: "e1", score: 1 },
      // An item with no id is named by its place in the eval set.
      { id: "b", task_id: "task-b", rule: "exact_text", eval_id: "line 2", score: 1 },
    ]);
    expect(result.kept.map((r) => r.id)).toEqual(["c"]);
    expect(result.eval_items).toBe(3);
  });

  it("reads an eval set from JSONL: our rows, records with text, records with messages", async () => {
    const dir = await mkdtemp(join(tmpdir(), "rehearse-eval-"));
    const evalRow = await rowOf("eval-row", distinctWords(20, "delta"), "sit_eval");
    const path = join(dir, "eval.jsonl");
    await writeFile(
      path,
      [
        JSON.stringify(evalRow),
        JSON.stringify({ task_id: 42, text: "Where is my parcel?" }),
        JSON.stringify({
          id: "msgs",
          messages: [{ role: "user", content: distinctWords(20, "eps").join(" ") }],
        }),
        "",
      ].join("\n"),
    );
    const rows = [
      await rowOf("x", distinctWords(20, "zeta"), "sit_eval"),
      await rowOf("y", distinctWords(20, "zeta"), "42"),
      await craftedRow({
        id: "z",
        task_id: "t-z",
        messages: [
          { role: "system", content: "Different system prompt, never compared." },
          { role: "user", content: distinctWords(20, "EPS").join(" ") },
        ],
      }),
    ];
    const result = await decontaminate(rows, path);
    expect(result.removed.map((r) => [r.id, r.rule, r.eval_id])).toEqual([
      ["x", "task_id", "eval-row"],
      ["y", "task_id", "42"],
      ["z", "exact_text", "msgs"],
    ]);
    await writeFile(path, `${JSON.stringify({ text: "ok" })}\n{"id": 1}\n`);
    const refusal = await decontaminate(rows, path).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(InputError);
    expect((refusal as InputError).what).toBe(`${path}:2`);
    expect((refusal as InputError).message).toMatch(/expected a `text` or a `messages` list/);
  });
});

describe("the semantic rule: cosine ≥ 0.85 with an embedder", () => {
  const EVAL = "How do I get my money back for order W1?";
  const PARAPHRASE = "I would like a refund on W1 please";
  const NEAR_MISS = "Can you tell me about refunds in general";
  /** Unit vectors at cosine 0.9 and 0.84 from the eval text's. */
  const VECTORS: Record<string, number[]> = {
    [EVAL]: [1, 0, 0],
    [PARAPHRASE]: [0.9, Math.sqrt(1 - 0.81), 0],
    [NEAR_MISS]: [0.84, 0, Math.sqrt(1 - 0.84 ** 2)],
  };
  const vectorOf = (text: string) => VECTORS[text.trim()] ?? [0, 0, 1];
  const rows = () =>
    Promise.all(
      [PARAPHRASE, NEAR_MISS].map((text, n) =>
        craftedRow({
          id: `s${n}`,
          task_id: `t${n}`,
          messages: [
            { role: "system", content: "You help." },
            { role: "user", content: text },
          ],
        }),
      ),
    );

  it("with a function: a paraphrase at 0.9 is removed, one at 0.84 kept; word overlap alone saw neither", async () => {
    const calls: string[][] = [];
    const embedder: Embedder = async (texts) => {
      calls.push(texts);
      return texts.map(vectorOf);
    };
    const lexical = await decontaminate(await rows(), [{ id: "q1", text: EVAL }]);
    expect(lexical.removed).toEqual([]);
    const result = await decontaminate(await rows(), [{ id: "q1", text: EVAL }], { embedder });
    expect(result.removed).toEqual([
      { id: "s0", task_id: "t0", rule: "embedding", eval_id: "q1", score: expect.closeTo(0.9, 12) },
    ]);
    expect(result.kept.map((r) => r.id)).toEqual(["s1"]);
    expect(calls).toEqual([[EVAL], [PARAPHRASE, NEAR_MISS]]);
  });

  it("refuses an embedder that answers the wrong number of vectors", async () => {
    const embedder: Embedder = async () => [[1, 0]];
    await expect(
      decontaminate(await rows(), [{ text: "a" }, { text: "b" }], { embedder }),
    ).rejects.toThrow(/expected 2 vectors, one per text, got 1/);
  });

  describe("with an OpenAI-compatible embeddings endpoint (a local server of the real API's shape)", () => {
    let server: OpenAICompatibleServer;
    beforeAll(async () => {
      server = await OpenAICompatibleServer.start();
    });
    afterAll(async () => {
      await server.close();
    });

    it("embeds through POST /v1/embeddings and applies the same rule", async () => {
      server.embeddings(vectorOf);
      const result = await decontaminate(await rows(), [{ id: "q1", text: EVAL }], {
        embedder: `embed-small@${server.url}`,
      });
      expect(result.removed).toEqual([
        expect.objectContaining({ id: "s0", rule: "embedding", eval_id: "q1" }),
      ]);
      expect(server.embeddingRequests.map((r) => [r.model, r.input, r.encoding_format])).toEqual([
        ["embed-small", [EVAL], "float"],
        ["embed-small", [PARAPHRASE, NEAR_MISS], "float"],
      ]);
    });

    it("refuses an offline backend as an embedder, by name", async () => {
      await expect(decontaminate([], [], { embedder: "offline" })).rejects.toThrow(
        /no embeddings endpoint/,
      );
    });
  });
});
