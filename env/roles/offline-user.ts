import type { ChatMessage, Goal } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { personDetail, spokenValue } from "../people/goal.ts";
import type { Persona } from "../people/persona.ts";
import { behaviourOf } from "../people/stances.ts";
import { keep, renderStyled } from "../people/style.ts";
import { phrasePattern, toolWords } from "../policy/words.ts";
import { Rng } from "../rng.ts";
import { agentWrites } from "../text/agent-written.ts";
import { IdentifierReader } from "../text/identifiers.ts";
import { asksGoAhead, questionsIn } from "../text/phrases.ts";
import { intentOf } from "../text/reading.ts";
import { tellingWords } from "../text/telling.ts";
import { lookup } from "../util/lookup.ts";
import { memoized } from "../util/memo.ts";
import { codeInWords, saysValue, snake, spokenWords } from "../util/names.ts";
import { regexLiteral } from "../util/regex.ts";
import { identityKey } from "../world/identity.ts";
import { propertiesOf, WorldModel } from "../world/model.ts";
import { rolloutSeed, type UserSimulator, type UserTurn } from "./types.ts";

export { openingMessage } from "../people/opening.ts";

const ROLE_WORDS = new Set([
  "from",
  "to",
  "source",
  "destination",
  "target",
  "recipient",
  "sender",
  "new",
]);
/** Each direction word as a whole word, compiled once. */
const ROLE_WORD_PATTERNS = new Map([...ROLE_WORDS].map((w) => [w, new RegExp(`\\b${w}\\b`)]));
/** How a question names a parameter: its spoken name, or all its telling words (`from_account_id` → account). */
const askedWords = memoized((param) => ({
  spoken: spokenWords(snake(param)),
  words: snake(param)
    .replace(/_ids?$/, "")
    .split("_")
    .filter((w) => w.length > 2 && !ROLE_WORDS.has(w)),
}));
/** "Anything else I can help with?": an offer, not a question about a detail. */
const OFFER_OF_MORE = /anything else|help with (anything|something) else|anything more/i;
/** The agent handing the conversation to someone else. */
const HANDED_OVER =
  /\b(transfer|hand|pass|connect)\w*\s+(you|your (conversation|chat|call))\b.*\b(human|colleague|specialist|agent|team|person)\b|\bpassed your conversation\b/i;
/** The agent saying it could not do what was asked, after what it found: "it is settled, so I can't cancel it". */
const REFUSED_AFTER =
  /\bso i (can'?t|cannot|couldn'?t|could not|am unable|'m unable|won'?t be able)\b/i;
/** The agent saying it did not understand, or asking what the person needs. */
const WHAT_NOW =
  /didn'?t (quite )?(get|understand|catch)|not sure what you need|what would you like|tell me (a bit )?more|what (do|can) i help|what you need/i;
/** The agent saying something failed, could not be done, or was not found. */
const FAILED =
  /\b(sorry|couldn'?t|could not|can'?t|cannot|unable|failed|error|not (able|found|possible)|isn'?t possible|no \w+ (was )?found|don'?t have permission|not allowed|only possible)\b/i;
/**
 * The agent saying it has done all it can on the request, in a sentence that is no question ("Is
 * there anything else I can do for you?" offers more): the last word on it, wherever it is said.
 */
const FINAL =
  /\b(nothing (more|else|further) (that )?i can do|(don'?t|do not) have anything (more|else) (that )?i can do|i'?m not able to do (any ?)?more|i'?ve (done|tried) (all|what|everything) i can|as far as i can take it|i can'?t do (any ?)?more (on|for|with|here|from))\b/i;

/** Whether the agent gave its last word on the request ({@link FINAL}) outside its questions. */
function saysLastWord(text: string): boolean {
  return text
    .split(/(?<=[.!?])\s+/)
    .some((sentence) => !sentence.trim().endsWith("?") && FINAL.test(sentence));
}

/** Stances that press when told no rather than let it go. */
const PRESSING = new Set(["insistent", "pressuring"]);
/** The agent reporting what it found or did. */
const REPORTED =
  /\b(done|completed?|is now|has been|have (\w+ed)|i'?ve (\w+ed|sent|paid|set|reset|frozen)|here('s| is| are)|i found|i can see|your \w+ (is|are)|recorded|went through)\b/i;
