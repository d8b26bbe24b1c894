import type {
  DatasetMeta,
  EndedBy,
  PairwiseCoverage,
  Row,
  RunSearch,
  Situation,
} from "../spec/index.ts";
import type { Agent } from "./agent.ts";
import { PairwiseCounter } from "./coverage.ts";
import { type QualityFacts, QualityTally, touchedSituation } from "./quality.ts";

/**
 * What one row adds to a run's tally, as plain data: a worker thread reads it off the row it
 * played, and the thread writing the file adds it in plan order, so the sidecar and the summary
 * never depend on where a row was played nor need the file read back.
 */
export interface RowFacts {
  axes: Situation["axes"];
  touched: boolean;
  quality: QualityFacts;
  /** Agent turns after the opening, and those without a logprob (counted only when logprobs were asked). */
  turns: number;
  unscored: number;
  /** The writer's error when the offline writer took over the opening. */
  fallback: string | null;
  endedBy: EndedBy;
  /** The last error of a row a failing role ended. */
  broke: string | null;
  slips: string[];
  errors: number;
}

/** How a run's conversations ended, counted while they were written: the CLI's summary. */
export interface RunSummary {
  ended_by: Record<string, number>;
  slips: Record<string, number>;
  errors: number;
}

/**
 * What a run says about itself, counted from its rows in plan order (so a resumed run counts the
 * rows it kept, and the same rows always give the same sidecar): coverage, quality, the writer's
 * fallbacks, the rows a failing role ended early, and how conversations ended.
 */
export class RunTally {
  readonly coverage: PairwiseCounter;
  /** Pairs of the rows that touched their situation. */
  readonly touched: PairwiseCounter;
  readonly quality: QualityTally;
  #fallbacks = 0;
  #lastError = "";
  readonly #errors: string[] = [];
  #rows = 0;
  #broken = 0;
  #lastBreak = "";
  readonly #logprobs: boolean;
  #turns = 0;
  #unscored = 0;
  readonly #ended: Record<string, number> = {};
  readonly #slips: Record<string, number> = {};
  #roleErrors = 0;

  constructor(agent: Agent, logprobs: boolean) {
    this.coverage = new PairwiseCounter(agent);
    this.touched = new PairwiseCounter(agent);
    this.quality = new QualityTally(agent);
    this.#logprobs = logprobs;
  }

