import { type Command, InvalidArgumentError } from "commander";
import {
  Agent,
  checkDatasetOutput,
  checkOutputPath,
  type Dataset,
  type Draft,
  type DraftOptions,
  defaultWorkers,
  draftAgent,
  type Grader,
  graderFrom,
  InputError,
  ingestTraces,
  SimulationInterrupted,
  shownPath,
  simulate,
  tracePicture,
  WORKER_MIN_EPISODES,
  writeFileAtomic,
} from "../env/index.ts";
import {
  type BackendSpec,
  DEFAULTS,
  type Quality,
  type QualityFigure,
  SimulateOptionsSchema,
  type TracePicture,
} from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { reportingLongWork } from "./long-work.ts";
import { backend, flipOptions, number, optionsFrom, seed } from "./options.ts";
import { progressBar } from "./progress.ts";

/** Commander parser for `--shard i/n`: the index (from 0) and the count of shards. */
function shard(value: string): { index: number; count: number } {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  if (!match)
    throw new InvalidArgumentError(
      `expected i/n, the shard's index from 0 and the number of shards (e.g. 0/4), got ${JSON.stringify(value)}`,
    );
  return { index: Number(match[1]), count: Number(match[2]) };
}

/** The flags as commander parsed them: the plain options unchecked, the spec path, the roles. */
interface SimulateFlags extends Record<string, unknown> {
  spec?: string;
  saveSpec?: string;
  json?: boolean;
  overwrite?: boolean;
  agent?: BackendSpec;
  simulator?: BackendSpec;
  userModel?: BackendSpec;
}

/** `rehearse simulate`: runs the conversations of a spec into a JSONL file. */
export function simulateCommand(program: Command, io: Io, done: (code: number) => void): void {
  flipOptions(program.command("simulate"))
    .description(
      "simulate conversations for an agent spec and write them as JSONL (offline by default: no key, no network)",
    )
    .argument(
      "[sentence]",
      'instead of --spec: one sentence describing the agent, e.g. "a personal finance assistant that confirms before it moves money", drafted into a spec (by --simulator when given, else offline from a domain template)',
    )
    .option("--spec <file>", "agent spec (JSON)")
    .option("--save-spec <file>", "with a sentence: write the drafted spec here, to edit and rerun")
    .requiredOption(
      "--out <file>",
      "JSONL file to write (rows stream to <file>.partial until the run is complete)",
    )
    .option(
      "--rows <n>",
      `situations to simulate, each played --rollouts times (default ${DEFAULTS.rows})`,
      number,
    )
    .option(
      "--rollouts <k>",
      `conversations per situation, for repeated-rollout figures (pass^k) and RL groups (default ${DEFAULTS.rollouts})`,
      number,
    )
    .option(
      "--seed <seed>",
      `seed for situations, worlds, people and the offline agent (default ${DEFAULTS.seed}, or the spec's world.seed)`,
      seed,
    )
    .option(
      "--concurrency <n>",
      `episodes run at once in this thread, for model-backed roles (default ${DEFAULTS.concurrency})`,
      number,
    )
    .option(
      "--workers <n>",
      `worker threads playing offline episodes, 0 for this thread alone (default: one per core, ${defaultWorkers()} here, for runs of ${WORKER_MIN_EPISODES} episodes or more); the output is the same for any count`,
      number,
    )
    .option(
      "--shard <i/n>",
      "run only the i-th of n slices of the plan (i from 0, e.g. $JOB_COMPLETION_INDEX/4); join the files with rehearse merge",
      shard,
    )
    .option(
      "--max-turns <n>",
      `assistant messages before an episode is cut off (default ${DEFAULTS.maxTurns})`,
      number,
    )
    .option(
      "--slip-rate <share>",
      `share of episodes in which the offline agent slips (default ${DEFAULTS.slipRate})`,
      number,
    )
    .option(
      "--agent <backend>",
      'the policy: "offline", "openai:<model>", "<model>@<base-url>", or a JSON object',
      backend,
    )
    .option("--simulator <backend>", "the situation writer (same forms as --agent)", backend)
    .option("--user-model <backend>", "the simulated person (same forms as --agent)", backend)
    .option("--logprobs", "record the policy's log-probabilities on every agent turn")
    .option("--resume", "continue an interrupted run from <file>.partial")
    .option(
      "--overwrite",
      "discard <file>.partial and replace <file> once the new run is complete (without it, both are refused)",
    )
    .option(
      "--traces <files...>",
      "production traces (OTLP/JSON) or graded rows: spend the rows where they say the agent fails",
    )
    .option("--trace-labels <file>", "with --traces: JSONL of grades {conversation_id, reward}")
    .option(
      "--grader <module>",
      "your grader: play the rows in batches, grade each, and mutate what fails (rows come back graded)",
    )
    .option("--batch <n>", "with --grader: rows per batch (default 16)", number)
    .option("--json", "print the run's summary as JSON")
    .addHelpText(
      "after",
      '\nExample:\n  rehearse simulate --spec examples/retail-orders.json --rows 64 --out data.jsonl\n  rehearse simulate "a support agent for online orders" --out data.jsonl\n',
    )
    .action(async (sentence: string | undefined, flags: SimulateFlags) =>
      done(await reportingLongWork(io, () => run(sentence, flags, io))),
    );
}