/** Details people are asked for, by what they are called in a question. */
const DETAIL_WORDS: [RegExp, string][] = [
  [/\bfirst name\b|\bgiven name\b|\bforename\b/, "first_name"],
  [/\blast name\b|\bsurname\b|\bfamily name\b/, "last_name"],
  [/\bfull name\b|\byour name\b|\bname on\b|\bholder'?s? name\b/, "name"],
  [/\bdate of birth\b|\bbirth ?date\b|\bbirthday\b|\bdob\b/, "date_of_birth"],
  [/\bzip\b|\bpost ?code\b|\bpostal code\b/, "zip"],
  [/\bphone\b|\bmobile\b|\btelephone\b|\bcell\b/, "phone"],
  [/\bstreet\b|\baddress line\b|\bfirst line of (the|your) address\b/, "street"],
  [/\baddress\b/, "address"],
  [/\bcity\b|\btown\b/, "city"],
  [/\bstate\b|\bprovince\b|\bregion\b|\bcounty\b/, "state"],
  [/\bcountry\b/, "country"],
];

/**
 * The offline user: the person rendered through templates, deterministic for the seed. It answers
 * the question asked with the right detail, confirms or corrects a read-back, presses, rephrases
 * or gives up as its stance says (never sending the same message twice), and is satisfied only
 * when what it came for happened as far as the agent's words tell.
 */
export class OfflineUser {
  readonly #persona: Persona;
  readonly #rng: Rng;
  readonly #behaviour: string;
  #patience: number;
  #asked = new Map<string, number>();
  #misled = false;
  /** The value the person last gave for each id asked of them, mixed up or not. */
  readonly #lastSaid = new Map<string, string>();
  #doubted = false;
  #insisted = 0;
  #claimed = false;
  /** The person asked to be put through to someone else. */
  #askedForSomeone = false;
  /** The person raised their claim after being told what they came for, and awaits the answer. */
  #disputing = false;
  readonly #sent = new Set<string>();
  /** Whether the messages before this role's first reply are in {@link OfflineUser.#sent}. */
  #heardBefore = false;

  /** Finds identifiers in text, as the person recognises an id when they see one. */
  readonly #ids: (text: string) => string[];
  /** Words for what the person came about (the goal tool's nouns): a report must speak of them. */
  readonly #about: RegExp | null;
  /** Parameters that name a record: the person states their ids only when they hold them. */
  readonly #records: ReadonlySet<string> | null;
  /** A vague person has said plainly what they came for. */
  #spelledOut = false;
  /** Whether what the person came for reads rather than changes (null: told by the request's words). */
  readonly #looksUp: boolean | null;
  /** A read-back's "status cancelled" after a cancellation: the change as the records show it. */
  readonly #after: RegExp | null;
  /** The goal's choices from a list, and those already put right in a read-back. */
  readonly #choices: ReadonlyMap<string, string>;
  readonly #putRight = new Set<string>();
  /** Whether a read-back proposes a change other than the one the person came for. */
  readonly #otherChange: (text: string) => boolean;
  readonly #examples: ReadonlySet<string>;
  readonly #detailName: (field: string) => string;

  constructor(persona: Persona, seed: number, knows: PersonKnowledge = {}) {
    this.#persona = persona;
    this.#ids = knows.ids ?? (() => []);
    this.#about = knows.about ?? null;
    this.#records = knows.records ?? null;
    this.#looksUp = knows.looksUp ?? null;
    this.#after = knows.after
      ? new RegExp(`\\bstatus ${regexLiteral(knows.after).replace(/_/g, "[ _]")}`, "i")
      : null;
    this.#choices = knows.choices ?? new Map();
    this.#otherChange = knows.otherChange ?? (() => false);
    this.#examples = knows.examples ?? new Set();
    this.#detailName = knows.detailName ?? spokenWords;
    this.#rng = new Rng(seed, "offline-user");
    this.#patience = persona.patience;
    this.#behaviour = behaviourOf(persona.stance);
  }

  /** The person's reply to the conversation so far (they see only text, never tool results). */
  reply(conversation: readonly ChatMessage[]): UserTurn {
    const last = [...conversation]
      .reverse()
      .find((m) => m.role === "assistant" && typeof m.content === "string" && m.content.length > 0);
    const text = last && last.role === "assistant" ? (last.content as string) : "";
    // What they said before this role spoke (the opening the writer wrote) is said already too;
    // what it said since is in #sent.
    if (!this.#heardBefore) {
      this.#heardBefore = true;
      for (const m of conversation) if (m.role === "user") this.#sent.add(m.content.toLowerCase());
    }
    const turn = this.#answer(text);
    let content = renderStyled(turn.content, this.#persona.style, this.#rng);
    // The same words twice read as a script; a person says it another way, or gives up.
    if (this.#sent.has(content.toLowerCase())) {
      const other = renderStyled(
        `${this.#rng.pick(AGAIN)} ${turn.content}`,
        this.#persona.style,
        this.#rng,
      );
      if (this.#sent.has(other.toLowerCase()))
        return {
          content: renderStyled("I'll leave it there, thanks.", this.#persona.style, this.#rng),
          end: "gave_up",
        };
      content = other;
    }
    this.#sent.add(content.toLowerCase());
    return { ...turn, content };
  }

  #answer(text: string): UserTurn {
    const questions = questionsIn(text);
    const confirming = questions.some(asksGoAhead);
    // A go-ahead question names the record it would act on; only the other questions ask for details.
    const wanted = this.#askedFor(
      questions.filter((q) => !OFFER_OF_MORE.test(q) && !asksGoAhead(q)).join(" "),
    );
    // Handed over, the person waits; unless the agent first asks for what the hand-off needs.
    if (HANDED_OVER.test(text) && wanted.length === 0 && !confirming)
      return this.#one(["Okay, thanks.", "Fine, I'll wait.", "Alright, thank you."], "done");
    if (wanted.length > 0) return this.#give(wanted);
    if (confirming) return this.#confirm(text);
    if (questions.some((q) => /\bwhich one\b/i.test(q))) return this.#pick(text);
    // Their claim answered, what they came for stands: the person goes on as after the report.
    if (this.#disputing) {
      this.#disputing = false;
      return this.#satisfied(true);
    }
    // The agent's framing is its first sentence; what follows may quote the records ("Cannot access shared drive").
    const framing = text.split(/[:.!?](\s|$)/)[0] ?? text;
    if (WHAT_NOW.test(text)) return this.#restate();
    if (FAILED.test(framing) || REFUSED_AFTER.test(text) || saysLastWord(text))
      return this.#failure(text);
    if (REPORTED.test(framing)) return this.#reported(text);
    if (OFFER_OF_MORE.test(text)) return this.#restate();
    return this.#impatient([
      `So can you ${this.#goal()}?`,
      `Can you just ${this.#goal()}, please?`,
    ]);
  }

  /** The request in words, values kept. */
  #goal(): string {
    // Every wording that uses it is sent: the person has said plainly what they came for.
    this.#spelledOut = true;
    return this.#persona.goal.text;
  }

  /** What the questions ask for: arguments of the goal, identifiers held, or details of who the person is. */
  #askedFor(questions: string): string[] {
    if (questions === "") return [];
    const p = this.#persona;
    // "the email address on your account" asks for the email, not for an address.
    const lower = questions.toLowerCase().replace(/\be-?mail address(es)?/g, "email");
    const asked: string[] = [];
    const params = new Set([
      ...Object.keys(p.goal.arguments),
      ...Object.keys(p.details.ids),
      ...Object.keys(p.details.candidates),
      ...Object.keys(p.details.details).filter((k) => identityKey(k) === null),
    ]);
    for (const param of params) {
      if (agentWrites({ tool: { name: p.goal.tool } }, param)) continue;
      const { spoken, words } = askedWords(param);
      if (lower.includes(spoken) || (words.length > 0 && words.every((w) => lower.includes(w))))
        asked.push(param);
    }
    // "the coupon code" asks for the coupon code, not also for a `code`: a name heard only inside
    // a longer one asked for is not asked for itself.
    const padded = (text: string) => ` ${text.replace(/[^a-z0-9]+/g, " ")} `;
    const heard =
      asked.length < 2
        ? asked
        : asked.filter((param) => {
            const spoken = padded(askedWords(param).spoken);
            const longer = asked
              .map((other) => padded(askedWords(other).spoken))
              .filter((name) => name !== spoken && name.includes(spoken));
            if (longer.length === 0) return true;
            let rest = padded(lower);
            for (const name of longer) rest = rest.split(name).join("  ");
            return rest.includes(spoken);
          });
    asked.splice(0, asked.length, ...heard);
    // "your from account ID" asks for one of two accounts: the direction word decides which.
    const directed = asked.filter((param) =>
      snake(param)
        .split("_")
        .some((w) => ROLE_WORD_PATTERNS.get(w)?.test(lower) === true),
    );
    if (directed.length > 0)
      asked.splice(
        0,
        asked.length,
        ...asked.filter(
          (a) =>
            directed.includes(a) ||
            !snake(a)
              .split("_")
              .some((w) => ROLE_WORDS.has(w)),
        ),
      );
    for (const [pattern, detail] of DETAIL_WORDS) {
      if (!pattern.test(lower)) continue;
      // "the from pharmacy phone" asks for the pharmacy's phone, not also for the person's.
      if (
        asked.some(
          (a) =>
            identityKey(snake(a)) === detail ||
            snake(a) === detail ||
            snake(a).split("_").includes(detail),
        )
      )
        continue;
      if (detail === "address" && asked.some((a) => /address|street/.test(a))) continue;
      asked.push(`__${detail}`);
    }
    if (/\be-?mail\b/.test(lower) && !asked.some((a) => /e?mail/i.test(a))) asked.push("__email");
    if (asked.length === 0 && /\b(id|number|reference|code)\b/.test(lower))
      asked.push("__unknown_id");
    return asked;
  }

  #give(params: string[]): UserTurn {
    const p = this.#persona;
    const parts: string[] = [];
    const misstated: string[] = [];
    const labelled = params.length > 1;
    for (const param of params) {
      const times = (this.#asked.get(param) ?? 0) + 1;
      this.#asked.set(param, times);
      const label = labelOf(param);
      if (param === "__unknown_id") {
        parts.push(
          `I don't have a number for it, sorry. It's ${p.details.about.replace(/^their /, "my ")}.`,
        );
        continue;
      }
      const value = this.#valueOf(param);
      const candidates = p.details.candidates[param];
      if (candidates && candidates.length > 1) {
        parts.push(
          `It's either ${keep(candidates[0] as string)} or ${keep(candidates[1] as string)}, I'm not sure which.`,
        );
      } else if (value === undefined) {
        parts.push(
          /(_id|Id|_ids|_number)$/.test(param)
            ? `I don't have the ${label} to hand, sorry. It's ${p.details.about.replace(/^their /, "my ")}.`
            : `I'm not sure about the ${label}, sorry.`,
        );
      } else if (this.#behaviour === "vague" && times === 1 && /(_id|Id)$/.test(param)) {
        parts.push(
          `It's ${p.details.about.replace(/^their /, "my ")}, I don't have the details in front of me.`,
        );
      } else if (
        this.#behaviour === "confused" &&
        !this.#misled &&
        /(_id|Id)$/.test(param) &&
        typeof value === "string"
      ) {
        this.#misled = true;
        const wrong = garble(value, this.#rng, this.#examples);
        misstated.push(wrong);
        this.#lastSaid.set(param, wrong);
        parts.push(
          labelled ? `${keep(label)} ${keep(wrong)}, I think` : `I think it's ${keep(wrong)}?`,
        );
      } else if (typeof value === "boolean" && !labelled) {
        // A yes-or-no is answered as one, not handed over as a value ("Sure, it's no.").
        parts.push(
          value
            ? this.#rng.pick(["Yes.", "Yes, please.", "Yes, that's right."])
            : this.#rng.pick(["No.", "No, thanks.", "No, not that."]),
        );
      } else if (labelled) {
        // The label is kept as typed, so a typo or a lower case never hides which detail it is.
        parts.push(`${keep(label)} ${keep(spokenValue(value))}`);
        if (typeof value === "string") this.#lastSaid.set(param, value);
      } else {
        parts.push(
          `${this.#rng.pick(["", "It's ", "Sure, it's ", "That's "])}${keep(spokenValue(value))}.`,
        );
        if (typeof value === "string") this.#lastSaid.set(param, value);
      }
    }
    // Details one of which holds commas (an address) are set off by semicolons.
    const between = parts.some((part) => part.includes(",")) ? "; " : ", ";
    // A sentence among labelled details ("…I don't have it to hand, sorry. It's my workspace.")
    // gives up its stop to the separator: no "workspace.; user id".
    const content = labelled
      ? `${this.#rng.pick(["Sure: ", "Here you go: ", "", "Okay, "])}${parts.map((part) => part.replace(/\.$/, "")).join(keep(between))}.`
      : parts.join(" ");
    return misstated.length > 0 ? { content, misstated } : { content };
  }

  /** What the person holds for a parameter: an id, a goal's value, a detail of who they are. */
  #valueOf(param: string): unknown {
    const p = this.#persona;
    if (param.startsWith("__")) {
      const detail = param.slice(2);
      if (detail === "email") return p.details.email;
      if (detail === "phone") return p.details.phone;
      if (detail === "name") return p.details.name;
      return lookup(p.details.details, detail);
    }
    // A record's id is stated only when held: the goal may name one of two records the person
    // cannot tell apart. An id of something else (a member id on an insurance card) is just a detail.
    const names = this.#records ? this.#records.has(param) : /(_id|Id)$/.test(param);
    if (names) return lookup(p.details.ids, param);
    return (
      lookup(p.details.ids, param) ??
      lookup(p.goal.arguments, param) ??
      personDetail(p.details, param)
    );
  }

  /** "Which one do you mean?": the one the person holds, else the listed one most like what they have in mind. */
  #pick(text: string): UserTurn {
    const p = this.#persona;
    const seen = this.#ids(text);
    // An id their request names is theirs too (the account they asked to see the bills of).
    const held =
      [...Object.values(p.details.ids), ...Object.values(p.details.candidates).flat()].find((id) =>
        text.includes(id),
      ) ?? surely(p.goal).find(([, value]) => seen.includes(String(value)))?.[1];
    if (held !== undefined) return { content: `The ${keep(String(held))} one.` };
    const about = new Set(tellingWords(p.details.about));
    // What they know it by, whole ("gas", where "electricity and gas" is another; someone else by
    // their whole name, "Kofi Xu"): a short word is no telling word, and a whole choice beats a
    // list that holds it.
    const knownBy = new Set(
      [
        ...(/\(([^)]*)\)/.exec(p.details.about)?.[1] ?? "").split(", "),
        /^the [a-z_]+ ([^(]+?)(?: \(|$)/.exec(p.details.about)?.[1] ?? "",
      ]
        .map((part) => part.trim().toLowerCase())
        .filter(Boolean),
    );
    // "ws_IwAPKWwq (Harbor workspace, team)": an id the person recognises, then what it is. An id
    // may hold spaces ("ACC 4863 5995"): the one recognised right before the brackets is taken whole.
    const options = [...text.matchAll(/([#\w-]+) \(([^)]*)\)/g)]
      .map((m) => {
        const said = text.slice(0, m.index + (m[1] as string).length);
        return {
          id: seen.find((id) => said.endsWith(id)) ?? (m[1] as string),
          what: m[2] as string,
        };
      })
      .filter((m) => seen.includes(m.id) || /\d{4,}/.test(m.id))
      .map((m) => ({
        id: m.id,
        score:
          tellingWords(m.what).filter((w) => about.has(w)).length +
          m.what
            .toLowerCase()
            .split(", ")
            .filter((part) => knownBy.has(part.replace(/_/g, " "))).length,
      }));
    const best = options.reduce<{ id: string; score: number } | null>(
      (a, b) => (a === null || b.score > a.score ? b : a),
      null,
    );
    if (best && best.score > 0) return { content: `The ${keep(best.id)} one, I think.` };
    return this.#one(["The first one, I think.", "Probably the first one."]);
  }

  #confirm(text: string): UserTurn {
    const p = this.#persona;
    // A change they never asked for ("suspend the line" when they came to add data) is turned
    // down, whatever else the read-back gets right.
    if (this.#otherChange(text))
      return this.#impatient([
        `No, that's not what I asked for. I want to ${this.#goal()}.`,
        `No, don't do that. What I need is to ${this.#goal()}.`,
      ]);
    const held = [
      ...Object.values(p.details.ids),
      ...flatten(p.goal.arguments),
      // Two alike records either of which is what they mean: neither is a stranger.
      ...(p.goal.alternatives ?? []).flatMap(flatten),
      ...Object.values(p.details.candidates).flat(),
      ...Object.values(p.details.details),
    ];
    const lowered = held.map((h) => h.toLowerCase());
    const idsSaid = this.#ids(text);
    const stranger = idsSaid.find((id) => !lowered.some((h) => h.includes(id.toLowerCase())));
    const right = stranger ? this.#ownFor(text, idsSaid, stranger) : undefined;
    if (stranger && right) {
      // Putting the id right settles any mix-up of theirs: it is not owned up to again later.
      this.#misled = false;
      return { content: `No, ${keep(stranger)} isn't mine. It's ${keep(right)}.` };
    }
    // A choice read back as another ("reason lost" when they want it suspended for a while) is
    // put right: the person knows what they chose, and read back wrong again, they say no to it.
    const said = text.toLowerCase();
    for (const [param, value] of this.#choices) {
      const label = spokenWords(snake(param)).toLowerCase();
      const forms = [value, value.replace(/_/g, " ")].map((v) => v.toLowerCase());
      if (!said.includes(`${label} `)) continue;
      if (forms.some((form) => said.includes(form))) continue;
      if (this.#putRight.has(param))
        return { content: "No, that's still not what I asked for. Please leave it." };
      this.#putRight.add(param);
      return {
        content: `No, the ${keep(spokenWords(param))} should be ${keep(value.replace(/_/g, " "))}.`,
      };
    }
    // An id of a kind they hold none of (an account number they never knew) they cannot judge:
    // they go by what the agent found.
    if (stranger)
      return this.#one(["Yes, I think so.", "Yes, go ahead. I don't know the number myself."]);
    if (this.#behaviour === "pressuring")
      return this.#one([
        "Yes, obviously. You don't need to keep checking with me.",
        "Yes. Just do it.",
      ]);
    return this.#one([
      "Yes, please go ahead.",
      "Yes, that's right.",
      "Yes, do it.",
      "Yes, that's correct, go ahead.",
    ]);
  }

  /**
   * The person's own id for the one the agent named wrongly: the id of the detail named just before
   * it ("reservation ID S4VB41"), else one of the same kind; a workspace id answers for a workspace
   * id, never a user id.
   */
  #ownFor(text: string, said: readonly string[], stranger: string): string | undefined {
    // Their ids, and the ids of what they asked for (the new slot they chose), but for one of two
    // alike records, whose id they never knew.
    const { goal } = this.#persona;
    // Their own id under a name the request gives another's (the user whose role is changed) is
    // no answer for it.
    const forOthers = (param: string, id: string) =>
      goal.arguments[param] !== undefined && String(goal.arguments[param]) !== id;
    const ids = [
      ...Object.entries(this.#persona.details.ids).filter(([param, id]) => !forOthers(param, id)),
      ...surely(goal).filter(
        (entry): entry is [string, string] =>
          typeof entry[1] === "string" && /(_id|Id)$/.test(entry[0]),
      ),
    ];
    const at = text.indexOf(stranger);
    // Only words since the last value said before it: in "user IDs usr_1, workspace ID ws_2" the
    // user id's label names usr_1, not ws_2.
    const after = said
      .filter((id) => id !== stranger)
      .map((id) => {
        const end = text.lastIndexOf(id, at - id.length);
        return end < 0 ? 0 : end + id.length;
      });
    const before = text.slice(Math.max(0, at - 40, ...after), at).toLowerCase();
    const named = ids.filter(([param]) => before.includes(askedWords(param).spoken.toLowerCase()));
    // The detail named nearest the id is the one it was given for.
    const nearest = named.sort(
      (a, b) =>
        before.lastIndexOf(askedWords(b[0]).spoken.toLowerCase()) -
        before.lastIndexOf(askedWords(a[0]).spoken.toLowerCase()),
    )[0];
    if (nearest) return nearest[1];
    return ids.map(([, id]) => id).find((id) => sameKind(id, stranger));
  }

  /** The agent said something failed or could not be done. */
  #failure(text: string): UserTurn {
    const p = this.#persona;
    if (this.#misled && /find|found|exist|match|double-check/i.test(text) && this.#asked.size > 0) {
      this.#misled = false;
      const [param] = [...this.#asked.keys()].filter((k) => /(_id|Id)$/.test(k));
      const value = param ? lookup(p.details.ids, param) : undefined;
      // Only a mix-up still standing is put right: not one the person has since corrected.
      if (value && this.#lastSaid.get(param as string) !== value)
        return { content: `Oh sorry, I mixed it up. It's ${keep(value)}.` };
    }
    // Told it is the agent's last word, a person who presses asks once for someone who can do more.
    const final = saysLastWord(text);
    if (final && !this.#askedForSomeone && PRESSING.has(this.#behaviour)) {
      this.#askedForSomeone = true;
      return this.#impatient([
        "Then can I speak to someone who can?",
        "Can you put me through to someone who can sort it, then?",
      ]);
    }
    if (this.#behaviour === "insistent" && this.#insisted < 2 && !final) {
      this.#insisted++;
      return this.#impatient([
        "That's not good enough. Please try again.",
        "Can you try again? I really need this sorted.",
      ]);
    }
    if (this.#behaviour === "hurried")
      return this.#one(
        ["Forget it, I'll sort it out myself.", "No time for this, never mind."],
        "gave_up",
      );
    // A vague person who never said what they want says it before giving up: what was tried may
    // not be what they came for (an account looked for when they are moving in).
    if (this.#behaviour === "vague" && !this.#spelledOut)
      return this.#impatient([
        `Sorry, I should have said. I want to ${this.#goal()}.`,
        `Oh, let me be clearer: I need to ${this.#goal()}.`,
      ]);
    const sarcasm = p.style.sarcastic ? "Great, just great. " : "";
    return this.#one(
      [
        `${sarcasm}Okay, I understand. Thanks anyway.`,
        `${sarcasm}Alright, thanks for checking.`,
        `${sarcasm}Okay, that's a shame. Thanks.`,
      ],
      "done",
    );
  }

  /**
   * The agent reported something. The person is satisfied only when it is what they came for: a
   * change reported done when they asked for a change, what was found when they asked to look.
   */
  #reported(text: string): UserTurn {
    const p = this.#persona;
    const wantsChange = this.#wantsChange();
    const done =
      /\b(done|completed?|has been|have (\w+ed)|i'?ve (\w+ed|sent|paid|set|reset|frozen|issued)|recorded|went through|is now|is no longer listed)\b/i.test(
        text,
      );
    // Asked to double-check a change, a read that shows what they asked for answers the doubt.
    const checked = this.#doubted && this.#showsGoal(text);
    if (wantsChange && !done && !checked)
      return this.#impatient([
        `Thanks, but I still need you to ${this.#goal()}.`,
        `Okay, but that's not what I asked. I need to ${this.#goal()}.`,
      ]);
    // Told there is nothing, a person who came to see something they have does not say "perfect".
    if (!wantsChange && EMPTY_REPORT.test(text))
      return this.#impatient([
        "That can't be right, there should be something there. Can you check again?",
        "Nothing at all? I'm sure there is one. Could you look again?",
      ]);
    // A report about something else (the booking when they asked for its invoice) is not an answer,
    // unless it is the read they asked for to be sure, and it shows what they asked for.
    if (this.#about && !checked && !this.#about.test(text))
      return this.#impatient([
        `That's not what I asked about, though. I need to ${this.#goal()}.`,
        `Hmm, that isn't it. What I need is to ${this.#goal()}.`,
      ]);
    const claim = Object.entries(p.details.claims)[0];
    if (claim && !this.#claimed) {
      this.#claimed = true;
      this.#disputing = true;
      const [field, value] = claim;
      const spoken = this.#detailName(field);
      const theirs = keep(codeInWords(String(value)));
      // A report that says the detail ("total", not "subtotal") is disputed; one that does not is
      // asked about it.
      const says = (words: string) =>
        new RegExp(`\\b${regexLiteral(words.toLowerCase())}\\b`).test(text.toLowerCase());
      return this.#impatient(
        says(spoken) || says(spokenWords(field))
          ? [`That doesn't match what I have. My ${spoken} says ${theirs}.`]
          : [`And what does it show for the ${spoken}? Mine says ${theirs}.`],
      );
    }
    return this.#satisfied();
  }

  /** Whether a report shows a detail the person asked for (the new date, the new role), beyond the record's id. */
  #showsGoal(text: string): boolean {
    const said = text.toLowerCase();
    if (this.#after?.test(said)) return true;
    return Object.entries(this.#persona.goal.arguments).some(
      ([param, value]) =>
        !this.#records?.has(param) &&
        (typeof value === "string" || typeof value === "number") &&
        String(value).length > 1 &&
        saysValue(said, String(value)),
    );
  }

  /** Whether the person came for a change, not to look something up (or have something worked out). */
  #wantsChange(): boolean {
    if (this.#looksUp !== null) return !this.#looksUp;
    return !/^(check|see|find|look up|track|get|view|show)\b/.test(
      this.#persona.goal.text.replace(/[\uE000\uE001]/g, ""),
    );
  }

  /**
   * Told what they came for, with nothing left to dispute: a skeptic asks once to be sure, anyone
   * else thanks and ends (less warmly when their claim was just turned down).
   */
  #satisfied(disputed = false): UserTurn {
    const wantsChange = this.#wantsChange();
    if (this.#behaviour === "skeptical" && !this.#doubted) {
      this.#doubted = true;
      return {
        content: wantsChange
          ? "Are you sure it actually went through? Can you double-check and tell me what the system shows?"
          : "Is that really everything? Can you double-check?",
      };
    }

    return this.#one(
      disputed
        ? [
            "Okay, I'll check that on my side then. Thanks.",
            "Alright, I'll look into that myself. Thanks for the rest.",
            "Fine, I'll sort that part out myself. Thanks.",
          ]
        : [
            "Great, thanks!",
            "Perfect, thank you.",
            "Thanks, that's all I needed.",
            "Brilliant, that's sorted then.",
          ],
      "done",
    );
  }

  /** The agent asked what the person needs: say it again in other words, costing patience. */
  #restate(): UserTurn {
    const goal = this.#goal();
    return this.#impatient([
      `I want to ${goal}.`,
      `I'm trying to ${goal}.`,
      `Like I said, I need to ${goal}.`,
      `What I need is simple: ${goal}.`,
    ]);
  }

  /** The first of the wordings not sent before, ending the conversation when given. */
  #one(wordings: string[], end?: "done" | "gave_up"): UserTurn {
    const fresh = wordings.filter((w) => !this.#sent.has(w.toLowerCase()));
    const content = fresh.length > 0 ? this.#rng.pick(fresh) : this.#rng.pick(wordings);
    return end ? { content, end } : { content };
  }

  /** A reply that costs patience; with none left, the person gives up instead. */
  #impatient(wordings: string[]): UserTurn {
    this.#patience--;
    if (this.#patience <= 0)
      return this.#one(
        ["This is taking too long. I'll try another way.", "I've had enough of this, goodbye."],
        "gave_up",
      );
    return this.#one(wordings);
  }
}

