import { stat } from "node:fs/promises";
import pkg from "../package.json" with { type: "json" };
import {
  type DatasetMeta,
  DEFAULTS,
  type Row,
  type RunOptions,
  SimulateOptionsSchema,
  type SimulatePlainOptions,
  type Situation,
  type TracePicture,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { parseBackend } from "./backends/backend.ts";
import { Dataset } from "./dataset.ts";
import type { Draft } from "./draft/draft.ts";
import { rowId } from "./episode.ts";
import type { Grader } from "./grade/grade.ts";
import { checkDatasetOutput, RowSink, writeDataset } from "./jsonl.ts";
import { Planner } from "./plan.ts";
import { assignRoles, type RoleChoices } from "./roles/assign.ts";
import { OfflineAgent } from "./roles/offline-agent.ts";
import { playEpisode } from "./rollout.ts";
import { rowJson } from "./row-json.ts";
import { type RunParts, RunTally, sidecarOf } from "./run-tally.ts";
import { traceBudget } from "./search/budget.ts";
import { searchFailures } from "./search/loop.ts";
import { type Shard, shardOf } from "./shard.ts";
import { InputError, issuesOf } from "./util/errors.ts";
import { defaultWorkers, type PlayedRow, WorkerPool } from "./workers/pool.ts";

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
  /** The draft the spec came from (`draftAgent`): the offline drafter standing in for a model is recorded in `degraded.generator_fallback`. */
  draft?: Draft;
  /**
   * Where production traces say the agent fails (`tracePicture`): the rows go there by
   * `traceBudget` instead of down the plain grid, and `data.search.allocation` says where and why.
   */
  traces?: TracePicture;
  /**
   * The customer's grader (the brief's `passgrader=`): rows are played in batches of `batch`, each
   * graded, and one-axis mutations of failing situations run next (`searchFailures`); the rows come
   * back graded, and `data.search.mutations` and `batches` say what the search did.
   */
  grader?: Grader;
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
    draft,
    traces,
    grader,
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
  const total = plan.rows * rollouts;
  const shard = o.shard ? shardOf(o.shard, total) : null;
  if (grader) refuseWithSearch(o);
  const budget = traces
    ? traceBudget(agent, traces, [...plan.walk()], plan.rows, { seed: plan.seed })
    : null;
  const budgeted = budget ? budget.situations[Symbol.iterator]() : plan.walk();
  const situations = slice(withRollouts(budgeted, rollouts), shard);
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
  const run: RunParts = {
    degraded: { ...roles.degraded, ...draftFallback(draft) },
    warnings: [...agent.warnings, ...roles.warnings, ...draftWarnings(draft)],
    ...(budget ? { search: { allocation: budget.entries } } : {}),
    logprobs: o.logprobs === true,
  };
  const meta = (complete: boolean, rows: number): DatasetMeta =>
    sidecarOf(
      {
        generator: `rehearse ${pkg.version}`,
        spec: agent.spec,
        specHash: agent.hash,
        options: runOptions,
        rows,
        complete,
        run,
        kept: keptWarnings,
        ...(shard ? { shard } : {}),
      },
      tally,
    );

  const planned = shard ? shard.end - shard.first : total;
  const offline = offlineRoles({ agent: agentChoice, simulator, userModel });
  // A graded search plays each batch in this thread before choosing the next: no pool to start.
  const workers = grader ? 0 : workerCount(o.workers, offline, planned);
  const pool =
    workers > 0
      ? await WorkerPool.start(workers, {
          spec: agent.spec,
          specHash: agent.hash,
          slipRate: runOptions.slip_rate,
          maxTurns: runOptions.max_turns,
          logprobs: o.logprobs === true,
          keepRows: !o.out,
        })
      : null;
  // In this thread a row is played, then read for the tally; a worker does both and sends the line.
  const play = pool
    ? ({ situation, rollout, keepStart }: Play) => pool.play(situation, rollout, keepStart)
    : async ({ situation, rollout, keepStart }: Play): Promise<PlayedRow> => {
        const row = await playEpisode(
          agent,
          situation,
          policy,
          writer,
          user,
          runOptions.max_turns,
          rollout,
          keepStart,
        );
        return { row, facts: tally.facts(row), line: o.out ? `${rowJson(row, agent)}\n` : "" };
      };
  const lanes = pool ? pool.capacity : concurrency;
  try {
    if (grader) {
      const found = await searchFailures({
        agent,
        grid: plan.walk(),
        rows: plan.rows,
        batch: o.batch ?? DEFAULT_SEARCH_BATCH,
        grader,
        seed: plan.seed,
        run: (batch) =>
          Promise.all(
            batch.map((situation) =>
              playEpisode(agent, situation, policy, writer, user, runOptions.max_turns),
            ),
          ),
      });
      for (const row of found.rows) tally.addFacts(tally.facts(row));
      run.search = {
        mutations: found.mutations.map((mutation) => ({ ...mutation })),
        batches: found.batches,
      };
      const final = meta(true, found.rows.length);
      if (!o.out) return new Dataset({ rows: found.rows, meta: final, summary: tally.summary() });
      await writeDataset(o.out, found.rows, final);
      return new Dataset({ path: o.out, meta: final, summary: tally.summary() });
    }
    if (!o.out) {
      const rows: Row[] = [];
      await runInOrder(
        situations,
        lanes,
        play,
        async (played) => {
          rows.push(played.row as Row);
          tally.addFacts(played.facts);
          onProgress?.(rows.length, planned);
        },
        signal,
      );
      if (signal?.aborted) throw new SimulationInterrupted(rows.length, null);
      return new Dataset({ rows, meta: meta(true, rows.length), summary: tally.summary() });
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
        lanes,
        play,
        async (played) => {
          await sink.writeLine(played.line);
          tally.addFacts(played.facts);
          written++;
          onProgress?.(written, planned);
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
    return new Dataset({ path: out, meta: final, summary: tally.summary() });
  } finally {
    await pool?.close();
  }
}

/** Episodes below which a run stays in this thread by default: starting threads would cost more than they save. */
export const WORKER_MIN_EPISODES = 1000;

/**
 * How many worker threads play the episodes: the `workers` option, else one per core for an
 * offline run of some size, else none (this thread plays them). Model-backed roles wait on the
 * network, not the CPU, so they stay in this thread, where `concurrency` runs them side by side.
 */
function workerCount(asked: number | undefined, offline: boolean, episodes: number): number {
  if (asked !== undefined && asked > 0 && !offline)
    throw new InputError("simulate options", [
      {
        path: "workers",
        message: `worker threads play offline roles only; a model-backed agent, simulator or user model runs in this thread, where concurrency sets how many episodes wait on the network at once: expected workers 0, got ${asked}`,
      },
    ]);
  if (asked !== undefined) return asked;
  return offline && episodes >= WORKER_MIN_EPISODES ? defaultWorkers() : 0;
}

/** Whether every role is played by the offline programs (role objects of your own are not). */
function offlineRoles(choices: Pick<RoleChoices, "agent" | "simulator" | "userModel">): boolean {
  return Object.entries(choices).every(([role, choice]) => {
    if (choice === undefined || choice === "offline") return true;
    if (typeof choice !== "object" || choice === null || !("provider" in choice)) return false;
    return parseBackend(choice, role).provider === "offline";
  });
}

/** The plays of one shard (all of them without one), lazily. */
function* slice(plays: Iterator<Play>, shard: Shard | null): Generator<Play> {
  let at = 0;
  for (let next = plays.next(); !next.done; next = plays.next(), at++) {
    if (shard && at >= shard.end) return;
    if (!shard || at >= shard.first) yield next.value;
  }
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

/** One episode to play: a situation, which rollout of it, and whether to keep its start for the next rollout. */
interface Play {
  situation: Situation;
  rollout: number;
  keepStart: boolean;
}

/** Each situation `rollouts` times in a row, lazily. */
function* withRollouts(situations: Iterator<Situation>, rollouts: number): Generator<Play> {
  for (let next = situations.next(); !next.done; next = situations.next()) {
    for (let rollout = 0; rollout < rollouts; rollout++)
      yield { situation: next.value, rollout, keepStart: rollout < rollouts - 1 };
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
      message: `"${target.slice(0, 60)}" is not a spec file: expected a spec object or a path to a JSON spec; to start from a sentence, draft a spec with draftAgent(sentence) and pass its spec and draft`,
    },
  ]);
}

/** The offline drafter in a model's place, as the run's substitutions record it. */
function draftFallback(draft: Draft | undefined): DatasetMeta["degraded"] {
  if (!draft?.template || draft.fallback === null) return {};
  return {
    generator_fallback: {
      rows: 0,
      last_error: draft.fallback,
      drafter: {
        sentence: draft.sentence,
        template: draft.template.id,
        matched: draft.template.matched,
        behaviour_rule: draft.behaviour?.id ?? null,
        reason: draft.fallback,
      },
    },
  };
}

/** What a reader of a drafted run must know: where its spec came from. */
function draftWarnings(draft: Draft | undefined): string[] {
  if (!draft?.template) return [];
  const behaviour = draft.behaviour
    ? `; the behaviour "${draft.behaviour.said}" is rule ${draft.behaviour.id}${draft.behaviour.tools.length > 0 ? ` on ${draft.behaviour.tools.join(", ")}` : ""} (${draft.behaviour.why})`
    : "";
  return [
    `the spec was drafted offline from the ${draft.template.title} template, chosen by the sentence's words ${draft.template.matched.join(", ")} (${draft.fallback})${behaviour}`,
  ];
}

/** Rows a graded search plays per batch when `batch` is not given. */
export const DEFAULT_SEARCH_BATCH = 16;

/** A graded search decides its rows as it goes: it runs whole, in this thread, one rollout each. */
function refuseWithSearch(o: SimulatePlainOptions): void {
  const clash = (
    [
      ["shard", o.shard !== undefined],
      ["resume", o.resume === true],
      ["workers", (o.workers ?? 0) > 0],
      ["rollouts", (o.rollouts ?? 1) > 1],
    ] as const
  ).filter(([, set]) => set);
  if (clash.length > 0)
    throw new InputError(
      "simulate options",
      clash.map(([name]) => ({
        path: name,
        message:
          "a graded search (grader) chooses its rows as it goes, in this thread, one rollout each; it takes no " +
          name,
      })),
    );
}
