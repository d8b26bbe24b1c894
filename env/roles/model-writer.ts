import type { Backend } from "../backends/backend.ts";
import { ChatClient } from "../backends/chat.ts";
import { BackendError } from "../util/errors.ts";
import { OfflineWriter } from "./offline-writer.ts";
import type { EpisodeSetup, Opening, SituationWriter } from "./types.ts";

const SYSTEM = [
  "You write the first message a person sends to a customer service agent, for a simulation that trains agents.",
  "Write only the message, in the person's voice: no quotes, no labels, no explanation.",
  "Use exactly the identifiers and amounts you are given; never invent others.",
].join(" ");

/**
 * The most an opening from a model writer may hold, in UTF-8 bytes, as for a person's turn: a
 * longer one is the writer's failure, and the offline writer opens the conversation instead.
 */
export const MAX_OPENING_BYTES = 16 * 1024;

/**
 * A model-backed situation writer: drafts the opening message from the situation's coordinate and
 * the person. The history axis's earlier exchange comes from the offline templates, so that what an
 * agent said before is always the same kind of thing for the same history value.
 */
export class ModelWriter implements SituationWriter {
  readonly name: string;
  readonly #client: ChatClient;
  readonly #offline = new OfflineWriter();

  constructor(backend: Backend, options: { fetch?: typeof fetch } = {}) {
    this.name = backend.name;
    this.#client = new ChatClient(
      backend,
      "simulator",
      options.fetch ? { fetch: options.fetch } : {},
    );
  }

  async write(setup: EpisodeSetup): Promise<Opening> {
    const { agent, situation, persona } = setup;
    const axis = (name: "tool" | "rule" | "stance" | "world" | "history") =>
      agent.axes[name].find((v) => v.name === situation.axes[name])?.description ?? "";
    const d = persona.details;
    const brief = [
      `The agent serves: ${agent.name}.`,
      `The person wants to ${persona.goal.text.replace(/[\uE000\uE001]/g, "")} (the tool involved: ${axis("tool")}).`,
      `Their situation: ${axis("world")}. What happened before: ${axis("history")}.`,
      `How they behave: ${axis("stance")}. How they write: ${persona.aside}.`,
      `What they can quote: name ${d.name}, email ${d.email}${Object.entries(d.ids)
        .map(([k, v]) => `, ${k.replace(/_/g, " ")} ${v}`)
        .join("")}.`,
    ].join("\n");
    const reply = await this.#client.complete({
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: brief },
      ],
    });
    const message = reply.content?.trim();
    if (!message) throw new BackendError(this.name, "the writer answered with an empty message");
    const bytes = Buffer.byteLength(message);
    if (bytes > MAX_OPENING_BYTES)
      throw new BackendError(
        this.name,
        `the writer's opening is ${bytes} bytes; an opening holds at most ${MAX_OPENING_BYTES} (MAX_OPENING_BYTES)`,
      );
    const { history } = await this.#offline.write(setup);
    return { history, message, writer: this.name };
  }
}
