import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Rng } from "../env/rng.ts";
import { decontaminate, exportDecontaminated } from "../exporters/decontaminate.ts";
import { wordsOf } from "../exporters/ngram-index.ts";
import { DECONTAMINATION } from "../spec/export.ts";
import type { Row } from "../spec/row.ts";

const ROWS = 100_000;
const EVAL_ITEMS = 10_000;
/** The naive method is measured on this many rows against this many eval items, then scaled. */
const SLICE = 1_000;
const WORDS_PER_TEXT = 60;
const VOCABULARY = Array.from({ length: 5_000 }, (_, i) => `w${i.toString(36)}`);
/** One row in this many is planted as a near copy (90% of an eval text), so the rule really fires. */
const PLANT_EVERY = 50;

function text(rng: Rng): string {
  return Array.from({ length: WORDS_PER_TEXT }, () => rng.pick(VOCABULARY)).join(" ");
}

function evalItems(count: number): { id: string; text: string }[] {
  const rng = new Rng(1, "bench-eval");
  return Array.from({ length: count }, (_, i) => ({ id: `e${i}`, text: text(rng) }));
}

/**
 * Synthetic rows, made as they are read: a person's message and an agent's reply of random words,
 * every {@link PLANT_EVERY}th one a near copy of an eval text. Only what the check reads is filled.
 */
async function* rows(count: number, evals: { text: string }[]): AsyncGenerator<Row> {
  const rng = new Rng(2, "bench-rows");
  for (let i = 0; i < count; i++) {
    const planted = i % PLANT_EVERY === 0 ? evals[rng.int(evals.length)] : undefined;
    const said = planted ? planted.text.split(" ").slice(0, 54).join(" ") : text(rng);
    yield {
      id: `r${i}`,
      task_id: `t${i}`,
      messages: [
        { role: "system", content: "You help." },
        { role: "user", content: said },
        { role: "assistant", content: planted ? "ok then sure" : text(rng).slice(0, 80) },
      ],
    } as unknown as Row;
  }
}

/** The naive method: every row against every eval item, with each item's n-grams as a set of strings. */
function naive(rowTexts: string[], evalTexts: string[]): number {
  const n = DECONTAMINATION.ngram;
  const evalSets = evalTexts.map((t) => {
    const words = wordsOf(t);
    const set = new Set<string>();
    for (let i = 0; i + n <= words.length; i++) set.add(words.slice(i, i + n).join(" "));
    return set;
  });
  let removed = 0;
  for (const rowText of rowTexts) {
    const words = wordsOf(rowText);
    const grams = words.map((_, i) =>
      i + n <= words.length ? words.slice(i, i + n).join(" ") : "",
    );
    for (const set of evalSets) {
      const covered = new Uint8Array(words.length);
      grams.forEach((g, i) => {
        if (g && set.has(g)) covered.fill(1, i, i + n);
      });
      if (covered.reduce((a, b) => a + b, 0) * 5 >= words.length * 4) {
        removed++;
        break;
      }
    }
  }
  return removed;
}

async function collect(count: number, evals: { text: string }[]): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of rows(count, evals)) out.push(row);
  return out;
}

/**
 * Time of the real streaming check at one size, as `rehearse decontaminate` runs it: the eval set
 * indexed, rows streamed through the four rules and the kept ones written to a JSONL file.
 */
async function timed(
  rowCount: number,
  evalCount: number,
  dir: string,
): Promise<{ ms: number; removed: number }> {
  const evals = evalItems(evalCount);
  let best = { ms: Number.POSITIVE_INFINITY, removed: 0 };
  // The least of two runs, each after a full collection: other work on the machine is not growth.
  for (let attempt = 0; attempt < 2; attempt++) {
    globalThis.gc?.();
    const start = performance.now();
    const sidecar = await exportDecontaminated(
      rows(rowCount, evals),
      evals,
      join(dir, "clean.jsonl"),
    );
    const ms = performance.now() - start;
    if (ms < best.ms) best = { ms, removed: sidecar.removed?.length ?? 0 };
  }
  return best;
}

/** Peak live heap above the start while the full-size check runs (sampled after a collection). */
async function peakHeapMb(rowCount: number, evalCount: number, dir: string): Promise<number> {
  const evals = evalItems(evalCount);
  globalThis.gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  async function* sampled(): AsyncGenerator<Row> {
    let i = 0;
    for await (const row of rows(rowCount, evals)) {
      if (i++ % 10_000 === 0) {
        globalThis.gc?.();
        peak = Math.max(peak, process.memoryUsage().heapUsed - base);
      }
      yield row;
    }
    globalThis.gc?.();
    peak = Math.max(peak, process.memoryUsage().heapUsed - base);
  }
  await exportDecontaminated(sampled(), evals, join(dir, "clean.jsonl"));
  return peak / 2 ** 20;
}

/**
 * The leakage check on 100,000 synthetic rows against 10,000 eval items through the real path
 * (`exportDecontaminated`, as the CLI runs it: kept rows streamed to a file): time and peak memory,
 * the time at a quarter of the size (linear growth means the full run takes about 4× as long), and
 * the naive all-pairs method on a 1,000 × 1,000 slice beside `decontaminate` on it, scaled.
 */
export async function run(): Promise<void> {
  if (!globalThis.gc)
    console.log(
      "(run with node --expose-gc, as `npm run bench` does, for steadier memory figures)",
    );
  const dir = await mkdtemp(join(tmpdir(), "rehearse-bench-decontaminate-"));
  const quarter = await timed(ROWS / 4, EVAL_ITEMS / 4, dir);
  const full = await timed(ROWS, EVAL_ITEMS, dir);
  const peak = await peakHeapMb(ROWS, EVAL_ITEMS, dir);
  await rm(dir, { recursive: true, force: true });

  const evals = evalItems(SLICE);
  const slice = await collect(SLICE, evals);
  const indexedStart = performance.now();
  const indexed = await decontaminate(slice, evals);
  const indexedMs = performance.now() - indexedStart;
  const naiveStart = performance.now();
  const naiveRemoved = naive(
    slice.map((r) =>
      r.messages
        .slice(1)
        .map((m) => m.content)
        .join("\n"),
    ),
    evals.map((e) => e.text),
  );
  const naiveMs = performance.now() - naiveStart;
  const scaledNaiveMs = naiveMs * ((ROWS * EVAL_ITEMS) / (SLICE * SLICE));

  const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
  console.log(
    "decontaminate: synthetic rows (60 + ~13 words) against eval texts of 60 words, 8-word n-grams",
  );
  console.log(`  25,000 rows × 2,500 eval items     ${s(quarter.ms)}   removed ${quarter.removed}`);
  console.log(
    `  100,000 rows × 10,000 eval items   ${s(full.ms)}   removed ${full.removed}   peak heap +${peak.toFixed(1)} MB`,
  );
  console.log(
    `  growth: 4× the rows and eval items took ${(full.ms / quarter.ms).toFixed(2)}× the time (linear ≈ 4×, all-pairs ≈ 16×)`,
  );
  console.log(
    `  1,000 × 1,000 slice: indexed ${indexedMs.toFixed(0)} ms (removed ${indexed.removed.length}), naive all-pairs ${naiveMs.toFixed(0)} ms (removed ${naiveRemoved})`,
  );
  console.log(
    `  naive all-pairs scaled to 100,000 × 10,000: ${s(scaledNaiveMs)} (${(scaledNaiveMs / full.ms).toFixed(0)}× the indexed run)`,
  );
}
