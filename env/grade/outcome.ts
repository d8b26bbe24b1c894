import type { ChatMessage, Check, CheckedGrade, Goal, Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { AGENT_WRITTEN, composedByAgent } from "../text/agent-written.ts";
import { canonicalJson } from "../util/hash.ts";
import { saysValue, snake } from "../util/names.ts";
import { parsedJson } from "../util/parsed.ts";
import { spoiled } from "../world/faults.ts";
import { numberedBy } from "../world/record-numbers.ts";
import { type Baseline, createWorld, type ToolAnswer, type World } from "../world/world.ts";

const RETRYABLE = new Set(["timeout", "server_error", "rate_limited"]);

/**
 * The outcome check (tau-bench's reward): replay the person's goal on a fresh copy of the world,
 * the way a careful agent would (retrying what can be retried), and compare the records it leaves
 * with what the episode left; for a read, also check that the agent told the person what it
 * found. `baseline` is the world as the episode started, taken with {@link World.baseline} (the
 * world is rebuilt from the situation when none was taken).
 */
export function outcomeGrade(
  agent: Agent,
  situation: Situation,
  goal: Goal,
  world: World,
  messages: readonly ChatMessage[],
  baseline?: Baseline,
): CheckedGrade {
  const start = baseline ?? createWorld({ spec: agent, situation, seed: world.seed }).baseline();
  const kind = world.model.tools.get(goal.tool)?.kind;
  const reads = kind === "read_one" || kind === "read_many";
  // What the agent words itself (a summary, a hand-off's question) is not part of the outcome,
  // nor is what a hand-off may carry beyond what the person asked for (the account it found):
  // a colleague is given the context, and the person is handed over all the same.
  const goalTool = world.model.tools.get(goal.tool);
  const required = new Set(goalTool?.tool.parameters.required ?? []);
  const composed = new Set(
    Object.keys(goalTool?.tool.parameters.properties ?? {})
      .filter(
        (param) =>
          goalTool &&
          (composedByAgent(goalTool, param) ||
            (goalTool.kind === "handoff" && !required.has(param) && !(param in goal.arguments))),
      )
      .map((param) => snake(param)),
  );
  // Handing the person over is no change to what they came for: a request that could not be done
  // and was passed on when they asked for someone is as reached as one only refused, and a change
  // made before the hand-off stands.
  const handedOver = new Set(
    goalTool?.kind === "handoff"
      ? []
      : [...world.model.tools.values()].filter((t) => t.kind === "handoff").map((t) => t.entity),
  );
  const actual = effects(start, world, composed, handedOver);
  // The goal's own arguments, or any alternative that would do as well (the other duplicate).
  // A read replayed on records nothing has changed can read them where they are.
  const untouched = [...(world.store.touched() ?? [["", new Set([""])]])].every(
    ([, ids]) => ids.size === 0,
  );
  // A person not on file (their record missing) asking after a record someone on file holds has
  // nothing of theirs to have done or told: the goal is that nothing is.
  const replays = namesOthersRecord(goal, world, start)
    ? [{ answer: NOTHING_DONE, world: world.startOver(start) }]
    : [
        ...[
          goal.arguments,
          ...(goal.alternatives ?? []),
          ...ownRecordsNamed(goal, world, messages),
        ].map((args) =>
          replay(
            reads && untouched ? world.freshCalls() : world.startOver(start),
            goal.tool,
            args,
            reads,
          ),
        ),
        // A hand-off about a record that is not there (emptied, or missing) may be made, with
        // what the person said of it, or be told it cannot be found: a colleague has nothing to take over.
        ...(handsOverNothing(goal, world, start)
          ? [{ answer: NOTHING_DONE, world: world.startOver(start) }]
          : []),
      ];
  const outcomes = replays.map((r) => effects(start, r.world, composed, handedOver));
  const matching = replays.filter((_, i) => outcomes[i] === actual);
  const state: Check = {
    name: "goal_state",
    passed: matching.length > 0,
    detail:
      matching.length > 0
        ? "the records match the goal's outcome"
        : "the records differ from what the goal's call would leave",
  };
  const checks = [state];
  // A read leaves the records as they were whichever alternative it is: what the agent told is
  // held against each one's answer, and any it does justice to counts (one that found nothing
  // asks nothing told: refusing a wrong id is right).
  const told = (matching.length > 0 ? matching : replays.slice(0, 1)).map((r) => {
    const answer = r.answer as { ok: boolean; content: string };
    return answer.ok && reads && !spoiled(answer.content)
      ? toldFacts(answer.content, messages)
      : null;
  });
  const settled = told.findIndex((check) => check === null || check.passed);
  const toldCheck = told[Math.max(0, settled)];
  if (toldCheck) checks.push(toldCheck);
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

/** Whether the goal hands the person over about a record, named by its id, that the world began without. */
function handsOverNothing(goal: Goal, world: World, start: Baseline): boolean {
  const tool = world.model.tools.get(goal.tool);
  if (tool?.kind !== "handoff") return false;
  return tool.refs.some((ref) => {
    const value = goal.arguments[ref.param];
    return (
      ref.by === "id" &&
      !ref.many &&
      (typeof value === "string" || typeof value === "number") &&
      start.records.get(ref.entity)?.has(String(value)) !== true
    );
  });
}

/** The answer of a request that is not to be carried out. */
const NOTHING_DONE: ToolAnswer = { ok: false, content: "", error: "not_theirs" };

/**
 * Whether the person is not on file (record_missing of the person) and the goal names a record of
 * someone on file by its id or its own number (the prescription they quote): no check of theirs
 * can show it is theirs.
 */
function namesOthersRecord(goal: Goal, world: World, start: Baseline): boolean {
  const { missing } = world.state.shaped as { missing?: { entity?: string; param?: string } };
  if (missing?.entity !== world.model.person.name || missing.param) return false;
  const tool = world.model.tools.get(goal.tool);
  const quoted = Object.entries(goal.arguments).filter(
    ([param, value]) =>
      (typeof value === "string" || typeof value === "number") &&
      (tool?.idEntities.has(param) || numberedBy(world.model, param).length > 0),
  );
  if (quoted.length === 0) return false;
  const owner = world.model.person.idField;
  for (const entity of world.model.entities.values()) {
    if (entity.catalog || entity.isPerson) continue;
    for (const record of start.records.get(entity.name)?.values() ?? []) {
      if (record[owner] === undefined) continue;
      for (const [param, value] of quoted)
        if (
          String(record[entity.idField]) === String(value) ||
          String(record[snake(param)]) === String(value)
        )
          return true;
    }
  }
  return false;
}

/**
 * The goal with a record of the person's that the agent's call of it named for an optional
 * reference the goal leaves open (the account an outage is reported on, found to verify them):
 * the request is done on it as well as without it. A record not theirs is no such context.
 */
function ownRecordsNamed(
  goal: Goal,
  world: World,
  messages: readonly ChatMessage[],
): Record<string, unknown>[] {
  const tool = world.model.tools.get(goal.tool);
  if (!tool || tool.kind === "handoff") return [];
  const required = new Set(tool.tool.parameters.required ?? []);
  const open = tool.refs.filter(
    (r) => !r.many && !required.has(r.param) && !(r.param in goal.arguments),
  );
  if (open.length === 0) return [];
  const personId = world.state.person.customer_id;
  const out = new Map<string, Record<string, unknown>>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      if (call.function.name !== goal.tool) continue;
      const args = parsedJson(call.function.arguments) as Record<string, unknown> | undefined;
      for (const ref of open) {
        const named = args?.[ref.param];
        if (typeof named !== "string" && typeof named !== "number") continue;
        const idField = world.model.entities.get(ref.entity)?.idField ?? "";
        const own = world.store
          .ownedBy(ref.entity, personId)
          .some((r) => String(r[idField]) === String(named));
        if (own) out.set(`${ref.param}\u0000${named}`, { ...goal.arguments, [ref.param]: named });
      }
    }
  }
  return [...out.values()];
}

