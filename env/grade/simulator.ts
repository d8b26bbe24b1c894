import type { Row, SimFinding } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { WorldModel } from "../world/model.ts";
import { IdentifierReader } from "./identifiers.ts";

const CONFIRMATION =
  /\b(shall|should|may|can) i\b[^?]*\?|\bgo ahead\?|\bproceed\?|\bdo you want me to\b/i;
const OUT_OF_CHARACTER =
  /\b(as an ai|language model|i am an? (ai|assistant|bot|chatbot)|i'?m an? (ai|assistant|bot|chatbot)|simulat(ed|ion|or)|role-?play(ing)?|how (can|may) i (help|assist) you( today)?|i cannot assist with)\b|###|<\|/i;

/**
 * Checks on the simulated person, because a simulator's mistake must not be blamed on the agent:
 * the person ended while the agent was still waiting to act; stated details they do not hold;
 * or broke character (talked like an assistant, mentioned being simulated).
 */
export function simulatorChecks(
  agent: Agent,
  row: Pick<Row, "messages" | "episode" | "persona">,
): SimFinding[] {
  const ids = new IdentifierReader(agent);
  const findings: SimFinding[] = [];
  const known = new Set([...row.persona.holds, ...row.persona.misstated]);
  row.messages.forEach((message, i) => {
    if (message.role === "tool" || message.role === "assistant") {
      for (const id of ids.read(
        message.role === "tool"
          ? message.content
          : `${message.content ?? ""} ${(message.tool_calls ?? []).map((c) => c.function.arguments).join(" ")}`,
      ))
        known.add(id);
      return;
    }
    if (message.role !== "user") return;
    for (const id of ids.read(message.content)) {
      if (!known.has(id))
        findings.push({
          check: "stated_unheld_details",
          detail: `the person stated ${id}, which they do not hold and nobody told them`,
          evidence: { message: i, text: message.content, value: id },
        });
    }
    if (OUT_OF_CHARACTER.test(message.content)) {
      findings.push({
        check: "broke_character",
        detail: "the person spoke out of character (as an assistant, or about the simulation)",
        evidence: { message: i, text: message.content },
      });
    }
  });
  const ended = endedBeforeAction(agent, row);
  if (ended) findings.push(ended);
  return findings;
}

/** tau2-bench's finding: the person ends right after being asked to confirm, before the write happens. */
function endedBeforeAction(
  agent: Agent,
  row: Pick<Row, "messages" | "episode">,
): SimFinding | null {
  if (row.episode.ended_by !== "user_done") return null;
  const goal = WorldModel.of(agent).tools.get(row.episode.goal.tool);
  if (goal?.kind !== "change" && goal?.kind !== "create") return null;
  const last = row.messages.length - 1;
  const final = row.messages[last];
  const asked = row.messages[last - 1];
  // The agent's last word was a question about acting, and the person's answer ended it all.
  if (
    final?.role !== "user" ||
    asked?.role !== "assistant" ||
    !CONFIRMATION.test(asked.content ?? "")
  )
    return null;
  return {
    check: "ended_before_action",
    detail: "the person ended the conversation while the agent was waiting to act on their request",
    evidence: { message: last, text: final.content },
  };
}
