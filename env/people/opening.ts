import type { Rng } from "../rng.ts";
import { lookup } from "../util/lookup.ts";
import type { Persona } from "./persona.ts";
import { behaviourOf, pushback } from "./stances.ts";
import { keep, renderStyled } from "./style.ts";

/** How a person mentions what already happened, by history value; several wordings each. */
const HISTORY_LINES: Record<string, string[]> = {
  follow_up_after_failure: [
    "I tried this yesterday and it didn't work.",
    "I already tried to sort this out and it failed.",
    "This went wrong last time I tried.",
    "Your system gave me an error when I tried this before.",
    "Last time I tried, it didn't go through.",
    "It failed when I did it myself.",
  ],
  repeated_ask: [
    "I've already asked about this once.",
    "This is the second time I'm writing about this.",
    "I asked about this before and nothing happened.",
    "Me again, about the same thing.",
    "I've been trying to get this sorted for a while.",
    "I wrote in about this already.",
  ],
  earlier_promise: [
    "Someone here promised me last week this would be sorted.",
    "I was told this would be taken care of already.",
    "One of your colleagues said this was done.",
    "I was promised a fix for this.",
    "Last time I was told it would be done by now.",
    "Your colleague told me it was all sorted.",
  ],
};

/** A history of the spec's own told in the person's words, by what its description says. */
function historyLine(persona: Persona, rng: Rng): string {
  const own = lookup(HISTORY_LINES, persona.history.name);
  if (own) return rng.pick(own);
  const text = `${persona.history.name} ${persona.history.description}`.toLowerCase();
  if (/promis|told|callback|said/.test(text))
    return rng.pick(HISTORY_LINES.earlier_promise as string[]);
  if (/fail|error|wrong|didn'?t work/.test(text))
    return rng.pick(HISTORY_LINES.follow_up_after_failure as string[]);
  if (/again|already|before|second|repeat|called|spoke|contacted/.test(text))
    return rng.pick(HISTORY_LINES.repeated_ask as string[]);
  if (/recent|just|hours? ago|today/.test(text)) return "I only did this a little while ago.";
  return "";
}

const GREETINGS = ["", "", "Hi.", "Hello.", "Hi there.", "Hey.", "Good morning.", "Hello there."];

/** Ways each behaviour asks: `{r}` is the request, `{about}` the record in words, `{push}` a pressuring aside. */
const FRAMES: Record<string, string[]> = {
  cooperative: [
    "I'd like to {r}.",
    "Could you help me {r}?",
    "I was hoping you could help me {r}.",
    "Can you {r} for me?",
    "I need a hand: I want to {r}.",
    "Would it be possible to {r}?",
  ],
  hurried: [
    "need to {r}, quickly please.",
    "quick one: {r}.",
    "can you {r}? in a rush.",
    "{r} asap please.",
    "no time, just need to {r}.",
  ],
  confused: [
    "I'm not really sure how this works, but I think I need to {r}?",
    "Sorry, I'm a bit lost. I think I have to {r}?",
    "I'm not sure this is the right place, but I want to {r}.",
    "Um, hello, I was told to ask here. I need to {r}, I think.",
  ],
  insistent: [
    "I need to {r}. Today. This has gone on long enough.",
    "I want to {r}, and I need it done now.",
    "Please {r}. I'm not going away until it's done.",
    "I need you to {r}. No more waiting.",
  ],
  skeptical: [
    "I want to {r}, and I'd like it actually done this time.",
    "Can you {r}? And please actually check it worked.",
    "I need to {r}. Forgive me if I don't take your word for it.",
    "Let's see if this works: I want to {r}.",
  ],
  pressuring: [
    "I want to {r}. {push}",
    "Just {r}. {push}",
    "I need you to {r}. {push}",
    "{push} I want to {r}.",
  ],
  vague: [
    "Hi, I need some help with {about}.",
    "It's about {about}.",
    "Something's not right with {about}, can you help?",
    "Can you look into {about} for me?",
    "I have a question about {about}.",
  ],
};

/** The person's first message: their request, in their stance and style, with the history they bring. */
export function openingMessage(persona: Persona, rng: Rng): string {
  const behaviour = behaviourOf(persona.stance);
  const request = persona.request;
  const about = persona.details.about.replace(/^their /, "my ");
  const frame = rng.pick(lookup(FRAMES, behaviour) ?? (FRAMES.cooperative as string[]));
  const volunteered =
    Object.values(persona.goal.arguments).some((v) => v === persona.details.email) &&
    rng.chance(0.5)
      ? ` My email is ${keep(persona.details.email)}.`
      : "";
  const greeting = behaviour === "hurried" ? "" : rng.pick(GREETINGS);
  const text = `${greeting ? `${greeting} ` : ""}${frame
    .replace("{r}", request)
    .replace("{about}", about)
    .replace("{push}", pushback(persona.rule))}${volunteered}`;
  const history = historyLine(persona, rng);
  // The history line is rendered on its own so that no clipping of the request drops it; people
  // say it first or add it after the request.
  const asked = renderStyled(text, persona.style, rng, history === "");
  if (!history) return asked;
  const said = renderStyled(history, persona.style, rng);
  return rng.chance(0.6) ? `${said} ${asked}` : `${asked} ${said}`;
}
