import { countTokens } from "gpt-tokenizer";
import type { TrainingMessage } from "../env/index.ts";

/** Special-token text in a message is counted as the text it is, never refused. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Tokens of a list of messages with a real tokenizer (o200k_base, gpt-tokenizer): every text the
 * model would generate or read — content, and each tool call's name and arguments as JSON.
 */
export function tokensOf(messages: readonly TrainingMessage[]): number {
  let total = 0;
  for (const message of messages) {
    total += countTokens(message.content, AS_TEXT);
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) {
      const args = call.function.arguments;
      total += countTokens(call.function.name, AS_TEXT);
      total += countTokens(typeof args === "string" ? args : JSON.stringify(args), AS_TEXT);
    }
  }
  return total;
}