/** The goal's arguments every alternative shares: what the person asks for, never which of two alike records. */
function surely(goal: Goal): [string, unknown][] {
  return Object.entries(goal.arguments).filter(
    ([param, value]) => !goal.alternatives?.some((other) => other[param] !== value),
  );
}

/** Every plain value inside arguments, nested lists and objects included. */
function flatten(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(flatten);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(flatten);
  return value === undefined ? [] : [String(value)];
}

/** A report that found nothing: "0 seat maps", "no orders found", "I couldn't find any". */
const EMPTY_REPORT =
  /\b(found:? 0\b|(?<![\d.,])0 [a-z]+s\b|no [a-z ]{1,30} (found|on (file|record|your account))|(couldn't|could not|didn't|did not) find (any|a|an|your)|nothing (found|on))/i;

/** Lead-ins a person adds when they must say something again. */
const AGAIN = ["Again,", "As I said,", "Look,", "To be clear,"];

/** A detail's name as a person says it: `zip` → "zip code", `__date_of_birth` → "date of birth". */
function labelOf(param: string): string {
  const key = param.startsWith("__") ? param.slice(2) : snake(param);
  const identity = identityKey(key) ?? key;
  const names: Record<string, string> = {
    zip: "zip code",
    date_of_birth: "date of birth",
    first_name: "first name",
    last_name: "last name",
    name: "name",
    email: "email",
    phone: "phone",
    street: "street",
  };
  return lookup(names, identity) ?? spokenWords(key);
}

