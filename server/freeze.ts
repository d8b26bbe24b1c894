import { join } from "node:path";
import {
  type Agent,
  checkDatasetOutput,
  Dataset,
  PairwiseCounter,
  type Planner,
  QualityTally,
  touchedSituation,
} from "../env/index.ts";
import pkg from "../package.json" with { type: "json" };
import type { DatasetMeta, FreezeRequest, FreezeResult, Row } from "../spec/index.ts";

/** The plan's settings a freeze's sidecar records (a {@link Planner} has them). */
export type PlanSettings = Pick<Planner, "rows" | "seed" | "faultRate" | "preferSuccess">;

/** Who played the roles of the server's episodes, as a dataset's sidecar records them. */
export interface FreezeRoles {
  maxTurns: number;
  simulator: string;
  userModel: string;
}

/**
 * The episodes finished since the last freeze, oldest first: at most `keep` of them and at most
 * `keepBytes` of their JSON lines (older ones give way and are counted, so a server nobody
 * freezes holds bounded memory however long its episodes run). Each is held as its JSON line:
 * one string instead of the hundreds of objects of a row, which the garbage collector would
 * otherwise walk on every major collection of a long-running server.
 */
export class FinishedEpisodes {
  readonly #keep: number;
  readonly #keepBytes: number;
  #rows: string[] = [];
  /** Each kept line's UTF-8 bytes, as it would take in a freeze's file. */
  #sizes: number[] = [];
  #bytes = 0;
  #dropped = 0;
  #version = 0;

  constructor(keep: number, keepBytes: number) {
    this.#keep = keep;
    this.#keepBytes = keepBytes;
  }

