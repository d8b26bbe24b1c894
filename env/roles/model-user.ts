import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ChatMessage } from "../../spec/index.ts";
import type { Backend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { END_MARKERS, userBrief } from "../people/brief.ts";
import { BackendError } from "../util/errors.ts";
import type { EpisodeSetup, UserSession, UserSimulator, UserTurn } from "./types.ts";

/**
 * The conversation as the person sees it, role-flipped for a user model (tau-bench's way): the
 * agent's words become the user turns, the person's own become the assistant turns; tool calls and
 * results are not the person's to see.
 */
export function personView(
  brief: string,
  conversation: readonly ChatMessage[],
): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [{ role: "system", content: brief }];
  for (const m of conversation) {
    if (m.role === "user") out.push({ role: "assistant", content: m.content });
    else if (m.role === "assistant" && m.content) out.push({ role: "user", content: m.content });
  }
  return out;
}

/**
 * The most a person's turn from a user model may hold, in UTF-8 bytes. What someone types into a
 * support chat is a few KiB at most; more is a model that ran on, and is blamed on the user model
 * here rather than on the agent that would have had to answer it.
 */
export const MAX_USER_TURN_BYTES = 16 * 1024;

/** A model-backed user: plays the person from the brief, ending with an explicit marker. */
export class ModelUser implements UserSimulator {
  readonly name: string;
  readonly #client: ChatClient;

  constructor(backend: Backend, options: { fetch?: typeof fetch } = {}) {
    this.name = backend.name;
    this.#client = new ChatClient(
      backend,
      "userModel",
      options.fetch ? { fetch: options.fetch } : {},
    );
  }

  start(setup: EpisodeSetup): UserSession {
    const brief = userBrief(setup.persona);
    return {
      reply: async (conversation): Promise<UserTurn> => {
        const reply = await this.#client.complete({ messages: personView(brief, conversation) });
        const text = reply.content ?? "";
        const bytes = Buffer.byteLength(text);
        if (bytes > MAX_USER_TURN_BYTES)
          throw new BackendError(
            this.name,
            `the user model's message is ${bytes} bytes; a person's turn holds at most ${MAX_USER_TURN_BYTES} (MAX_USER_TURN_BYTES)`,
          );
        const end = text.includes(END_MARKERS.gave_up)
          ? "gave_up"
          : text.includes(END_MARKERS.done)
            ? "done"
            : undefined;
        const content = text
          .replaceAll(END_MARKERS.done, "")
          .replaceAll(END_MARKERS.gave_up, "")
          .trim();
        if (!content && !end)
          throw new BackendError(
            this.name,
            "the user model answered with an empty message and no end marker",
          );
        return end ? { content, end } : { content };
      },
    };
  }
}
