import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { AssistantMessage, ChatMessage, ToolCall } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import type { Backend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { openAITool } from "../tools.ts";
import { BackendError } from "../util/errors.ts";
import type { AgentPolicy, AgentSession, AgentTurn } from "./types.ts";

/** Our messages as the chat API takes them (sampling figures on assistant turns left out). */
export function toChatParams(messages: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((m): ChatCompletionMessageParam => {
    if (m.role === "assistant") {
      return {
        role: "assistant",
        content: m.content ?? null,
        ...(m.tool_calls && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls } : {}),
      };
    }
    if (m.role === "tool")
      return { role: "tool", tool_call_id: m.tool_call_id, content: m.content };
    return { role: m.role, content: m.content };
  });
}

/**
 * A model-backed agent: the policy is a chat model served by OpenAI or any OpenAI-compatible server.
 * With `logprobs`, every turn carries the summed log-probability of the tokens it generated and the
 * per-token list (only when the server returned one for every generated token), their count, the
 * policy version and the sampling settings.
 */
export class ModelAgent implements AgentPolicy {
  readonly name: string;
  readonly #client: ChatClient;
  readonly #logprobs: boolean;
  readonly #policyVersion: string | undefined;

  constructor(
    backend: Backend,
    options: { logprobs?: boolean; policyVersion?: string; fetch?: typeof fetch } = {},
  ) {
    this.name = backend.name;
    this.#client = new ChatClient(backend, "agent", options.fetch ? { fetch: options.fetch } : {});
    this.#logprobs = options.logprobs ?? false;
    this.#policyVersion = options.policyVersion;
  }

  start(agent: Agent): AgentSession {
    const tools = agent.tools.map(openAITool);
    return {
      respond: async (conversation): Promise<AgentTurn> => {
        const reply = await this.#client.complete({
          messages: toChatParams(conversation),
          tools,
          logprobs: this.#logprobs,
        });
        if (!reply.content && reply.toolCalls.length === 0)
          throw new BackendError(
            this.name,
            "the agent model answered with neither text nor a tool call",
          );
        const message: AssistantMessage = { role: "assistant", content: reply.content };
        if (reply.toolCalls.length > 0)
          message.tool_calls = uniqueIds(reply.toolCalls, conversation);
        if (this.#logprobs) {
          const tokens = reply.tokenLogprobs;
          // A sum over some of the tokens (or none) is not the turn's log-probability: leave it out,
          // never 0. One token short is the end-of-turn token some servers count but do not report.
          const missing =
            tokens === null ? null : (reply.completionTokens ?? tokens.length) - tokens.length;
          if (tokens !== null && (missing === 0 || (missing === 1 && tokens.length > 0))) {
            message.logprob = tokens.reduce((sum, lp) => sum + lp, 0);
            message.token_logprobs = tokens;
          }
          const counted = reply.completionTokens ?? tokens?.length;
          if (counted !== undefined) message.n_tokens = counted;
          message.policy_version =
            this.#policyVersion ??
            `${reply.model}${reply.fingerprint ? `@${reply.fingerprint}` : ""}`;
          message.sampling = { ...this.#client.backend.sampling };
        }
        return { message };
      },
    };
  }
}

/**
 * Tool calls with ids of their own: an id only pairs a call with its answer, but some servers leave
 * it empty and some number calls from `call_1` on every turn. Such an id gets the turn's index.
 */
function uniqueIds(calls: ToolCall[], conversation: readonly ChatMessage[]): ToolCall[] {
  const turn = conversation.length;
  const used = new Set<string>();
  for (const m of conversation)
    if (m.role === "assistant") for (const c of m.tool_calls ?? []) used.add(c.id);
  return calls.map((call, n) => {
    const base = call.id || `call_${n}`;
    let id = call.id;
    for (let k = 0; id === "" || used.has(id); k++) id = `${base}_t${turn}${k > 0 ? `_${k}` : ""}`;
    used.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
