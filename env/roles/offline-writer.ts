import type { ChatMessage } from "../../spec/index.ts";
import { openingMessage } from "../people/opening.ts";
import { behaviourOf } from "../people/stances.ts";
import { renderStyled } from "../people/style.ts";
import { Rng } from "../rng.ts";
import { lookup } from "../util/lookup.ts";
import type { EpisodeSetup, Opening, SituationWriter } from "./types.ts";

/** What an earlier agent said, by history value: a failure, a question left hanging, a promise. */
const EARLIER_AGENT: Record<string, string> = {
  follow_up_after_failure:
    "I'm sorry, our system is having trouble right now and I couldn't complete that. Please try again later.",
  repeated_ask:
    "I'll need a few more details to look into this. Could you get back to me with them?",
  earlier_promise: "I've taken care of it. You'll see the change within 24 hours.",
};

/**
 * The offline situation writer: renders a situation from templates. The history axis becomes an
 * earlier exchange (the person's request and what an agent answered then) before today's opening.
 */
export class OfflineWriter implements SituationWriter {
  readonly name = "offline";

  async write(setup: EpisodeSetup): Promise<Opening> {
    const { persona, situation } = setup;
    const rng = new Rng(situation.seed, "offline-writer", situation.id);
    const earlier = lookup(EARLIER_AGENT, persona.history.name);
    const history: ChatMessage[] = earlier
      ? [
          {
            role: "user",
            content: renderStyled(
              `Hi, I'd like to ${behaviourOf(persona.stance) === "vague" ? `sort out ${persona.details.about.replace(/^their /, "my ")}` : persona.goal.text}.`,
              persona.style,
              rng,
              true,
            ),
          },
          { role: "assistant", content: earlier },
        ]
      : [];
    return { history, message: openingMessage(persona, rng) };
  }
}
