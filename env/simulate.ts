import { stat } from "node:fs/promises";
import pkg from "../package.json" with { type: "json" };
import {
  type DatasetMeta,
  DEFAULTS,
  type PairwiseCoverage,
  type Row,
  type RunOptions,
  SimulateOptionsSchema,
  type SimulatePlainOptions,
  type Situation,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { PairwiseCounter } from "./coverage.ts";
import { Dataset } from "./dataset.ts";
import { rowId } from "./episode.ts";
import { checkDatasetOutput, RowSink } from "./jsonl.ts";
import { Planner } from "./plan.ts";
import { QualityTally, touchedSituation } from "./quality.ts";
import { assignRoles, type RoleChoices } from "./roles/assign.ts";
import { OfflineAgent } from "./roles/offline-agent.ts";
import { playEpisode } from "./rollout.ts";
import { InputError, issuesOf } from "./util/errors.ts";

/** How many rows, how they are planned, where they go, and who plays each role. */
export interface SimulateOptions
  extends SimulatePlainOptions,
    Pick<RoleChoices, "agent" | "simulator" | "userModel" | "fetch"> {
  /** Called after each row is kept, with the number kept so far. */
  onProgress?: (done: number, total: number) => void;
  /** Stops the run: finished rows are kept (in `<out>.partial` when writing a file). */
  signal?: AbortSignal;
  /**
   * Lets the run discard an unfinished run's `<out>.partial` and replace an existing `<out>` (once
   * the new file is whole); without it both are refused, so finished rows are never lost unasked.
   */
  overwrite?: boolean;
}

/** Raised when a run was stopped by its signal; the rows it finished are kept. */
export class SimulationInterrupted extends Error {
  override name = "SimulationInterrupted";
  constructor(
    readonly rows: number,
    readonly partial: string | null,
  ) {
    super(
      `interrupted after ${rows} rows${partial ? `; they are in ${partial}, and --resume continues from them` : ""}`,
    );
  }
}

/**
 * Runs the conversations of a spec: plans the situations, plays each episode (offline by default),
 * and returns the Dataset. With `out`, rows stream to disk in plan order as they finish, so a large
 * run holds only the rows in flight; an interrupted run keeps what it finished and `resume` continues.
 *
 * @example
 * const data = await simulate("examples/retail-orders.json", { rows: 64, seed: 7, out: "data.jsonl" });
 * for await (const row of data.stream()) console.log(row.episode.outcome?.reached);
 */
export async function simulate(target: unknown, options: SimulateOptions = {}): Promise<Dataset> {
  const {
    agent: agentChoice,
    simulator,
    userModel,
    fetch,
    onProgress,
    signal,
    overwrite,
    ...plain
  } = options;
  const parsed = SimulateOptionsSchema.safeParse(plain);
  if (!parsed.success) throw new InputError("simulate options", issuesOf(parsed.error, plain));
  if (overwrite !== undefined && typeof overwrite !== "boolean")
    throw new InputError("simulate options", [
      { path: "overwrite", message: `expected true or false, got ${JSON.stringify(overwrite)}` },
    ]);
  const o = parsed.data;
  const roles = assignRoles({
    agent: agentChoice,
    simulator,
    userModel,
    logprobs: o.logprobs,
    slipRate: o.slipRate,
    ...(fetch ? { fetch } : {}),
  });
  const agent = await agentOf(target);
  // Where the rows go is checked before any work, so a refused path costs nothing and leaves nothing.
  if (o.out)
    await checkDatasetOutput(o.out, {
      what: "simulate options",
      style: "options",
      reads: typeof target === "string" ? [target] : [],
      resume: o.resume === true,
      overwrite: overwrite === true,
    });
  const { agent: policy, writer, user } = roles;
  const plan = new Planner(agent, {
    rows: o.rows ?? DEFAULTS.rows,
    seed: o.seed,
    faultRate: o.faultRate,
    preferSuccess: o.preferSuccess,
  });
  const rollouts = o.rollouts ?? DEFAULTS.rollouts;
  const concurrency = o.concurrency ?? DEFAULTS.concurrency;
  const situations = withRollouts(plan.walk(), rollouts);
  const runOptions: RunOptions = {
    rows: plan.rows,
    seed: plan.seed,
    fault_rate: plan.faultRate,
    prefer_success: plan.preferSuccess,
    max_turns: o.maxTurns ?? DEFAULTS.maxTurns,
    rollouts,
    // The offline agent applies the slip-rate default; another agent makes no scripted slips.
    slip_rate: policy instanceof OfflineAgent ? policy.slipRate : 0,
    agent: policy.name,
    simulator: writer.name,
    user_model: user.name,
  };
  const tally = new RunTally(agent, o.logprobs === true);
  // What the sink says about rows it kept from an earlier run, once it is open.
  let keptWarnings: readonly string[] = [];
  const meta = (complete: boolean, rows: number): DatasetMeta => ({
    version: 1,
    generator: `rehearse ${pkg.version}`,
    spec: agent.spec,
    spec_hash: agent.hash,
    options: runOptions,
    rows,
    complete,
    coverage: { pairwise: tally.pairwise() },
    quality: tally.quality.result(),
    degraded: { ...roles.degraded, ...tally.degraded() },
    warnings: [...agent.warnings, ...roles.warnings, ...tally.warnings(), ...keptWarnings],
    search: { budget: plan.rows, mutations: [], writer_errors: tally.writerErrors() },
  });

  const total = plan.rows * rollouts;
  const play = ({ situation, rollout }: Play) =>
    playEpisode(agent, situation, policy, writer, user, runOptions.max_turns, rollout);
  if (!o.out) {
    const rows: Row[] = [];
    await runInOrder(
      situations,
      concurrency,
      play,
      async (row) => {
        rows.push(row);
        tally.add(row);
        onProgress?.(rows.length, total);
      },
      signal,
    );
    if (signal?.aborted) throw new SimulationInterrupted(rows.length, null);
    return new Dataset({ rows, meta: meta(true, rows.length) });
  }

  const out = o.out;
  const sink = await RowSink.open(out, meta(false, 0), o.resume === true, (row, index) => {
    const next = situations.next();
    const expected = next.done ? undefined : rowId(next.value.situation, next.value.rollout);
    const refuse = (message: string) =>
      new InputError(`cannot resume ${out}.partial`, [{ path: `row ${index + 1}`, message }]);
    if (row.id !== expected)
      throw refuse(`holds ${row.id}, but this run plans ${expected ?? "no more rows"} there`);
    // The rows name who played them: the check that stands when the partial's sidecar was lost.
    for (const [role, name] of [
      ["agent", runOptions.agent],
      ["user_model", runOptions.user_model],
    ] as const)
      if (row.models[role] !== name)
        throw refuse(
          `was played by ${role} ${row.models[role]}, but this run's ${role} is ${name}`,
        );
    tally.add(row);
  });
  keptWarnings = sink.warnings;
  let written = sink.kept;
  try {
    await runInOrder(
      situations,
      concurrency,
      play,
      async (row) => {
        await sink.write(row);
        tally.add(row);
        written++;
        onProgress?.(written, total);
      },
      signal,
    );
  } catch (error) {
    await sink.close(meta(false, written));
    throw error;
  }
  if (signal?.aborted) {
    await sink.close(meta(false, written));
    throw new SimulationInterrupted(written, sink.paths.partial);
  }
  const final = meta(true, written);
  await sink.finish(final);
  return new Dataset({ path: out, meta: final });
}

/**
 * Runs `work` over the items an iterator yields, at most `concurrency` at a time, and hands results
 * to `keep` in item order. A finished item waits only for those before it, and no lane starts an
 * item more than two windows of `concurrency` ahead of the last one kept, so memory holds a bounded
 * number of results however slow one item is. Stops taking new items once the signal aborts.
 */
async function runInOrder<T, R>(
  items: Iterator<T>,
  concurrency: number,
  work: (item: T) => Promise<R>,
  keep: (result: R) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const done = new Map<number, R>();
  let next = 0;
  let flushed = 0;
  let exhausted = false;
  let failure: unknown = null;
  let flushing = Promise.resolve();
  // A slow item holds back only a bounded window of finished ones: lanes wait rather than run ahead.
  const window = 2 * concurrency;
  const waiting: (() => void)[] = [];
  const wake = () => {
    for (const resume of waiting.splice(0)) resume();
  };
  const flush = async () => {
    while (done.has(flushed)) {
      const result = done.get(flushed) as R;
      done.delete(flushed);
      flushed++;
      wake();
      await keep(result);
    }
  };
  const lane = async () => {
    while (!exhausted && failure === null && !signal?.aborted) {
      while (next - flushed >= window && failure === null)
        await new Promise<void>((resume) => waiting.push(resume));
      if (failure !== null || signal?.aborted) return;
      const item = items.next();
      if (item.done) {
        exhausted = true;
        return;
      }
      const index = next++;
      try {
        done.set(index, await work(item.value));
      } catch (error) {
        failure = error;
        wake();
        return;
      }
      flushing = flushing.then(flush);
      await flushing;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  await flushing;
  if (failure !== null) throw failure;
}

/**
 * What a run says about itself, counted from its rows in plan order (so a resumed run counts the
 * rows it kept, and the same rows always give the same sidecar): coverage, the writer's fallbacks,
 * and the rows a failing role ended early.
 */
class RunTally {
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

  constructor(agent: Agent, logprobs: boolean) {
    this.coverage = new PairwiseCounter(agent);
    this.touched = new PairwiseCounter(agent);
    this.quality = new QualityTally(agent);
    this.#logprobs = logprobs;
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

  add(row: Row): void {
    this.#rows++;
    this.coverage.visit(row.situation.axes);
    if (touchedSituation(row)) this.touched.visit(row.situation.axes);
    this.quality.add(row);
    if (this.#logprobs)
      row.messages.forEach((m, i) => {
        if (m.role !== "assistant" || i <= row.episode.history_turns) return;
        this.#turns++;
        if (m.logprob === undefined) this.#unscored++;
      });
    const fallback = row.episode.writer_fallback;
    if (fallback) {
      this.#fallbacks++;
      this.#lastError = fallback.error;
      if (!this.#errors.includes(fallback.error) && this.#errors.length < KEPT_WRITER_ERRORS)
        this.#errors.push(fallback.error);
    }
    if (row.episode.ended_by === "error") {
      this.#broken++;
      this.#lastBreak = row.episode.errors.at(-1) ?? "";
    }
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

/** One episode to play: a situation and which rollout of it. */
interface Play {
  situation: Situation;
  rollout: number;
}

/** Each situation `rollouts` times in a row, lazily. */
function* withRollouts(situations: Iterator<Situation>, rollouts: number): Generator<Play> {
  for (let next = situations.next(); !next.done; next = situations.next()) {
    for (let rollout = 0; rollout < rollouts; rollout++) yield { situation: next.value, rollout };
  }
}

/** The agent of a simulate target: a spec object, an {@link Agent}, or the path of a JSON spec file. */
async function agentOf(target: unknown): Promise<Agent> {
  if (typeof target !== "string") return Agent.from(target);
  if (
    await stat(target).then(
      (s) => s.isFile(),
      () => false,
    )
  )
    return Agent.load(target);
  throw new InputError("simulate target", [
    {
      path: "",
      message: `"${target.slice(0, 60)}" is not a spec file; drafting an agent from a sentence is not available yet, so pass a spec object or a path to a JSON spec`,
    },
  ]);
}
