import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { InputError, shownPath } from "../env/index.ts";
import type { BackendSpec, ExportSidecar, Removal, Row } from "../spec/index.ts";
import { DECONTAMINATION } from "../spec/index.ts";
import { type Embedder, embedderOf, unit } from "./embedder.ts";
import { conversationText, type EvalEntry, type EvalSet, evalEntries } from "./eval-set.ts";
import { writeJsonl } from "./jsonl.ts";
import { NgramIndex } from "./ngram-index.ts";
import { checkExportOutput, formatOf } from "./output.ts";
import { writeSidecar } from "./sidecar.ts";
import { type ExportSource, rowsOf, SourceTally } from "./source.ts";

/** Options of the leakage check: an embedder turns on the fourth rule (cosine ≥ 0.85). */
export interface DecontaminateOptions {
  /** A function of texts to vectors, or a backend spec of an OpenAI-compatible embeddings endpoint. */
  embedder?: Embedder | BackendSpec;
}

/** The result of the leakage check: the rows kept, and each removed row with its rule and eval item. */
export interface Decontaminated {
  kept: Row[];
  removed: Removal[];
  /** Rows removed by each rule. */
  counts: Record<Removal["rule"], number>;
  eval_items: number;
}

/** Rows embedded in one call to the embedder. */
const EMBED_BATCH = 64;

/** Case and whitespace folded: two texts equal after this are the same text. */
export function normalised(text: string): string {
  return text.toLowerCase().replace(/\s+/g, " ").trim();
}

const digest = (text: string) => createHash("sha256").update(text).digest("base64");

/**
 * The eval set, indexed once for the four rules: its task ids, the hashes of its normalised texts,
 * its hashed 8-word n-grams, and (with an embedder) its unit vectors.
 */
class EvalIndex {
  readonly entries: EvalEntry[] = [];
  readonly #taskIds = new Map<string, number>();
  readonly #texts = new Map<string, number>();
  readonly ngrams = new NgramIndex(DECONTAMINATION.ngram);
  vectors: Float64Array[] = [];

