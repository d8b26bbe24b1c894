import { z } from "zod";
import type { BackendSpec, JudgeMeta } from "../../spec/index.ts";
import { Agent } from "../agent.ts";
import { parseBackend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { JUDGE_VERSION } from "../grade/identity.ts";
import { BackendError, InputError } from "../util/errors.ts";
import { sha256 } from "../util/hash.ts";
import { conceptsOf, names, tokens } from "./words.ts";

/** One example ask, with the tools that serve it and the rules that speak to it. */
export interface AskCoverage {
  ask: string;
  tools: string[];
  rules: string[];
}

/** What a policy leaves uncovered (the brief's `coverage_gap`). */
export interface CoverageGap {
  asks: AskCoverage[];
  /** Asks no tool serves. */
  unserved_asks: string[];
  /** Tools no ask reaches (utility and hand-off tools aside). */
  unreached_tools: string[];
  /** Asks the prompt's rules say nothing about. */
  unruled_asks: string[];
  /** Rules no planned situation would test, with why. */
  untested_rules: { rule: string; why: string }[];
  /** `offline`, or the judge that found them, stamped like any judge. */
  judge_meta: JudgeMeta;
}

/** Options of `coverageGap`: the agent's tools and system prompt (its rules), and a judge to ask instead of matching words. */
export interface CoverageGapOptions {
  /** The tools, in any shape an agent spec takes. */
  tools: unknown[];
  /** The system prompt; its sentences are read as the policy when `policy` is absent. */
  systemPrompt: string;
  /** The policy, as an agent spec takes it (markdown or rules). */
  policy?: unknown;
  judge?: BackendSpec;
  fetch?: typeof fetch;
}

/**
 * Which example asks no tool serves, which tools no ask reaches, which asks the prompt's rules
 * say nothing about, and which rules no situation would test. Offline by word and schema matching
 * (an ask's content words, and the words they reach, against tool names, descriptions and
 * parameters, and against the rules' words and scopes); with a judge backend, by the model, whose
 * answer is checked and stamped like any judge's label.
 */
export async function coverageGap(
  asks: readonly string[],
  options: CoverageGapOptions,
): Promise<CoverageGap> {
  const listed = asks.map((ask) => ask.trim()).filter((ask) => ask !== "");
  if (listed.length === 0)
    throw new InputError("asks", [{ path: "", message: "expected at least one example ask" }]);
  const agent = Agent.from(
    {
      name: "coverage gap",
      system_prompt: options.systemPrompt,
      tools: options.tools,
      policy: options.policy ?? options.systemPrompt,
    },
    "coverage gap input",
  );
  const untested = untestedRules(agent);
  if (options.judge !== undefined && options.judge !== "offline")
    return modelGap(listed, agent, untested, options.judge, options.fetch);
  const served = servedTools(agent);
  const coverage = listed.map((ask): AskCoverage => {
    const concepts = conceptsOf(
      ask
        .toLowerCase()
        .split(/[^a-z-]+/)
        .filter((word) => word.length > 1),
    );
    // The tools most of the ask's words name: "cancel my order" is cancel_order, not every order tool.
    const scored = served.map((tool) => ({
      name: tool.name,
      score: concepts.filter((concept) => names(concept, tool)).length,
    }));
    const top = Math.max(0, ...scored.map(({ score }) => score));
    // …and only when they name more than half of its words: "change my password" is not update_address.
    const tools =
      top * 2 <= concepts.length
        ? []
        : scored.filter(({ score }) => score === top).map(({ name }) => name);
    const rules = agent.policy.read
      .filter((rule) => {
        const words = new Set(tokens(rule.text));
        return (
          (rule.tools ?? []).some((name) => tools.includes(name)) ||
          concepts.some((concept) => words.has(concept.word))
        );
      })
      .map((rule) => rule.id);
    return { ask, tools, rules };
  });
  return gapOf(coverage, served, untested, {
    judge: "coverage_gap",
    version: JUDGE_VERSION,
    model: null,
    rubric_hash: null,
    settings: { method: "offline word and schema matching" },
  });
}

/** The report from each ask's tools and rules: what is unserved, unreached and unruled. */
function gapOf(
  coverage: AskCoverage[],
  served: readonly { name: string }[],
  untested: { rule: string; why: string }[],
  judgeMeta: JudgeMeta,
): CoverageGap {
  const reached = new Set(coverage.flatMap((entry) => entry.tools));
  return {
    asks: coverage,
    unserved_asks: coverage.filter((entry) => entry.tools.length === 0).map((entry) => entry.ask),
    unreached_tools: served.map((tool) => tool.name).filter((name) => !reached.has(name)),
    unruled_asks: coverage.filter((entry) => entry.rules.length === 0).map((entry) => entry.ask),
    untested_rules: untested,
    judge_meta: judgeMeta,
  };
}

/** Rules the grid leaves untested: not on the rule axis, or scoped only to tools no situation uses. */
function untestedRules(agent: Agent): { rule: string; why: string }[] {
  const onAxis = new Set(agent.axes.rule.map((value) => value.name));
  const toolAxis = new Set(agent.axes.tool.map((value) => value.name));
  const out: { rule: string; why: string }[] = [];
  for (const rule of agent.policy.read) {
    const scope = rule.tools ?? [];
    if (!onAxis.has(rule.id)) out.push({ rule: rule.id, why: "it is not on the rule axis" });
    else if (scope.length > 0 && !scope.some((tool) => toolAxis.has(tool)))
      out.push({
        rule: rule.id,
        why: `its tools (${scope.join(", ")}) are on no situation's tool axis`,
      });
  }
  for (const passage of agent.policy.dropped)
    out.push({ rule: passage.text.slice(0, 80), why: `read as no rule: ${passage.why}` });
  return out;
}

const GAP_INSTRUCTIONS = [
  "You check an AI agent's coverage. Given example user asks, the agent's tools and its rules, answer with one JSON object only:",
  '{"asks": [{"ask": <the ask as given>, "tools": [names of the tools that serve it], "rules": [ids of the rules that speak to it]}]}.',
  "Use only the tool names and rule ids given. An ask no tool serves has an empty tools list.",
].join(" ");

const ModelAnswerSchema = z.object({
  asks: z.array(
    z.object({ ask: z.string(), tools: z.array(z.string()), rules: z.array(z.string()) }),
  ),
});

async function modelGap(
  asks: readonly string[],
  agent: Agent,
  untested: { rule: string; why: string }[],
  judge: BackendSpec,
  fetchImpl: typeof fetch | undefined,
): Promise<CoverageGap> {
  const backend = parseBackend(judge, "judge");
  const client = new ChatClient(backend, "judge", fetchImpl ? { fetch: fetchImpl } : {});
  const brief = JSON.stringify({
    asks,
    tools: agent.tools.map((tool) => ({ name: tool.name, description: tool.description })),
    rules: agent.rules.map((rule) => ({ id: rule.id, text: rule.text })),
  });
  const reply = await client.complete({
    messages: [
      { role: "system", content: GAP_INSTRUCTIONS },
      { role: "user", content: brief },
    ],
  });
  let answer: z.infer<typeof ModelAnswerSchema>;
  try {
    answer = ModelAnswerSchema.parse(
      JSON.parse((reply.content ?? "").replace(/^```(?:json)?\s*|\s*```$/g, "")),
    );
  } catch (error) {
    throw new BackendError(
      backend.name,
      `the judge's coverage answer is not the JSON asked for: ${(error as Error).message.slice(0, 200)}`,
    );
  }
  const toolNames = new Set(agent.tools.map((tool) => tool.name));
  const ruleIds = new Set(agent.rules.map((rule) => rule.id));
  const byAsk = new Map(answer.asks.map((entry) => [entry.ask, entry]));
  const coverage = asks.map((ask): AskCoverage => {
    const entry = byAsk.get(ask);
    return {
      ask,
      tools: (entry?.tools ?? []).filter((name) => toolNames.has(name)),
      rules: (entry?.rules ?? []).filter((id) => ruleIds.has(id)),
    };
  });
  return gapOf(coverage, servedTools(agent), untested, {
    judge: "coverage_gap",
    version: JUDGE_VERSION,
    model: backend.model,
    rubric_hash: sha256(GAP_INSTRUCTIONS).slice(0, 16),
    settings: { ...backend.sampling },
  });
}

/** The tools an ask can be served by: utility and hand-off tools aside. */
function servedTools(agent: Agent): Agent["tools"] {
  return agent.tools.filter((tool) => tool.role !== "utility" && tool.role !== "handoff");
}