/** Whether two identifiers are of one kind: the same letters before their first digit or separator, about as long. */
function sameKind(a: string, b: string): boolean {
  const prefix = (id: string) => /^[A-Za-z]*[-_#]?/.exec(id)?.[0].toLowerCase() ?? "";
  return prefix(a) === prefix(b) && Math.abs(a.length - b.length) <= 2;
}

/** A near miss of an identifier: two digits swapped, the way people misread a number. */
function garble(id: string, rng: Rng, avoid: ReadonlySet<string>): string {
  const digits = [...id].map((c, i) => (/\d/.test(c) ? i : -1)).filter((i) => i >= 0);
  if (digits.length < 2) return `${id}0`;
  // From a random pair on, the first mix-up that is no example of the spec's: the world refuses
  // those as placeholders, and a person never misreads their id as the one on the form.
  const start = rng.int(digits.length - 1);
  for (let step = 0; step < digits.length - 1; step++) {
    const at = (start + step) % (digits.length - 1);
    const [i, j] = [digits[at] as number, digits[at + 1] as number];
    const chars = [...id];
    if (chars[i] === chars[j]) chars[j] = String((Number(chars[j]) + 1) % 10);
    else [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
    const wrong = chars.join("");
    if (!avoid.has(wrong)) return wrong;
  }
  return `${id}0`;
}

/** What an offline person can tell from the spec: ids when they see them, what they came about, which details name records. */
export interface PersonKnowledge {
  ids?: (text: string) => string[];
  about?: RegExp | null;
  records?: ReadonlySet<string>;
  /** Whether the goal's tool reads or works something out, changing nothing. */
  looksUp?: boolean;
  /** The goal's choices from a list (`reason: temporary`), which the person checks in a read-back. */
  choices?: ReadonlyMap<string, string>;
  /** The state the goal's change leaves its record in (`cancelled`): a read showing it shows the change. */
  after?: string | null;
  /** Whether a read-back proposes a change other than the one the person came for. */
  otherChange?: (text: string) => boolean;
  /** The ids the spec gives as examples (`usr_01HZX4K8`), which no id the person mixes up becomes. */
  examples?: ReadonlySet<string>;
  /** What the person calls a record's detail: a balance by its name and "balance" ("current balance"). */
  detailName?: (field: string) => string;
}

/** The offline user model: each episode's person played by an {@link OfflineUser}. */
export const offlineUser: UserSimulator = {
  name: "offline",
  start(setup) {
    const reader = IdentifierReader.of(setup.agent);
    const model = WorldModel.of(setup.agent);
    const goal = model.tools.get(setup.persona.goal.tool);
    // Records the person owns are known by id only if held; a catalog's (a flight, a plan) and
    // the items of a list (read off their order page) are chosen.
    const owned = [...(goal?.idEntities ?? [])]
      .filter(
        ([param, entity]) =>
          !model.entities.get(entity)?.catalog &&
          !goal?.refs.some((r) => r.param === param && (r.role === "new" || r.many)),
      )
      .map(([param]) => param);
    const properties = goal ? propertiesOf(goal) : {};
    const choices = new Map(
      Object.entries(setup.persona.goal.arguments)
        .filter(([param, value]) => typeof value === "string" && properties[param]?.enum)
        .map(([param, value]) => [param, value as string]),
    );
    const user = new OfflineUser(setup.persona, rolloutSeed(setup.situation, setup.rollout), {
      ids: (text) => reader.read(text).filter((id) => !id.includes("@")),
      about: goalNouns(setup.agent, setup.persona.goal.tool),
      records: new Set(owned),
      choices,
      ...recordFacts(model),
      after: goal?.statusAfter ?? null,
      otherChange: (text) => {
        const proposed = intentOf(model, text);
        return (
          proposed !== null &&
          proposed !== goal &&
          (proposed.kind === "change" || proposed.kind === "create")
        );
      },
      ...(goal
        ? {
            looksUp:
              goal.kind === "read_one" || goal.kind === "read_many" || goal.kind === "utility",
          }
        : {}),
    });
    return { reply: async (conversation) => user.reply(conversation) };
  },
};

/** The nouns of the goal's tool ("invoice", "invoices"), as a pattern a report about it must match. */
function goalNouns(agent: Agent, tool: string): RegExp | null {
  let byTool = NOUNS.get(agent);
  if (!byTool) {
    byTool = new Map(
      agent.tools.map((t) => [
        t.name,
        phrasePattern(toolWords(t).nouns.filter((n) => n.length > 2)),
      ]),
    );
    NOUNS.set(agent, byTool);
  }
  return byTool.get(tool) ?? null;
}

const NOUNS = new WeakMap<Agent, Map<string, RegExp | null>>();

/** Per spec, what the person knows of its records' ids and details, worked out once. */
const FACTS = new WeakMap<WorldModel, Pick<PersonKnowledge, "examples" | "detailName">>();

/** The spec's example ids, and what the person calls a record's detail (a balance "… balance"). */
function recordFacts(model: WorldModel): Pick<PersonKnowledge, "examples" | "detailName"> {
  let facts = FACTS.get(model);
  if (!facts) {
    const entities = [...model.entities.values()];
    const balances = new Set(entities.flatMap((e) => e.balanceFields));
    facts = {
      examples: new Set(entities.flatMap((e) => [...e.exampleIds])),
      detailName: (field) =>
        balances.has(field) && !/balance/.test(field)
          ? `${spokenWords(field)} balance`
          : spokenWords(field),
    };
    FACTS.set(model, facts);
  }
  return facts;
}
