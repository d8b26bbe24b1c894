import type { ChatMessage, Goal, Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { AGENT_WRITTEN, agentWrites } from "../people/goal.ts";
import { snake } from "../world/model.ts";
import { createWorld, type World } from "../world/world.ts";

/** One check behind a grade, with what it saw. */
export interface Check {
  name: string;
  passed: boolean;
  detail: string;
}

/** A grade: the reward, why, and the checks it rests on. */
export interface Grade {
  reward: number;
  reason: string;
  checks: Check[];
}

const RETRYABLE = new Set(["timeout", "server_error", "rate_limited"]);

/**
 * The records of a world as an outcome is compared against them: each record as JSON, and every
 * id. Taken when an episode starts, so the outcome needs no second world to know what was there.
 */
export interface Baseline {
  records: ReadonlySet<string>;
  ids: ReadonlySet<string>;
}

/** The baseline of a world as it is now. */
export function baselineOf(world: World): Baseline {
  const collections = Object.values(world.store.toJSON());
  return {
    records: new Set(collections.flatMap((records) => records.map((r) => JSON.stringify(r)))),
    ids: new Set(collections.flatMap((records) => records.map((r) => String(Object.values(r)[0])))),
  };
}

/**
 * The outcome check (tau-bench's reward): replay the person's goal on a fresh copy of the world,
 * the way a careful agent would (retrying what can be retried), and compare the final records with
 * what the episode left; for a read, also check that the agent told the person what it found.
 * `baseline` is the world as the episode started (rebuilt from the situation when not given).
 */
export function outcomeGrade(
  agent: Agent,
  situation: Situation,
  goal: Goal,
  world: World,
  messages: readonly ChatMessage[],
  baseline: Baseline = baselineOf(createWorld({ spec: agent, situation, seed: world.seed })),
): Grade {
  const kind = world.model.tools.get(goal.tool)?.kind;
  const reads = kind === "read_one" || kind === "read_many";
  const actual = effects(baseline, world.store.toJSON());
  // The goal's own arguments, or any alternative that would do as well (the other duplicate).
  const replays = [goal.arguments, ...(goal.alternatives ?? [])].map((args) =>
    replay(agent, situation, world.seed, goal.tool, args, reads),
  );
  const match = replays.find((r) => effects(baseline, r.collections) === actual);
  const answer = (match ?? replays[0])?.answer as { ok: boolean; content: string };
  const expected = match
    ? actual
    : effects(
        baseline,
        (replays[0] as { collections: Record<string, Record<string, unknown>[]> }).collections,
      );
  const state: Check = {
    name: "goal_state",
    passed: expected === actual,
    detail:
      expected === actual
        ? "the records match the goal's outcome"
        : "the records differ from what the goal's call would leave",
  };
  const checks = [state];
  if (answer.ok && reads && !spoiled(answer.content))
    checks.push(toldFacts(answer.content, messages));
  const failed = checks.filter((c) => !c.passed);
  return {
    reward: failed.length === 0 ? 1 : 0,
    reason:
      failed.length === 0
        ? `goal reached: ${goal.text.replace(/[\uE000\uE001]/g, "")}`
        : failed.map((c) => c.detail).join("; "),
    checks,
  };
}

/** The goal's call on a fresh world, as a careful agent makes it; the answer and the records it leaves. */
function replay(
  agent: Agent,
  situation: Situation,
  seed: number,
  tool: string,
  goalArgs: Record<string, unknown>,
  reads: boolean,
) {
  const gold = createWorld({ spec: agent, situation, seed });
  const args = { ...goalArgs };
  const model = gold.model.tools.get(tool);
  for (const param of model?.tool.parameters.required ?? []) {
    if (args[param] === undefined && model && agentWrites(model, param))
      args[param] = "written by the agent";
  }
  // A careful agent asks again after a fault that did nothing (a timeout), and re-reads a spoiled
  // read; it does not repeat a write whose answer came back spoiled, because the write happened.
  const again = (a: { error?: string; content: string }) =>
    (a.error !== undefined && RETRYABLE.has(a.error)) || (reads && spoiled(a.content));
  let answer = gold.call(tool, args);
  for (let retry = 0; retry < 2 && again(answer); retry++) answer = gold.call(tool, args);
  return { answer, collections: gold.store.toJSON() };
}

/**
 * The records a run changed, created or removed, as one comparable string: ids of records made
 * during the run are replaced by `<new>` (their order of creation is not part of the outcome), and
 * `updated_at` stamps are left out.
 */
function effects(baseline: Baseline, final: Record<string, Record<string, unknown>[]>): string {
  const { records: before, ids } = baseline;
  const created = new Set(
    Object.values(final).flatMap((records) =>
      records.map((r) => String(Object.values(r)[0])).filter((id) => !ids.has(id)),
    ),
  );
  // An empty id would match everywhere and never move the pass on.
  const lengths = [...new Set([...created].map((id) => id.length))]
    .filter((n) => n > 0)
    .sort((a, b) => b - a);
  const out: string[] = [];
  for (const [collection, records] of Object.entries(final)) {
    for (const record of records) {
      // Wording the agent writes itself (a hand-off summary, a resolution note) is not part of the outcome.
      const rest = Object.fromEntries(
        Object.entries(record).filter(([k]) => k !== "updated_at" && !AGENT_WRITTEN.test(snake(k))),
      );
      if (before.has(JSON.stringify(record))) continue;
      out.push(`${collection} ${replaceIds(JSON.stringify(rest), created, lengths)}`);
    }
  }
  const after = new Set(
    Object.values(final).flatMap((records) => records.map((r) => String(Object.values(r)[0]))),
  );
  for (const id of ids) if (!after.has(id)) out.push(`removed ${id}`);
  return out.sort().join("\n");
}

/**
 * `text` with every id of `ids` replaced by `<new>`, in one pass from left to right, trying the
 * longest id first where several start at one place. `lengths` are the ids' lengths, longest
 * first. A pass per id would cost ids × records × text: quadratic in the calls an episode made.
 */
function replaceIds(text: string, ids: ReadonlySet<string>, lengths: readonly number[]): string {
  let out = "";
  let kept = 0;
  let i = 0;
  while (i < text.length) {
    const length = lengths.find((n) => ids.has(text.slice(i, i + n)));
    if (length === undefined) {
      i++;
      continue;
    }
    out += `${text.slice(kept, i)}<new>`;
    i += length;
    kept = i;
  }
  return out + text.slice(kept);
}

/** Whether an answer does not parse, or came back partial. */
function spoiled(content: string): boolean {
  try {
    const body = JSON.parse(content) as { warnings?: unknown };
    return Array.isArray(body.warnings) && body.warnings.length > 0;
  } catch {
    return true;
  }
}

/** Whether the agent's words carry the facts the read returned (a status, an amount). */
function toldFacts(content: string, messages: readonly ChatMessage[]): Check {
  const said = messages
    .filter((m) => m.role === "assistant" && typeof m.content === "string")
    .map((m) => m.content as string)
    .join(" ")
    .toLowerCase();
  const facts = factsOf(JSON.parse(content) as Record<string, unknown>);
  const missing = facts.filter((f) => !said.includes(f.toLowerCase()));
  return {
    name: "told_facts",
    passed: missing.length === 0,
    detail:
      missing.length === 0
        ? "the agent told the person what the tool returned"
        : `the agent never said ${missing.map((m) => `"${m}"`).join(", ")}`,
  };
}

/** The facts a read returned that a person would need told: the first records of a list, or the first plain fields of a record (timestamps left out). */
function factsOf(body: Record<string, unknown>): string[] {
  const list = Object.values(body).find(Array.isArray) as Record<string, unknown>[] | undefined;
  if (list && typeof body.count === "number")
    return list.slice(0, 3).map((r) => String(Object.values(r)[0]));
  return Object.entries(body)
    .filter(
      ([k, v]) =>
        k !== "warnings" &&
        (typeof v === "string" || typeof v === "number") &&
        !/(_at|_time)$/.test(k),
    )
    .slice(1, 4)
    .map(([, v]) => (typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : String(v)));
}