  /** Keeps a finished episode's row, written as its JSON line. */
  addLine(line: string): void {
    this.#version++;
    const size = Buffer.byteLength(line);
    this.#rows.push(line);
    this.#sizes.push(size);
    this.#bytes += size;
    // Dropping in batches keeps adding cheap: the arrays are cut once per eighth of either limit.
    if (this.#rows.length > this.#keep)
      this.#drop(this.#rows.length - this.#keep + Math.floor(this.#keep / 8));
    if (this.#bytes > this.#keepBytes) {
      let excess = 0;
      for (let freed = 0; this.#bytes - freed > (this.#keepBytes * 7) / 8; excess++)
        freed += this.#sizes[excess] as number;
      this.#drop(excess);
    }
  }

  /** Lets the oldest `count` rows go, counting them. */
  #drop(count: number): void {
    for (let i = 0; i < count; i++) this.#bytes -= this.#sizes[i] as number;
    this.#rows = this.#rows.slice(count);
    this.#sizes = this.#sizes.slice(count);
    this.#dropped += count;
  }

  /** Takes every kept row (as JSON lines) and the count of those that gave way, leaving the buffer empty. */
  take(): { rows: string[]; dropped: number } {
    const taken = { rows: this.#rows, dropped: this.#dropped };
    this.#version++;
    this.#rows = [];
    this.#sizes = [];
    this.#bytes = 0;
    this.#dropped = 0;
    return taken;
  }

  /** The kept rows (as JSON lines) and the count of those that gave way, leaving the buffer as it is. */
  peek(): { rows: string[]; dropped: number } {
    return { rows: [...this.#rows], dropped: this.#dropped };
  }

  /** Puts rows back in front (a freeze that failed to write loses nothing). */
  restore(taken: { rows: string[]; dropped: number }): void {
    this.#version++;
    const sizes = taken.rows.map((line) => Buffer.byteLength(line));
    this.#rows = [...taken.rows, ...this.#rows];
    this.#sizes = [...sizes, ...this.#sizes];
    for (const size of sizes) this.#bytes += size;
    this.#dropped += taken.dropped;
  }

  get size(): number {
    return this.#rows.length;
  }

  /** A number that changes whenever the kept rows do (what was worked out from them is stale then). */
  get version(): number {
    return this.#version;
  }

  /** Bytes of the kept rows' JSON lines. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The most rows kept between freezes. */
  get keep(): number {
    return this.#keep;
  }

  /** The most bytes of JSON lines kept between freezes. */
  get keepBytes(): number {
    return this.#keepBytes;
  }
}

/**
 * `POST /v1/freeze`: writes the finished episodes to `<folder>/<name>` as a dataset in
 * `simulate()`'s row format with the same sidecar (spec, options, coverage, quality, degraded,
 * warnings), atomically, so `loadDataset()` and the exporters read it like any run. Freezes of
 * one server run one at a time.
 */
export function freeze(
  finished: FinishedEpisodes,
  request: FreezeRequest,
  setting: { folder: string; agent: Agent; plan: PlanSettings; roles: FreezeRoles },
): Promise<FreezeResult> {
  const frozen = (freezing.get(finished) ?? Promise.resolve()).then(() =>
    freezeNow(finished, request, setting),
  );
  freezing.set(
    finished,
    frozen.catch(() => {}),
  );
  return frozen;
}

/**
 * The freeze in progress for each set of finished episodes: freezes run one at a time, or two
 * requests for one name would both find it free, and the later write (with no rows: the earlier
 * took them) would replace the earlier's file.
 */
const freezing = new WeakMap<FinishedEpisodes, Promise<unknown>>();

async function freezeNow(
  finished: FinishedEpisodes,
  request: FreezeRequest,
  setting: { folder: string; agent: Agent; plan: PlanSettings; roles: FreezeRoles },
): Promise<FreezeResult> {
  const path = join(setting.folder, request.name);
  await checkDatasetOutput(path, {
    what: "freeze request",
    style: "options",
    reads: [],
    resume: false,
    overwrite: request.overwrite === true,
  });
  const taken = finished.take();
  try {
    const rows = taken.rows.map((line) => JSON.parse(line) as Row);
    const meta = sidecar(rows, taken.dropped, finished, setting);
    await new Dataset({ rows, meta }).save(path);
    return { path, rows: rows.length, sidecar: `${path}.meta.json`, dropped: taken.dropped };
  } catch (error) {
    finished.restore(taken);
    throw error;
  }
}

/**
 * The finished episodes held for the next freeze, as the dataset a freeze would write, with its
 * sidecar, taking nothing: what `GET /report` shows.
 */
export function heldDataset(
  held: { rows: readonly string[]; dropped: number },
  limits: { keep: number; keepBytes: number },
  setting: { agent: Agent; plan: PlanSettings; roles: FreezeRoles },
): Dataset {
  const rows = held.rows.map((line) => JSON.parse(line) as Row);
  return new Dataset({ rows, meta: sidecar(rows, held.dropped, limits, setting) });
}

/** The sidecar of frozen episodes, counted as `simulate()` counts a run. */
function sidecar(
  rows: readonly Row[],
  dropped: number,
  limits: { keep: number; keepBytes: number },
  { agent, plan, roles }: { agent: Agent; plan: PlanSettings; roles: FreezeRoles },
): DatasetMeta {
  const coverage = new PairwiseCounter(agent);
  const touched = new PairwiseCounter(agent);
  const quality = new QualityTally(agent);
  let fallbacks = 0;
  let lastFallback = "";
  let broken = 0;
  let lastBreak = "";
  const writerErrors = new Set<string>();
  for (const row of rows) {
    coverage.visit(row.situation.axes);
    if (touchedSituation(row)) touched.visit(row.situation.axes);
    quality.add(row);
    const fallback = row.episode.writer_fallback;
    if (fallback) {
      fallbacks++;
      lastFallback = fallback.error;
      writerErrors.add(fallback.error);
    }
    if (row.episode.ended_by === "error") {
      broken++;
      lastBreak = row.episode.errors.at(-1) ?? "";
    }
  }
  const pairwise = touched.result();
  return {
    version: 1,
    generator: `rehearse ${pkg.version} serve`,
    spec: agent.spec,
    spec_hash: agent.hash,
    options: {
      rows: plan.rows,
      seed: plan.seed,
      fault_rate: plan.faultRate,
      prefer_success: plan.preferSuccess,
      max_turns: roles.maxTurns,
      rollouts: 1,
      slip_rate: 0,
      agent: rows[0]?.models.agent ?? "external",
      simulator: roles.simulator,
      user_model: roles.userModel,
    },
    rows: rows.length,
    complete: true,
    coverage: {
      pairwise: {
        ...coverage.result(),
        pairs_touched: pairwise.pairs_covered,
        touched_fraction: pairwise.fraction,
      },
    },
    quality: quality.result(),
    degraded: {
      ...(fallbacks > 0
        ? { generator_fallback: { rows: fallbacks, last_error: lastFallback } }
        : {}),
      ...(broken > 0 ? { role_errors: { rows: broken, last_error: lastBreak } } : {}),
    },
    warnings: [
      ...agent.warnings,
      ...(dropped > 0
        ? [
            `${dropped} finished episodes were not kept: the server keeps at most ${limits.keep} episodes and ${limits.keepBytes} bytes of them between freezes (raise keepEpisodes or keepBytes, or freeze more often)`,
          ]
        : []),
      ...quality.warnings(),
    ],
    search: { budget: plan.rows, mutations: [], writer_errors: [...writerErrors].slice(0, 20) },
  };
}