async function run(sentence: string | undefined, flags: SimulateFlags, io: Io): Promise<number> {
  const options = optionsFrom(SimulateOptionsSchema, flags, "simulate");
  if ((sentence === undefined) === (flags.spec === undefined))
    throw new InputError("simulate flags", [
      {
        path: "--spec",
        message:
          "expected exactly one of --spec <file> or a sentence describing the agent (in quotes)",
      },
    ]);
  if (flags.saveSpec !== undefined && sentence === undefined)
    throw new InputError("simulate flags", [
      {
        path: "--save-spec",
        message: "saves a spec drafted from a sentence; --spec is already a file",
      },
    ]);
  const draft = sentence === undefined ? undefined : await draftAgent(sentence, draftChoice(flags));
  if (draft) {
    io.err(`${drafted(draft)}\n`);
    if (flags.saveSpec !== undefined) {
      await checkOutputPath(flags.saveSpec, {
        what: "simulate flags",
        field: "--save-spec",
        writes: [flags.saveSpec],
        reads: [],
      });
      await writeFileAtomic(flags.saveSpec, `${JSON.stringify(draft.spec, null, 2)}\n`);
    }
  }
  const agent = draft ? draft.agent : await Agent.load(flags.spec as string);
  const overwrite = flags.overwrite === true;
  // The SDK checks the output again, but only the CLI knows the spec's path and names the flags.
  await checkDatasetOutput(options.out as string, {
    what: "simulate flags",
    style: "flags",
    reads: [flags.spec, flags.saveSpec].filter((path) => path !== undefined),
    resume: options.resume === true,
    overwrite,
  });
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  // The run knows its total (rows × rollouts, defaults applied); the bar learns it from the first row.
  const bar = progressBar(io, "simulate", "rows");
  try {
    const data = await simulate(agent, {
      ...options,
      overwrite,
      agent: flags.agent,
      simulator: flags.simulator,
      userModel: flags.userModel,
      ...(draft ? { draft } : {}),
      ...(await aimedBy(flags, agent)),
      signal: controller.signal,
      onProgress: (finished, total) => bar.update(finished, total),
    });
    bar.stop();
    io.out(flags.json ? `${JSON.stringify(summaryOf(data), null, 2)}\n` : report(data));
    // A run in which no conversation got past a failing role produced nothing to train on.
    if (data.size > 0 && data.degraded.role_errors?.rows === data.size) {
      io.err(
        `rehearse: every row ended early because a role failed; last error: ${data.degraded.role_errors.last_error}\n`,
      );
      return EXIT.failed;
    }
    // Nor did one whose writer never worked: every opening is the offline writer's, not the model's asked for.
    if (data.size > 0 && data.degraded.generator_fallback?.rows === data.size) {
      io.err(
        `rehearse: every opening fell back to the offline writer: the writer (--simulator) never worked; last error: ${data.degraded.generator_fallback.last_error}\n`,
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  } catch (error) {
    bar.stop();
    if (!(error instanceof SimulationInterrupted)) throw error;
    io.err(`rehearse: ${error.message}\n`);
    return EXIT.interrupted;
  } finally {
    stopListening();
  }
}

/** The figures a person checks after a run: rows, coverage, how conversations ended, the agent's slips (counted as the rows were written). */
function summaryOf(data: Dataset) {
  const { ended_by, slips, errors } = data.summary ?? { ended_by: {}, slips: {}, errors: 0 };
  return {
    path: data.path,
    rows: data.size,
    coverage: data.coverage,
    ended_by,
    slips,
    errors,
    degraded: data.degraded,
    quality: data.quality,
    warnings: data.warnings,
    search: data.search,
  };
}

function report(data: Dataset): string {
  const s = summaryOf(data);
  const pairwise = s.coverage?.pairwise;
  const list = (counts: Record<string, number>) =>
    Object.entries(counts)
      .map(([k, v]) => `${k} ${v}`)
      .join(" · ") || "none";
  return [
    `wrote     ${s.rows} rows to ${shownPath(s.path ?? "")}`,
    pairwise
      ? `coverage  ${pairwise.pairs_covered} / ${pairwise.pairs_planned} pairs = ${pairwise.fraction.toFixed(3)}${pairwise.pairs_touched !== undefined ? `; touched by rows that ran their situation ${pairwise.pairs_touched} = ${(pairwise.touched_fraction ?? 0).toFixed(3)}` : ""}`
      : "coverage  unknown",
    `ended     ${list(s.ended_by)}`,
    `slips     ${list(s.slips)} (offline agent; recorded on each row's episode.slips)`,
    ...qualityLines(s.quality),
    ...searchLines(data),
    ...(Object.keys(s.degraded).length > 0 ? [`degraded  ${JSON.stringify(s.degraded)}`] : []),
    ...s.warnings.map((w) => `warning   ${w}`),
    "",
  ].join("\n");
}

/** The run's own measures of its data, one line, then the tools no row called. */
function qualityLines(quality: Quality | null): string[] {
  if (!quality) return [];
  const share = (f: QualityFigure) =>
    f.fraction === null ? "n/a" : `${(f.fraction * 100).toFixed(1)}%`;
  return [
    `quality   situation tool exercised ${share(quality.situation_tool_exercised)} · goal reached ${share(quality.goal_reached)} (plain rows) · loops ${share(quality.loops)} · empty lookups ${share(quality.empty_lookups)} · sentences in detail arguments ${share(quality.sentence_arguments)} · confirmed writes ${share(quality.confirmed_writes)} · distinct openings ${share(quality.distinct_openings)} · answers off their output schema ${share(quality.answers_off_schema)} · refused calls ${share(quality.refused_calls)}`,
    ...(quality.tools_never_called.length > 0
      ? [`never     called: ${quality.tools_never_called.join(", ")}`]
      : []),
  ];
}

/** The drafter: the --simulator model when one is given, else the offline templates. */
function draftChoice(flags: SimulateFlags): DraftOptions {
  return flags.simulator !== undefined ? { simulator: flags.simulator } : {};
}

/** How the spec was drafted, as the person reads it before the run. */
function drafted(draft: Draft): string {
  if (!draft.template)
    return `drafted   a spec with ${draft.drafter} (${draft.attempts.length} repairs)`;
  const rule = draft.behaviour
    ? `\nbehaviour "${draft.behaviour.said}" → rule ${draft.behaviour.id}: ${draft.behaviour.text} (${draft.behaviour.tools.join(", ") || "every tool"})`
    : "";
  return `drafted   offline from the ${draft.template.title} template (words: ${draft.template.matched.join(", ")}); ${draft.fallback}${rule}`;
}

/** What --traces and --grader make of the run: a traces picture to budget by, a grader to search with. */
async function aimedBy(
  flags: SimulateFlags,
  agent: Agent,
): Promise<{ traces?: TracePicture; grader?: Grader }> {
  const files = flags.traces as string[] | undefined;
  const picture = files
    ? await ingestTraces(files, {
        agent,
        ...(typeof flags.traceLabels === "string" ? { labels: flags.traceLabels } : {}),
      }).then(({ traces, problems }) => tracePicture(traces, problems))
    : undefined;
  const grader = typeof flags.grader === "string" ? await graderFrom(flags.grader) : undefined;
  return { ...(picture ? { traces: picture } : {}), ...(grader ? { grader } : {}) };
}

/** Where a traces budget sent the rows, and what a graded search found, batch by batch. */
function searchLines(data: Dataset): string[] {
  if (data.search.status !== "recorded") return [];
  const { allocation, batches, mutations } = data.search;
  return [
    ...(allocation ?? []).map(
      (entry) => `budget    ${entry.rows} rows → ${entry.cell}: ${entry.reason}`,
    ),
    ...(batches
      ? [
          `search    failing rows per batch ${batches.map((batch) => `${batch.failing}/${batch.rows}`).join(", ")}; ${mutations.length} mutations tried`,
        ]
      : []),
  ];
}
