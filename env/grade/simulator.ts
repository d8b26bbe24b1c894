import type { Row, SimFinding } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { IdentifierReader, SaidSoFar } from "../text/identifiers.ts";
import { awaitsGoAhead } from "../text/phrases.ts";
import { WorldModel } from "../world/model.ts";
import { failedAnswer } from "./conduct.ts";
import { around, excerpt, FindingList } from "./evidence.ts";

/** Speaking as the assistant or about the simulation. */
const OUT_OF_CHARACTER = new RegExp(
  [
    String.raw`\bas an ai\b|\blanguage model\b`,
    String.raw`\bi(?: am|'?m) an? (ai|assistant|bot|chatbot)\b(?![ -](manager|director|editor|coach|professor|to)\b)`,
    String.raw`\b(this is|i'?m|i am|you'?re) (just )?(a |an |in a )?simulat(ed|ion)\b|\bsimulated (user|person|customer|conversation)\b|\brole-?play(ing)?\b`,
    String.raw`\bhow (can|may) i (help|assist) you( today)?\b|\bi cannot assist with\b`,
  ].join("|"),
  "i",
);
/** An agent saying a request was not or will not be done here: a refusal, a failure, a hand-off. */
const TOLD_NOT_DONE =
  /\b(sorry|can't|cannot|couldn't|could not|unable|not able|won't|will not|didn't|did not|pass you|colleague|transferr?(ed|ing)? you|specialist|nothing more|no longer)\b/i;
/** Control markers are upper case ("###STOP###"); "Order ###" is a person's typing. */
const LEAKED_MARKER = /###\s*[A-Z_]{3,}|<\|/;

/**
 * Checks on the simulated person, because a simulator's mistake must not be blamed on the agent:
 * the person ended while the agent was still waiting to act; stated details they do not hold;
 * or broke character (talked like an assistant, mentioned being simulated).
 */
export function simulatorChecks(
  agent: Agent,
  row: Pick<Row, "messages" | "episode" | "persona"> & { conduct?: Row["conduct"] },
): SimFinding[] {
  const ids = IdentifierReader.of(agent);
  const findings = new FindingList<SimFinding>();
  // People and agents change the case of emails and ids ("w1234567"); that is the same detail.
  const known = new Set(
    [...row.persona.holds, ...row.persona.misstated].map((v) => v.toLowerCase()),
  );
  const told = new SaidSoFar();
  row.messages.forEach((message, i) => {
    if (message.role === "tool" || message.role === "assistant") {
      told.add(message.content ?? "");
      for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : [])
        told.add(call.function.arguments);
      return;
    }
    if (message.role !== "user") return;
    for (const { value: id, at } of ids.locate(message.content)) {
      if (!known.has(id.toLowerCase()) && !told.has(id))
        findings.push("stated_unheld_details", () => ({
          check: "stated_unheld_details",
          detail: `the person stated ${id}, which they do not hold and nobody told them`,
          evidence: { message: i, text: excerpt(message.content, id, at), value: id },
        }));
    }
    if (OUT_OF_CHARACTER.test(message.content) || LEAKED_MARKER.test(message.content)) {
      findings.push("broke_character", () => {
        const said = OUT_OF_CHARACTER.exec(message.content) ?? LEAKED_MARKER.exec(message.content);
        return {
          check: "broke_character",
          detail: "the person spoke out of character (as an assistant, or about the simulation)",
          evidence: { message: i, text: excerpt(message.content, said?.[0] ?? "", said?.index) },
        };
      });
    }
  });
  const ended = endedBeforeAction(agent, row);
  if (ended) findings.push(ended.check, () => ended);
  else {
    const content = satisfiedWithoutOutcome(row);
    if (content) findings.push(content.check, () => content);
  }
  return findings.list();
}

/**
 * tau2-bench's finding: the person ends right after being asked to confirm, before the write
 * happens. The person's last message may be absent (a model user that sent only the end marker).
 */
function endedBeforeAction(
  agent: Agent,
  row: Pick<Row, "messages" | "episode">,
): SimFinding | null {
  if (row.episode.ended_by !== "user_done") return null;
  const goalTool = row.episode.goal.tool;
  const goal = WorldModel.of(agent).tools.get(goalTool);
  if (goal?.kind !== "change" && goal?.kind !== "create") return null;
  // Once the goal's write went through, a question after it ("Shall I also email a receipt?") is optional.
  const written = row.messages.some(
    (m) => m.role === "tool" && m.name === goalTool && !failedAnswer(m.content),
  );
  if (written) return null;
  const last = row.messages.length - 1;
  const final = row.messages[last];
  const askedAt = final?.role === "user" ? last - 1 : last;
  const asked = row.messages[askedAt];
  if (asked?.role !== "assistant" || !awaitsGoAhead(asked.content ?? "")) return null;
  return {
    check: "ended_before_action",
    detail: "the person ended the conversation while the agent was waiting to act on their request",
    evidence:
      final?.role === "user"
        ? { message: last, text: around(final.content, "", final.content.length) }
        : { message: askedAt, text: around(asked.content ?? "", "", (asked.content ?? "").length) },
  };
}

/**
 * The person left content while what they came for did not happen, and no one told them it had:
 * a person too easily satisfied. When the agent claimed a change it never made, the person was
 * misled, and that is the agent's finding, not the person's.
 */
function satisfiedWithoutOutcome(
  row: Pick<Row, "messages" | "episode"> & { conduct?: Row["conduct"] },
): SimFinding | null {
  const { outcome, ended_by, slips } = row.episode;
  if (ended_by !== "user_done" || !outcome || outcome.reached) return null;
  const misled =
    slips.some((s) => s.kind === "claimed_unperformed_action") ||
    (row.conduct ?? []).some(
      (f) => f.check === "unbacked_action_claim" || f.check === "success_after_failure",
    );
  if (misled) return null;
  // Told it could not be done, or that someone else will do it, a person may well leave content.
  const said = row.messages.findLast((m) => m.role === "assistant" && (m.content ?? "") !== "");
  if (said && TOLD_NOT_DONE.test(said.content ?? "")) return null;
  const last = row.messages.length - 1;
  const final = row.messages[last];
  return {
    check: "satisfied_without_outcome",
    detail: `the person left satisfied, but ${outcome.reason}`,
    evidence: {
      message: last,
      text: final?.role === "user" ? around(final.content, "", final.content.length) : "",
    },
  };
}