  /** What a row adds to the tally (see {@link RowFacts}). */
  facts(row: Row): RowFacts {
    let turns = 0;
    let unscored = 0;
    if (this.#logprobs)
      row.messages.forEach((m, i) => {
        if (m.role !== "assistant" || i <= row.episode.history_turns) return;
        turns++;
        if (m.logprob === undefined) unscored++;
      });
    return {
      axes: row.situation.axes,
      touched: touchedSituation(row),
      quality: this.quality.facts(row),
      turns,
      unscored,
      fallback: row.episode.writer_fallback?.error ?? null,
      endedBy: row.episode.ended_by,
      broke: row.episode.ended_by === "error" ? (row.episode.errors.at(-1) ?? "") : null,
      slips: row.episode.slips.map((slip) => slip.kind),
      errors: row.episode.errors.length,
    };
  }

  /** Counts one row. */
  add(row: Row): void {
    this.addFacts(this.facts(row));
  }

  /** Counts one row from its facts. */
  addFacts(f: RowFacts): void {
    this.#rows++;
    this.coverage.visit(f.axes);
    if (f.touched) this.touched.visit(f.axes);
    this.quality.addFacts(f.quality);
    this.#turns += f.turns;
    this.#unscored += f.unscored;
    if (f.fallback !== null) {
      this.#fallbacks++;
      this.#lastError = f.fallback;
      if (!this.#errors.includes(f.fallback) && this.#errors.length < KEPT_WRITER_ERRORS)
        this.#errors.push(f.fallback);
    }
    if (f.broke !== null) {
      this.#broken++;
      this.#lastBreak = f.broke;
    }
    this.#ended[f.endedBy] = (this.#ended[f.endedBy] ?? 0) + 1;
    for (const kind of f.slips) this.#slips[kind] = (this.#slips[kind] ?? 0) + 1;
    this.#roleErrors += f.errors;
  }

  /** Pairwise coverage: the pairs the rows visited, and those of rows that touched their situation. */
  pairwise(): PairwiseCoverage {
    const touched = this.touched.result();
    return {
      ...this.coverage.result(),
      pairs_touched: touched.pairs_covered,
      touched_fraction: touched.fraction,
    };
  }

  /** How the conversations ended, the agent's slips by kind, and the roles' errors. */
  summary(): RunSummary {
    return { ended_by: { ...this.#ended }, slips: { ...this.#slips }, errors: this.#roleErrors };
  }

  degraded(): DatasetMeta["degraded"] {
    return {
      ...(this.#fallbacks > 0
        ? { generator_fallback: { rows: this.#fallbacks, last_error: this.#lastError } }
        : {}),
      ...(this.#broken > 0
        ? { role_errors: { rows: this.#broken, last_error: this.#lastBreak } }
        : {}),
    };
  }

  /** What a reader of the run must not miss: openings the offline writer took over, rows a failing role cut short, turns without a logprob, quality figures out of bounds. */
  warnings(): string[] {
    return [
      ...(this.#fallbacks > 0
        ? [
            `${this.#fallbacks} of ${this.#rows} openings were written by the offline writer because the writer failed (episode.writer_fallback); last error: ${this.#lastError}`,
          ]
        : []),
      ...(this.#broken > 0
        ? [
            `${this.#broken} of ${this.#rows} rows ended early because the agent or the person failed (episode.ended_by "error"); last error: ${this.#lastBreak}`,
          ]
        : []),
      ...(this.#unscored > 0
        ? [
            `${this.#unscored} of ${this.#turns} agent turns carry no logprob: the server returned no log-probabilities, or not one for every generated token`,
          ]
        : []),
      ...this.quality.warnings(),
    ];
  }

  /** The writer's distinct errors, in the order the rows met them (the first few). */
  writerErrors(): string[] {
    return [...this.#errors];
  }
}

/** Distinct writer errors kept for the search report. */
const KEPT_WRITER_ERRORS = 20;

/** The parts of a run's sidecar that no row decides: a shard carries them, so a merge rebuilds the whole run's. */
export interface RunParts {
  /** Substitutions made before any row (`same_model`). */
  degraded: DatasetMeta["degraded"];
  /** The spec's and the roles' warnings. */
  warnings: string[];
  /** Whether the policy's log-probabilities were asked for (turns without one are warned about). */
  logprobs: boolean;
  /** Where a traces budget sent the rows, and what a graded search mutated. */
  search?: RunSearch;
}

/** What a sidecar is made of, besides the tally of its rows. */
export interface SidecarParts {
  generator: string;
  spec: unknown;
  specHash: string;
  options: DatasetMeta["options"];
  rows: number;
  complete: boolean;
  run: RunParts;
  /** Warnings about rows kept from an earlier run (a resumed run whose sidecar was lost). */
  kept: readonly string[];
  shard?: { index: number; count: number; first: number; end: number };
}

/** A dataset's sidecar, the one way simulate and merge write it: same parts and rows, same bytes. */
export function sidecarOf(parts: SidecarParts, tally: RunTally): DatasetMeta {
  return {
    version: 1,
    generator: parts.generator,
    spec: parts.spec,
    spec_hash: parts.specHash,
    options: parts.options,
    rows: parts.rows,
    complete: parts.complete,
    coverage: { pairwise: tally.pairwise() },
    quality: tally.quality.result(),
    degraded: mergedDegraded(parts.run.degraded, tally.degraded()),
    warnings: [...parts.run.warnings, ...tally.warnings(), ...parts.kept],
    search: {
      budget: parts.options.rows,
      ...(parts.run.search?.allocation ? { allocation: parts.run.search.allocation } : {}),
      mutations: parts.run.search?.mutations ?? [],
      ...(parts.run.search?.batches ? { batches: parts.run.search.batches } : {}),
      writer_errors: tally.writerErrors(),
    },
    ...(parts.shard ? { shard: { ...parts.shard, run: parts.run } } : {}),
  };
}

/** The run's substitutions and the rows': a drafted spec's note stays beside the writer's fallbacks. */
function mergedDegraded(
  run: DatasetMeta["degraded"],
  rows: DatasetMeta["degraded"],
): DatasetMeta["degraded"] {
  const drafter = run.generator_fallback?.drafter;
  const merged = { ...run, ...rows };
  if (drafter && rows.generator_fallback)
    merged.generator_fallback = { ...rows.generator_fallback, drafter };
  return merged;
}
