import {
  type BackendSpec,
  type DatasetMeta,
  DatasetMetaSchema,
  type Row,
  RowSchema,
  type Situation,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { rowId } from "./episode.ts";
import { parseRow } from "./jsonl.ts";
import { situationId } from "./plan.ts";
import { assignRoles } from "./roles/assign.ts";
import type { AgentPolicy, SituationWriter, UserSimulator } from "./roles/types.ts";
import { playEpisode } from "./rollout.ts";
import { InputError, issuesOf } from "./util/errors.ts";
import { canonicalJson } from "./util/hash.ts";

/** How to replay a row: the run it came from, and who plays each role this time. */
export interface ReplayOptions {
  /** The run's sidecar (`<file>.meta.json`, `Dataset.meta`): the spec and the options that decided the row. */
  meta: DatasetMeta | null;
  /**
   * The agent this time: left out (or the row's own), the row is replayed to see whether it
   * reproduces; another one plays the same situation, and both rows come back side by side.
   */
  agent?: BackendSpec | AgentPolicy;
  /** The situation writer, needed when a model wrote the row's opening. */
  simulator?: BackendSpec | SituationWriter;
  /** The user model, needed when a model played the row's person. */
  userModel?: BackendSpec | UserSimulator;
  /** A fetch for every model client (tests, proxies). */
  fetch?: typeof fetch;
}

/** Where two rows first part: the JSON path, and the index of the message it is in (null outside `messages`). */
export interface RowDifference {
  path: string;
  message: number | null;
}

/** What a replay found: the row as written, the row played again, and whether they are the same bytes. */
export interface RowReplay {
  /** The row's id, its situation's id and which rollout of the situation it was. */
  row: string;
  situation: string;
  rollout: number;
  /** `reproduce`: the same roles played it again; `compare`: another agent played the same situation. */
  mode: "reproduce" | "compare";
  /**
   * Whether the replayed row's JSON is the original line byte for byte (an object or a graded
   * line: the same JSON up to key order); null when comparing agents.
   */
  reproduced: boolean | null;
  /** Where the two rows first differ (null when they are the same bytes). */
  difference: RowDifference | null;
  /** Fields the original carries from after it was played (a grade, labels): not replayed, so not compared. */
  not_compared: string[];
  /** The agent of each row. */
  agents: { original: string; replayed: string };
  original: Row;
  replayed: Row;
}

/** Row fields set after an episode is played (grading, labels); a replay does not make them. */
const AFTER_PLAY = [
  "reward",
  "reason",
  "failure_class",
  "judge_meta",
  "grade_error",
  "labels",
  "gold_reward",
  "policy_version",
] as const;

/**
 * Replays one row alone, from its situation, seed and rollout, with the spec and options of the
 * run that made it (its sidecar), through the one engine (`playEpisode`). With the row's own
 * roles it reports whether the new row is the old one byte for byte (`row` may be the JSONL line
 * itself, compared as written); with another `agent` it plays the same situation with that policy.
 *
 * @example
 * const data = await loadDataset("data.jsonl");
 * const [row] = await data.rows();
 * const replay = await replayRow(row, { meta: data.meta });
 * console.log(replay.reproduced, replay.difference);
 */
export async function replayRow(row: Row | string, options: ReplayOptions): Promise<RowReplay> {
  const { original, given, text } = rowOf(row);
  const meta = metaOf(options?.meta);
  const agent = Agent.from(meta.spec);
  const situation = situationOf(agent, original);
  const rollout = rolloutOf(original, situation, meta.options.rollouts);
  const ran = meta.options;
  const roles = assignRoles({
    agent: options.agent ?? roleChoice("agent", ran.agent),
    simulator: options.simulator ?? roleChoice("simulator", ran.simulator),
    userModel: options.userModel ?? roleChoice("userModel", ran.user_model),
    // The offline agent slips at the run's rate; a model agent asks for log-probabilities when the row has them.
    ...(ran.agent === "offline" ? { slipRate: ran.slip_rate } : {}),
    logprobs: original.messages.some((m) => m.role === "assistant" && m.logprob !== undefined),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const replayed = await playEpisode(
    agent,
    situation,
    roles.agent,
    roles.writer,
    roles.user,
    ran.max_turns,
    rollout,
  );
  const mode = roles.agent.name === original.models.agent ? "reproduce" : "compare";
  const notCompared = AFTER_PLAY.filter((field) => original[field] !== undefined);
  // A line as simulate wrote it is compared byte for byte. An object, or a line a later step
  // rewrote (a grade), went through the schema, which puts keys in its order rather than the
  // engine's: those are compared with their keys sorted.
  const kept = notCompared.length === 0 ? given : played(given as Record<string, unknown>);
  const asWritten = text !== null && notCompared.length === 0;
  const before = asWritten ? (text as string) : serialise(kept, false);
  const after = serialise(replayed, asWritten);
  const same = before === after;
  return {
    row: original.id,
    situation: situation.id,
    rollout,
    mode,
    reproduced: mode === "reproduce" ? same : null,
    difference: same ? null : firstDifference(kept, replayed, { sortedKeys: !asWritten }),
    not_compared: notCompared,
    agents: { original: original.models.agent, replayed: replayed.models.agent },
    original,
    replayed,
  };
}

/** The row, checked by its schema; the value it is compared as; and its line, when given as one. */
function rowOf(row: Row | string): { original: Row; given: unknown; text: string | null } {
  if (typeof row === "string") {
    const line = row.replace(/\r?\n$/, "");
    return { original: parseRow(line, "row", 1), given: JSON.parse(line), text: line };
  }
  const parsed = RowSchema.safeParse(row);
  if (!parsed.success) throw new InputError("row", issuesOf(parsed.error, row));
  return { original: parsed.data, given: row, text: null };
}

/** JSON as written (a line's comparison), or with keys sorted (an object's). */
function serialise(value: unknown, asWritten: boolean): string {
  return asWritten ? JSON.stringify(value) : canonicalJson(value);
}

/** The run's sidecar, checked: a row cannot be replayed without the spec and options that made it. */
function metaOf(meta: unknown): DatasetMeta {
  if (meta === undefined || meta === null)
    throw new InputError("replay options", [
      {
        path: "meta",
        message:
          "expected the run's sidecar (Dataset.meta, or <file>.meta.json): it holds the spec and options that decided the row",
      },
    ]);
  const parsed = DatasetMetaSchema.safeParse(meta);
  if (!parsed.success) throw new InputError("replay options: meta", issuesOf(parsed.error, meta));
  return parsed.data;
}

/** The situation the row played, checked against the spec: its id is the spec's hash, coordinate and seed. */
function situationOf(agent: Agent, row: Row): Situation {
  const { id, axes, seed, cell, pass, flipped_from } = row.situation;
  if (situationId(agent.hash, axes, seed) !== id)
    throw new InputError(`row ${row.id}`, [
      {
        path: "situation.id",
        message: `${id} is not a situation of this sidecar's spec (${agent.hash.slice(0, 12)}…): expected the row and the .meta.json of the same run`,
      },
    ]);
  return { id, axes, seed, cell, pass, ...(flipped_from ? { flipped_from } : {}) };
}

/** Which rollout of its situation the row was: the one whose row id it carries. */
function rolloutOf(row: Row, situation: Situation, rollouts: number): number {
  for (let rollout = 0; rollout < rollouts; rollout++)
    if (rowId(situation, rollout) === row.id) return rollout;
  throw new InputError(`row ${row.id}`, [
    {
      path: "id",
      message: `is not the id of rollout 0 to ${rollouts - 1} of ${situation.id}: expected a row written by simulate (a row named by its episode_id on the server cannot be matched to a rollout)`,
    },
  ]);
}

/** A role the run played offline is played offline again; a model's role needs its backend given. */
function roleChoice(role: "agent" | "simulator" | "userModel", played: string): "offline" {
  if (played === "offline") return "offline";
  throw new InputError("replay options", [
    {
      path: role,
      message: `the row's ${role} was ${played}, a model: pass its backend (${role}: "${played}") to replay the row`,
    },
  ]);
}

/** The row as it was when played: without the fields grading and labelling added. */
function played(row: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...row };
  for (const field of AFTER_PLAY) delete copy[field];
  return copy;
}

/**
 * The first JSON path at which two values differ, in the order their JSON is written; with
 * `sortedKeys`, values whose keys differ only in order count as the same.
 */
export function firstDifference(
  before: unknown,
  after: unknown,
  options: { sortedKeys?: boolean } = {},
): RowDifference {
  const path = differingPath(before, after, "", (value) => serialise(value, !options.sortedKeys));
  const message = /^messages\[(\d+)\]/.exec(path);
  return { path: path || "(whole row)", message: message ? Number(message[1]) : null };
}

function differingPath(a: unknown, b: unknown, at: string, json: (v: unknown) => string): string {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++)
      if (json(a[i]) !== json(b[i])) return differingPath(a[i], b[i], `${at}[${i}]`, json);
    return `${at}[${Math.min(a.length, b.length)}]`;
  }
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const key of keys) {
      const where = at ? `${at}.${key}` : key;
      if (json(a[key]) !== json(b[key])) return differingPath(a[key], b[key], where, json);
    }
    // The same fields and values, written in another order.
    return at;
  }
  return at;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
