import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { simulate } from "../env/simulate.ts";

const SPEC = join(import.meta.dirname, "../examples/retail-orders.json");
/**
 * Aim: what the 20,000-row run holds beyond the 1,000-row run, per extra row, stays far below the
 * size of one row (about 2,400 bytes of JSON): the run keeps only the rows in flight. A ratio of
 * the two peaks alone is noise when both are a fraction of a megabyte.
 */
const TARGET_BYTES_PER_EXTRA_ROW = 50;

/**
 * Offline rows per second for a run of `rows` written to a file, then the same run again sampling
 * the live heap (after a full collection) at 20 points: the peak above the starting point is what
 * the run holds, garbage excluded.
 */
async function measure(
  rows: number,
  dir: string,
): Promise<{ rowsPerSecond: number; peakMb: number }> {
  const start = performance.now();
  await simulate(SPEC, { rows, out: join(dir, `bench-${rows}.jsonl`) });
  const seconds = (performance.now() - start) / 1000;
  globalThis.gc?.();
  const base = process.memoryUsage().heapUsed;
  let peak = 0;
  const every = Math.max(1, Math.floor(rows / 20));
  await simulate(SPEC, {
    rows,
    out: join(dir, `bench-${rows}-memory.jsonl`),
    onProgress: (done) => {
      if (done % every !== 0) return;
      globalThis.gc?.();
      peak = Math.max(peak, process.memoryUsage().heapUsed - base);
    },
  });
  return { rowsPerSecond: rows / seconds, peakMb: peak / 2 ** 20 };
}

/** Rows per second and peak memory for 1,000 and 20,000 offline rows streamed to disk. */
export async function run(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "rehearse-bench-"));
  try {
    if (!globalThis.gc)
      console.log(
        "(run with node --expose-gc, as `npm run bench` does, for steadier memory figures)",
      );
    const small = await measure(1_000, dir);
    const large = await measure(20_000, dir);
    const ratio = large.peakMb / small.peakMb;
    const perExtraRow = ((large.peakMb - small.peakMb) * 2 ** 20) / (20_000 - 1_000);
    console.log("simulate: offline rows streamed to a JSONL file (retail example)");
    console.log(
      `  1,000 rows    ${small.rowsPerSecond.toFixed(0)} rows/s   peak heap +${small.peakMb.toFixed(2)} MB`,
    );
    console.log(
      `  20,000 rows   ${large.rowsPerSecond.toFixed(0)} rows/s   peak heap +${large.peakMb.toFixed(2)} MB`,
    );
    console.log(
      `  memory: 20,000-row peak / 1,000-row peak ${ratio.toFixed(2)}×; held per extra row ${perExtraRow.toFixed(1)} bytes (target ≤ ${TARGET_BYTES_PER_EXTRA_ROW}: ${perExtraRow <= TARGET_BYTES_PER_EXTRA_ROW ? "met" : "MISSED"})`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