/** The goal's call on a fresh world, as a careful agent makes it: its answer, and the world after. */
function replay(gold: World, tool: string, goalArgs: Record<string, unknown>, reads: boolean) {
  const args = { ...goalArgs };
  const model = gold.model.tools.get(tool);
  for (const param of model?.tool.parameters.required ?? []) {
    if (args[param] === undefined && model && composedByAgent(model, param))
      args[param] = "written by the agent";
  }
  // A careful agent asks again after a fault that did nothing (a timeout), and re-reads a spoiled
  // read; it does not repeat a write whose answer came back spoiled, because the write happened.
  const again = (a: { error?: string; content: string }) =>
    (a.error !== undefined && RETRYABLE.has(a.error)) || (reads && spoiled(a.content));
  let answer = gold.call(tool, args);
  for (let retry = 0; retry < 2 && again(answer); retry++) answer = gold.call(tool, args);
  return { answer, world: gold };
}

/**
 * The records a run changed, created or removed since the baseline, as one comparable string:
 * ids of records made during the run are replaced by `<new>` (their order of creation is not part
 * of the outcome), and `updated_at` stamps are left out. Only the records the store saw touched
 * are read, but for those of `ignored` entities.
 */
function effects(
  baseline: Baseline,
  world: World,
  composed: ReadonlySet<string>,
  ignored: ReadonlySet<string>,
): string {
  const { store } = world;
  // A store that was not tracking since the baseline is compared record by record.
  const touched = store.touched() ?? everyRecord(baseline, world);
  const created = new Set<string>();
  for (const [entity, ids] of touched)
    for (const id of ids) if (!baseline.records.get(entity)?.has(id)) created.add(id);
  // An empty id would match everywhere and never move the pass on.
  const lengths = [...new Set([...created].map((id) => id.length))]
    .filter((n) => n > 0)
    .sort((a, b) => b - a);
  const out: string[] = [];
  for (const [entity, ids] of touched) {
    if (ignored.has(entity)) continue;
    const collection = world.model.entities.get(entity)?.collection ?? entity;
    for (const id of ids) {
      const before = baseline.records.get(entity)?.get(id);
      const record = store.get(entity, id);
      if (!record) {
        if (before !== undefined) out.push(`removed ${id}`);
        continue;
      }
      if (before !== undefined && JSON.stringify(record) === JSON.stringify(before)) continue;
      // Wording the agent writes itself (a hand-off summary, a resolution note) is not part of the outcome.
      const rest = Object.fromEntries(
        Object.entries(record).filter(
          ([k]) => k !== "updated_at" && !AGENT_WRITTEN.test(snake(k)) && !composed.has(k),
        ),
      );
      // Keys in a fixed order: a record made by a call holds its fields in the order it named them.
      out.push(`${collection} ${replaceIds(canonicalJson(rest), created, lengths)}`);
    }
  }
  return out.sort().join("\n");
}

/** Every record of the baseline and of the world now, by entity. */
function everyRecord(baseline: Baseline, world: World): Map<string, ReadonlySet<string>> {
  const all = new Map<string, ReadonlySet<string>>();
  for (const entity of world.model.entities.values()) {
    const ids = new Set(baseline.records.get(entity.name)?.keys());
    for (const record of world.store.all(entity.name)) ids.add(String(record[entity.idField]));
    all.set(entity.name, ids);
  }
  return all;
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

/** Whether the agent's words carry the facts the read returned (a status, an amount). */
function toldFacts(content: string, messages: readonly ChatMessage[]): Check {
  const said = messages
    .filter((m) => m.role === "assistant" && typeof m.content === "string")
    .map((m) => m.content as string)
    .join(" ")
    .toLowerCase();
  const facts = factsOf(parsedJson(content) as Record<string, unknown>);
  // A code said in words ("waiting on insurance") is said: a person is told it so.
  const missing = facts.filter((f) => !saysValue(said, f));
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