  static async build(evalSet: EvalSet, embed: Embedder | null): Promise<EvalIndex> {
    const index = new EvalIndex();
    for await (const entry of evalEntries(evalSet)) {
      const n = index.entries.push(entry) - 1;
      if (entry.task_id !== null && !index.#taskIds.has(entry.task_id))
        index.#taskIds.set(entry.task_id, n);
      const key = digest(normalised(entry.text));
      if (!index.#texts.has(key)) index.#texts.set(key, n);
      index.ngrams.add(entry.text);
    }
    if (embed)
      for (let at = 0; at < index.entries.length; at += EMBED_BATCH) {
        const batch = index.entries.slice(at, at + EMBED_BATCH).map((e) => e.text);
        for (const vector of await embed(batch)) index.vectors.push(unit(vector));
      }
    return index;
  }

  /** The first of rules 1–3 a row breaks, with the eval item it matched, or null. */
  lexical(row: Row, text: string): Removal | null {
    const found = (rule: Removal["rule"], item: number, score: number): Removal => ({
      id: row.id,
      task_id: row.task_id,
      rule,
      eval_id: (this.entries[item] as EvalEntry).id,
      score,
    });
    const byTask = this.#taskIds.get(row.task_id);
    if (byTask !== undefined) return found("task_id", byTask, 1);
    const byText = this.#texts.get(digest(normalised(text)));
    if (byText !== undefined) return found("exact_text", byText, 1);
    const cover = this.ngrams.bestCover(text);
    // Whole numbers compared, so exactly 80% is 80%: covered / words ≥ 4 / 5.
    if (cover && cover.covered * 5 >= cover.words * 4)
      return found("ngram", cover.item, cover.covered / cover.words);
    return null;
  }

  /** Rule 4: the eval item most similar to a row's vector, when its cosine reaches the threshold. */
  semantic(vector: Float64Array): { item: number; cosine: number } | null {
    let best: { item: number; cosine: number } | null = null;
    for (const [item, other] of this.vectors.entries()) {
      if (other.length !== vector.length)
        throw new Error(
          `the embedder returned vectors of ${other.length} and ${vector.length} dimensions; expected one size`,
        );
      let dot = 0;
      for (let i = 0; i < vector.length; i++) dot += (vector[i] as number) * (other[i] as number);
      if (!best || dot > best.cosine) best = { item, cosine: dot };
    }
    return best && best.cosine >= DECONTAMINATION.cosine ? best : null;
  }
}

/**
 * Runs the leakage check over rows as they stream: rules 1–3 at once, rule 4 on batches of the
 * survivors. Yields each row with its removal (null when kept), in input order.
 */
async function* check(
  rows: AsyncIterable<Row>,
  index: EvalIndex,
  embed: Embedder | null,
): AsyncGenerator<{ row: Row; removal: Removal | null }> {
  let pending: { row: Row; text: string; removal: Removal | null }[] = [];
  async function* settle() {
    const open = pending.filter((p) => p.removal === null);
    if (embed && open.length > 0) {
      const vectors = await embed(open.map((p) => p.text));
      open.forEach((p, i) => {
        const match = index.semantic(unit(vectors[i] as number[]));
        if (match)
          p.removal = {
            id: p.row.id,
            task_id: p.row.task_id,
            rule: "embedding",
            eval_id: (index.entries[match.item] as EvalEntry).id,
            score: match.cosine,
          };
      });
    }
    for (const p of pending) yield { row: p.row, removal: p.removal };
    pending = [];
  }
  for await (const row of rows) {
    const text = conversationText(row.messages);
    pending.push({ row, text, removal: index.lexical(row, text) });
    if (pending.length >= EMBED_BATCH) yield* settle();
  }
  yield* settle();
}

const emptyCounts = (): Record<Removal["rule"], number> => ({
  task_id: 0,
  exact_text: 0,
  ngram: 0,
  embedding: 0,
});

/**
 * The brief's leakage check, rules in order: the same task id as an eval item; the same text after
 * folding case and whitespace; a near copy (one eval text covers ≥ 80% of the row's words with
 * shared 8-word n-grams); and, with an embedder, cosine ≥ 0.85. Each removed row says which rule
 * removed it and which eval item it matched. The eval set is indexed (hashed n-grams), never
 * compared with every row.
 */
export async function decontaminate(
  rows: ExportSource,
  evalSet: EvalSet,
  options: DecontaminateOptions = {},
): Promise<Decontaminated> {
  const embed = options.embedder ? embedderOf(options.embedder) : null;
  const index = await EvalIndex.build(evalSet, embed);
  const kept: Row[] = [];
  const removed: Removal[] = [];
  const counts = emptyCounts();
  for await (const { row, removal } of check(rowsOf(rows), index, embed)) {
    if (removal) {
      removed.push(removal);
      counts[removal.rule]++;
    } else kept.push(row);
  }
  return { kept, removed, counts, eval_items: index.entries.length };
}

/** sha256 of an eval set: its file's bytes, or its items as JSON lines. */
async function evalHash(evalSet: EvalSet): Promise<string> {
  const hash = createHash("sha256");
  if (typeof evalSet === "string") {
    for await (const chunk of createReadStream(evalSet)) hash.update(chunk as Buffer);
  } else for (const item of evalSet) hash.update(`${JSON.stringify(item)}\n`);
  return hash.digest("hex");
}

/**
 * Refuses a `.parquet` name for the rows kept: they are written as JSONL, which every command reads
 * back, and a file so named would hold JSONL under a Parquet name.
 */
export function refuseParquetName(out: string, check: { what: string; field: string }): void {
  if (formatOf(out, undefined) === "parquet")
    throw new InputError(check.what, [
      {
        path: check.field,
        message: `${shownPath(out)}: the rows kept are written as JSONL (rehearse rows, read back by every command), not Parquet; name the file .jsonl, and export it as Parquet with rehearse export`,
      },
    ]);
}

/**
 * Writes the rows that pass the leakage check to `out` (JSONL rows, as the input), streaming, with
 * a sidecar listing every removed row, its rule and the eval item it matched.
 */
export async function exportDecontaminated(
  data: ExportSource,
  evalSet: EvalSet,
  out: string,
  options: DecontaminateOptions = {},
): Promise<ExportSidecar> {
  refuseParquetName(out, { what: "decontaminate options", field: "out" });
  await checkExportOutput(out, data, {
    what: "decontaminate options",
    field: "out",
    reads: typeof evalSet === "string" ? [evalSet] : [],
  });
  const embed = options.embedder ? embedderOf(options.embedder) : null;
  const index = await EvalIndex.build(evalSet, embed);
  const tally = new SourceTally(data);
  const removed: Removal[] = [];
  const counts = emptyCounts();
  async function* seen(): AsyncGenerator<Row> {
    for await (const row of rowsOf(data)) {
      tally.see(row);
      yield row;
    }
  }
  async function* kept(): AsyncGenerator<Row> {
    for await (const { row, removal } of check(seen(), index, embed)) {
      if (!removal) {
        yield row;
        continue;
      }
      removed.push(removal);
      counts[removal.rule]++;
    }
  }
  const rows = await writeJsonl(out, kept());
  const reasons: Record<Removal["rule"], string> = {
    task_id: "the same task id as an eval item",
    exact_text: "the same text as an eval item after folding case and whitespace",
    ngram: `an eval text covers ≥ ${DECONTAMINATION.coverage * 100}% of the row's words with shared ${DECONTAMINATION.ngram}-word n-grams`,
    embedding: embed
      ? `cosine similarity ≥ ${DECONTAMINATION.cosine} with an eval text`
      : "not applied: no embedder given",
  };
  return writeSidecar(out, {
    kind: "decontaminate",
    format: "jsonl",
    source: await tally.facts(),
    options: { embedder: embed ? embedderName(options.embedder) : null },
    filters: (Object.keys(counts) as Removal["rule"][]).map((rule) => ({
      name: rule,
      removed: counts[rule],
      reason: reasons[rule],
    })),
    rows,
    calibration: tally.calibration(),
    warnings: [],
    eval: {
      path: typeof evalSet === "string" ? evalSet : null,
      sha256: await evalHash(evalSet),
      items: index.entries.length,
    },
    removed,
  });
}

/** How the sidecar names the embedder: its backend spec, or that it was a function. */
function embedderName(embedder: DecontaminateOptions["embedder"]): unknown {
  return typeof embedder === "function" ? "function" : embedder;
}
