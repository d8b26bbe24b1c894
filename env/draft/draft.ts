import type { BackendSpec } from "../../spec/index.ts";
import { Agent } from "../agent.ts";
import { parseBackend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { BackendError, InputError, messageOf } from "../util/errors.ts";
import { type BehaviourRule, behaviourOf, behaviourRule } from "./behaviour.ts";
import { DRAFT_TEMPLATES, type DraftTemplate } from "./templates.ts";

/** What drafting made from a sentence: the spec, who drafted it, and why it looks as it does. */
export interface Draft {
  sentence: string;
  /** The drafted agent spec, valid against spec/: save it, edit it, run it. */
  spec: Record<string, unknown>;
  agent: Agent;
  /** `offline`, or the model that drafted it. */
  drafter: string;
  /** The template the offline drafter chose and the sentence's words that chose it; null for a model draft. */
  template: { id: string; title: string; matched: string[] } | null;
  /** The sentence's behaviour as a rule, or null when the sentence states none. */
  behaviour: BehaviourRule | null;
  /** Why the offline drafter stood in for a model (no model given, or the model's drafts failed). */
  fallback: string | null;
  /** Model drafts refused before one passed, with why. */
  attempts: string[];
}

/** Options of `draftAgent`: a model to draft with, and how many repairs it gets. */
export interface DraftOptions {
  /** A model backend; absent or `"offline"`, the offline drafter's domain templates. */
  simulator?: BackendSpec;
  /** Drafts a model may send back after the first is refused (each told why). */
  retries?: number;
  fetch?: typeof fetch;
}

/**
 * Drafts an agent spec from one sentence (the brief's cold start), such as "a personal finance
 * assistant that confirms before it moves money". With a model, the model drafts tools, policy,
 * world dials and stance hints, checked against spec/ and sent back with the problems until valid.
 * Offline, a domain template chosen by the sentence's words, with the sentence's behaviour as a
 * rule bound to the tools it concerns; `fallback` says so, and a sentence no template matches is
 * refused with the list of domains.
 */
export async function draftAgent(sentence: string, options: DraftOptions = {}): Promise<Draft> {
  const said = sentence.trim();
  if (said.length < 3 || said.length > 2000)
    throw new InputError("sentence", [
      { path: "", message: "expected one sentence describing the agent, 3 to 2,000 characters" },
    ]);
  const backend =
    options.simulator === undefined || options.simulator === "offline"
      ? null
      : parseBackend(options.simulator, "simulator");
  if (!backend) return offlineDraft(said, "no model drafter was given", []);
  const attempts: string[] = [];
  try {
    return await modelDraft(
      said,
      new ChatClient(backend, "simulator", options.fetch ? { fetch: options.fetch } : {}),
      backend.name,
      options.retries ?? 2,
      attempts,
    );
  } catch (error) {
    if (error instanceof InputError) throw error;
    return offlineDraft(
      said,
      `the model drafter ${backend.name} failed: ${messageOf(error)}`,
      attempts,
    );
  }
}

/** The offline drafter: the best-matching template with the sentence's behaviour added. */
function offlineDraft(sentence: string, fallback: string, attempts: string[]): Draft {
  const { template, matched } = chooseTemplate(sentence);
  const base = structuredClone(template.spec);
  const said = behaviourOf(sentence);
  let behaviour: BehaviourRule | null = null;
  let spec: Record<string, unknown> = base;
  if (said) {
    behaviour = behaviourRule(said, Agent.from(base).tools);
    const taken = new Set(base.policy.map((rule) => rule.id));
    const ruleId = taken.has(behaviour.id) ? `${behaviour.id}_asked` : behaviour.id;
    behaviour = { ...behaviour, id: ruleId };
    spec = {
      ...base,
      system_prompt: `${base.system_prompt} ${behaviour.text}`,
      policy: [
        ...base.policy,
        {
          id: ruleId,
          text: behaviour.text,
          ...(behaviour.tools.length > 0 ? { tools: behaviour.tools } : {}),
        },
      ],
    };
  }
  return {
    sentence,
    spec,
    agent: Agent.from(spec, "drafted spec"),
    drafter: "offline",
    template: { id: template.id, title: template.title, matched },
    behaviour,
    fallback,
    attempts,
  };
}

/** The template whose words the sentence uses most (ties to the earlier), or a refusal listing them. */
export function chooseTemplate(sentence: string): { template: DraftTemplate; matched: string[] } {
  const words = new Set(
    sentence
      .toLowerCase()
      .split(/[^a-z-]+/)
      .flatMap((word) => [word, word.replace(/(ies)$/, "y").replace(/s$/, "")]),
  );
  let best: { template: DraftTemplate; matched: string[] } | null = null;
  for (const template of DRAFT_TEMPLATES) {
    const matched = template.words.filter((word) => words.has(word));
    if (matched.length > 0 && (!best || matched.length > best.matched.length))
      best = { template, matched };
  }
  if (!best)
    throw new InputError("sentence", [
      {
        path: "",
        message: `matches no domain the offline drafter knows (${DRAFT_TEMPLATES.map((t) => t.title).join("; ")}): name one, or give a model with --simulator, or write a spec`,
      },
    ]);
  return best;
}

const DRAFT_SYSTEM = [
  "You draft an agent spec for rehearse, a simulator of tool-using customer service agents.",
  "Answer with one JSON object only: {name, system_prompt, tools, policy, world?, axes?}.",
  "tools: 4 to 10 tools as OpenAI function tools {type: 'function', function: {name, description, parameters}} whose parameters are JSON Schemas; give id parameters an example in their description, such as 'Order id, such as W2847103'.",
  "policy: a list of rules {id, text, tools?}; ids are snake_case; the behaviour the sentence asks for must be a rule, with tools naming the tools it concerns.",
  "world (optional): {fault_rate: 0..1}. axes (optional): {stances: [names or {name, description}]} for the people this agent meets.",
].join(" ");

/** A model's draft, checked against spec/ and sent back with its problems until it passes or the retries run out. */
async function modelDraft(
  sentence: string,
  client: ChatClient,
  model: string,
  retries: number,
  attempts: string[],
): Promise<Draft> {
  const messages: { role: "system" | "user" | "assistant"; content: string }[] = [
    { role: "system", content: DRAFT_SYSTEM },
    { role: "user", content: sentence },
  ];
  for (let attempt = 0; attempt <= retries; attempt++) {
    const reply = await client.complete({ messages });
    const text = reply.content?.trim() ?? "";
    const problem = (() => {
      let json: unknown;
      try {
        json = JSON.parse(text.replace(/^```(?:json)?\s*|\s*```$/g, ""));
      } catch (error) {
        return { message: `not JSON: ${(error as Error).message}`, spec: null };
      }
      try {
        return {
          message: null,
          spec: json as Record<string, unknown>,
          agent: Agent.from(json, "drafted spec"),
        };
      } catch (error) {
        return { message: messageOf(error), spec: null };
      }
    })();
    if (problem.message === null && problem.spec && "agent" in problem && problem.agent)
      return {
        sentence,
        spec: problem.spec,
        agent: problem.agent,
        drafter: model,
        template: null,
        behaviour: null,
        fallback: null,
        attempts,
      };
    attempts.push(problem.message ?? "invalid");
    messages.push(
      { role: "assistant", content: text },
      {
        role: "user",
        content: `That spec is invalid: ${problem.message}\nSend the whole corrected JSON object, nothing else.`,
      },
    );
  }
  throw new BackendError(model, `no valid draft after ${retries + 1} tries: ${attempts.at(-1)}`);
}
