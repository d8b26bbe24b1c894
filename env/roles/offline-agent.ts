import {
  type AssistantMessage,
  type ChatMessage,
  DEFAULTS,
  type SlipKind,
} from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { failedAnswer } from "../grade/conduct.ts";
import { toolWords } from "../policy/words.ts";
import { Rng } from "../rng.ts";
import { agentWrites, isFreeText } from "../text/agent-written.ts";
import { IdentifierReader } from "../text/identifiers.ts";
import { givesGoAhead } from "../text/phrases.ts";
import { intentOf, intentScores, needsConfirmation, untypo, wantsHuman } from "../text/reading.ts";
import { fits, readValue, spokenName } from "../text/slots.ts";
import { tellingWords } from "../text/telling.ts";
import { swapTypos, typoMender } from "../text/typos.ts";
import { nameWords, verbOf } from "../tools.ts";
import { fnv1a } from "../util/hash.ts";
import { keyed, lookup } from "../util/lookup.ts";
import { CODES_IN_TEXT, codeInWords, REFERENCE_FIELD, snake, spokenWords } from "../util/names.ts";
import { errorIn, parsedJson } from "../util/parsed.ts";
import { regexLiteral, replaceStandalone } from "../util/regex.ts";
import { identityKey, PERSONAL_DETAILS, PLACE_DETAILS } from "../world/identity.ts";
import {
  type EntityModel,
  propertiesOf,
  type Ref,
  type ToolModel,
  WorldModel,
} from "../world/model.ts";
import { meets, STATUS_WORDS } from "../world/statuses.ts";
import type { SchemaFragment } from "../world/values.ts";
import { DELETE_VERBS } from "../world/vocabulary.ts";
import type { AgentPolicy, AgentSession, AgentTurn } from "./types.ts";

const RETRYABLE = new Set(["timeout", "server_error", "rate_limited"]);
/** The person doubting that something happened. */
const DOUBT =
  /are you sure|double-?check|(check|look) again|actually (went|worked|happened|done)|went through\?|proof|what the system shows/i;
/** What the agent says when every wording of a message was used: it has nothing new to add. */
const LAST_WORDS = [
  "I'm sorry, I don't have anything more I can do on this here.",
  "I've done all I can with this from here, I'm afraid.",
  "There's nothing further I can do on this one, sorry.",
];
/** The person saying their own record shows otherwise: "doesn't match what I have", "my status says…", "mine says…". */
const SAYS_OTHERWISE = /doesn'?t match|does not match|\bmy \w+( \w+)? says\b|\bmine says\b/i;
/** The detail a person says their record shows otherwise: "what does it show for the total?", "my total says…". */
const DISPUTED_DETAIL = /(?:show for the|\bmy) ([a-z][\w' -]{0,40}?)(?:\?| says\b)/i;
/** Words a person asks for someone with ("a human from customer support"): they name no team. */
const ASK_FOR_SOMEONE = new Set([
  "human",
  "person",
  "people",
  "agent",
  "agents",
  "representative",
  "staff",
  "team",
  "colleague",
  "customer",
  "care",
  "support",
  "service",
  "manager",
  "someone",
]);
/** Words that join the parts of a choice's name ("fraud_and_security"), naming nothing. */
const CONNECTORS = new Set(["and", "the", "for", "with", "from"]);
/** A parameter that holds a record's id or number. */
const ID_PARAM = /(^|_)(id|ids|number)$|[a-z](Id|Ids|Number)$/;
/** The person saying what the agent reported is not what they have. */
const DISPUTE = new RegExp(
  `${SAYS_OTHERWISE.source}|that'?s (not|wrong)|isn'?t (right|correct)`,
  "i",
);
/** The person saying the answer was about something else: "that isn't it", "not what I asked". */
const NOT_IT =
  /\b(that('?s| is)(n'?t| not) (it|what i (asked|meant|wanted|need))|not what i (asked|meant|wanted))\b/i;
/** The person asking the agent to try again. */
const TRY_AGAIN = /\btry (it )?again\b|\bplease try\b|\bone more time\b/i;
/**
 * The words of the person's asks the agent goes by (to try again, to double-check, that something
 * is wrong or not what they meant), mended where they slipped: "That's not good enough. Try aagin"
 * is a retry, not a dispute.
 */
const mendAsks = typoMender([
  "again",
  "please",
  "double",
  "check",
  "actually",
  "happened",
  "worked",
  "through",
  "proof",
  "system",
  "shows",
  "match",
  "wrong",
  "right",
  "correct",
  "asked",
  "meant",
  "wanted",
  "thanks",
  "doesn",
  "speak",
  "human",
  "transfer",
  "connect",
  "manager",
  "someone",
  "somebody",
]);
/** Times the agent asks for one detail before it stops asking and says what it cannot do. */
const MAX_ASKS = 2;
/** A word and its one-swap typos ("frist"), as a pattern of whole words. */
function typedWord(...words: string[]): RegExp {
  // Swaps after the first letter: a slip keeps the word's start ("frist", never "ifrst").
  const forms = words.flatMap((word) => [word, ...swapTypos(word, 1)]);
  return new RegExp(`\\b(${forms.join("|")})\\b`, "i");
}
/** Which of the listed records the person picks: "the first one", "either", "the second". */
const FIRST = typedWord("first", "either", "any");
const SECOND = typedWord("second");
const THIRD = typedWord("third");
/** Who a person is that no tool changes: said once, it holds for every tool that asks it. */
const SAME_FOR_LIFE = new Set(["name", "first_name", "last_name", "date_of_birth"]);
/** Identity details the agent may look a person up by, most usual first. */
const LOOKUP_ORDER = ["email", "phone", "name", "first_name", "last_name", "zip", "date_of_birth"];

/**
 * The offline agent: a seeded scripted policy that does the situation right on any spec. It reads
 * the request in any wording, checks who the person is when the policy asks, reads a record before
 * changing it (and says so when its state does not allow the change), fills every argument by its
 * schema from what the person said and what tools returned — never a sentence into an identifier —
 * reads a write back and waits for a yes under any confirmation rule, reports tool errors
 * truthfully, and hands off when asked. In a set share of episodes it slips in one named,
 * realistic way, recorded on the turn it happens; anything else it gets wrong is a bug.
 */
export class OfflineAgent implements AgentPolicy {
  readonly name = "offline";
  /** Share of episodes in which it slips; the one place the default is applied. */
  readonly slipRate: number;

  constructor(options: { slipRate?: number } = {}) {
    const rate = options.slipRate ?? DEFAULTS.slipRate;
    if (!(rate >= 0 && rate <= 1))
      throw new RangeError(`slipRate: expected a share between 0 and 1, got ${rate}`);
    this.slipRate = rate;
  }

  start(agent: Agent, seed: number): AgentSession {
    return new ScriptedSession(agent, seed, this.slipRate);
  }
}

/** What the agent is waiting for. */
type Pending =
  | { kind: "ask"; tool: ToolModel; params: string[] }
  | { kind: "intent" }
  | { kind: "confirm" }
  | { kind: "choose"; param: string; ids: string[] }
  | {
      kind: "call";
      tool: ToolModel;
      purpose: "lookup" | "verify" | "read" | "goal" | "list" | "send";
      listingFor?: string;
    }
  | { kind: "reported" }
  | null;

class ScriptedSession implements AgentSession {
  readonly #agent: Agent;
  readonly #model: WorldModel;
  readonly #rng: Rng;
  readonly #slipRate: number;
  #slip: SlipKind | null | undefined;
  #intent: ToolModel | null = null;
  /** Values known for arguments, by parameter name: what the person said and what tools returned. */
  readonly #args = new Map<string, unknown>();
  /** Ids tools returned, by entity. */
  readonly #seen = new Map<string, Set<string>>();
  /** The status each record an answer showed was in, by entity and id (`account ACC 1`). */
  readonly #statusSeen = new Map<string, string>();
  #pending: Pending = null;
  #confirmed = false;
  /** The arguments as they were when the person said yes. */
  #confirmedArgs: string | null = null;
  #attempts = 0;
  #calls = 0;
  #turns = 0;
  /** The person's record was found by a lookup (or a lookup found nothing). */
  #identified: "yes" | "no" | null = null;
  /** The details already checked, so the same check is not run twice. */
  readonly #verifyTried = new Set<string>();
  /** Whether a check of the person's details passed, when the policy asks for one. */
  #verified: boolean | null = null;
  /** A one-time code was sent to the person, for a check to take. */
  #codeSent = false;
  #lookupsTried = new Set<string>();
  /** Records read before a change, by id. */
  readonly #read = new Set<string>();
  readonly #asked = new Map<string, number>();
  readonly #unknownIds = new Set<string>();
  /** The calls made, by tool name and arguments. */
  readonly #made = new Set<string>();
  /**
   * Reads answered (not to be tried again), by tool name and arguments, and how many times each
   * since the last write: a write makes every record worth reading again.
   */
  readonly #readsAnswered = new Map<string, number>();
  /** Lookups that found no one, by tool name and arguments: the same details would find no one again. */
  readonly #foundNoOne = new Set<string>();
  /** Values the person said were wrong. */
  readonly #rejected = new Set<string>();
  /**
   * A list made under each of the person's records in turn, to find one they have no id for (the
   * lines of each of their accounts): the owner's parameter, the owners listed under, what the
   * lists showed, and the owner each record was listed under.
   */
  #byOwner: {
    param: string;
    listed: Set<string>;
    records: Record<string, unknown>[];
    ownerOf: Map<string, unknown>;
  } | null = null;
  /** Values the world already said it could not find, by argument. */
  readonly #notFound = new Map<string, Set<string>>();
  readonly #said = new Set<string>();
  #intentAsks = 0;
  #retries = 0;
  /** Times the agent looked again because the person doubted a report. */
  #rechecks = 0;
  /** Times the person asked again for what was already reported. */
  #restatements = 0;
  /** A write whose answer could not be read may have gone through: it is checked, never made again. */
  #unsureWrite = false;
  /** Details the person disputed that the agent said it cannot see (it never told them either). */
  readonly #unseenDetails = new Set<string>();
  /** What the agent last reported of a tool's answer. */
  #lastReport = "";
  /** The request's own call succeeded (or the agent said so): it is done, and not done again. */
  #completed = false;
  /** Every request carried out (or said to be) in this conversation. */
  readonly #done = new Set<ToolModel>();
  /** The error code of the last failed call of the request, if it failed. */
  #lastError: string | null = null;
  /** Read-backs the person answered with a no. */
  #refusals = 0;
  /** A value as said to the person: a code in words, an id of the spec's as written. */
  readonly #sayCode: SayCode;

  constructor(agent: Agent, seed: number, slipRate: number) {
    this.#agent = agent;
    this.#model = WorldModel.of(agent);
    this.#rng = new Rng(seed, "offline-agent");
    this.#slipRate = slipRate;
    const ids = IdentifierReader.of(agent);
    this.#sayCode = (value) => (ids.read(value).includes(value) ? value : codeInWords(value));
  }

  /** A tool's message passed on to the person, its codes in words ("appointment APT-1 is no show"). */
  #relayed(message: string): string {
    return message.replace(CODES_IN_TEXT, this.#sayCode);
  }

  async respond(conversation: readonly ChatMessage[]): Promise<AgentTurn> {
    this.#turns++;
    const last = conversation.at(-1);
    if (last?.role === "tool") return this.#afterTool(last.content, conversation);
    if (last?.role === "user") {
      const handOff = this.#absorb(last.content, conversation);
      if (handOff) return handOff;
    }
    return this.#next(conversation);
  }

  /** Takes in what the person just said: the request, details, a yes or a no, a choice. */
  #absorb(text: string, conversation: readonly ChatMessage[]): AgentTurn | null {
    const pending = this.#pending;
    // What the person asks is read through their slips; what they say is kept as said.
    const heard = mendAsks(text);
    if (wantsHuman(heard) && this.#handoffTool(text) && this.#intent?.kind !== "handoff") {
      this.#intent = this.#handoffTool(text) as ToolModel;
      this.#pending = null;
      return null;
    }
    // Asked for someone else once the request is answered, with nobody to pass them to: say so.
    if (wantsHuman(heard) && !this.#handoffTool(text) && pending?.kind === "reported")
      return this.#say(
        "I'm sorry, there's no one I can pass you to from here, and I've done all I can on this. Is there anything else I can help you with?",
      );
    if (!this.#intent) {
      // One message per line: a labelled value ends with its message.
      const said = conversation
        .filter((m) => m.role === "user")
        .map((m) => m.content)
        .join("\n");
      this.#intent = intentOf(this.#model, said);
      if (this.#intent) this.#learnFrom(said, false);
      return null;
    }
    if (pending?.kind === "reported") {
      // Asking for something else after a report is a new request; a new detail (the right id
      // after a wrong one) reopens this one. A doubt ("can you double-check what the system
      // shows?") is about this request, whatever tool its words sound like.
      // Told the answer was not it, the request the message names is taken as asked.
      // So is what the person says their record shows ("My status says suspended lost"): a state,
      // whatever action its words sound like.
      const other =
        DOUBT.test(heard) || SAYS_OTHERWISE.test(heard)
          ? null
          : this.#otherIntent(text, NOT_IT.test(heard) ? 1 : 2);
      // "Thanks, but I still need…" is a request; "No, thanks" is a goodbye.
      if (other && !/^\W*(no|nope|that'?s (all|everything)|thanks)\b(?!,?\s*but\b)/i.test(heard)) {
        this.#intent = other;
        this.#completed = this.#done.has(other);
        this.#confirmed = false;
        this.#refusals = 0;
        this.#pending = null;
        this.#learnFrom(text, false, true);
        return null;
      }
      // A dispute of what was reported ("my status says pending") is answered, not acted on; a
      // request carried out is not carried out twice.
      if (DISPUTE.test(heard) || this.#completed) return null;
      // A corrected id (the right one after one that was not found) reopens the request, and a
      // reopened write needs a new yes.
      const before = new Map(this.#args);
      this.#learnFrom(text, false);
      const corrected = [...this.#args].some(
        ([p, v]) => before.has(p) && before.get(p) !== v && this.#intent?.idEntities.has(p),
      );
      const found = [...this.#args].some(([p]) => !before.has(p) && this.#notFound.has(p));
      if (corrected || found) {
        this.#pending = null;
        this.#confirmed = false;
      }
      return null;
    }
    if (pending?.kind === "confirm") {
      this.#confirmed = givesGoAhead(text);
      this.#confirmedArgs = this.#confirmed ? this.#argsKey() : null;
      if (!this.#confirmed) {
        this.#refusals++;
        // "No, 453888076 isn't right": that value is dropped and never offered again.
        const dropped: string[] = [];
        for (const [param, value] of [...this.#args]) {
          // A list of objects (a booking's passengers) is never said back whole.
          if (typeof value === "object" && value !== null) continue;
          const said = String(value);
          if (said.length >= 3 && text.includes(said)) {
            this.#args.delete(param);
            this.#rejected.add(said);
            dropped.push(param);
            if (this.#intent?.idEntities.has(param)) this.#unknownIds.add(param);
          }
        }
        this.#learnFrom(text, false);
        const intent = this.#intent;
        // "No, the plan should be business": a choice named with its detail is put right.
        for (const [param, schema] of Object.entries(intent ? propertiesOf(intent) : {})) {
          if (!intent || !Array.isArray(schema?.enum) || !namesDetail(text, param)) continue;
          const read = readValue(this.#model, intent, param, text, true);
          if (read && fits(schema, read.value)) this.#args.set(param, read.value);
        }
        // "…isn't mine. It's ACC-2": the other value answers for the detail just turned down.
        for (const param of dropped) {
          if (!intent || this.#args.has(param)) continue;
          const read = readValue(this.#model, intent, param, text, true);
          if (
            read &&
            fits(propertiesOf(intent)[param], read.value) &&
            !this.#rejected.has(String(read.value))
          ) {
            this.#args.set(param, read.value);
            this.#unknownIds.delete(param);
          }
        }
        // Told no twice, the agent does not ask a third time: it does nothing and says so.
        if (this.#refusals >= 2) {
          this.#pending = { kind: "reported" };
          return this.#say(
            "Understood, I won't make that change. Is there anything else I can help you with?",
          );
        }
      }
      return null;
    }
    if (pending?.kind === "choose") {
      const picked =
        pending.ids.find((id) => text.includes(id)) ??
        (SECOND.test(text) ? pending.ids[1] : undefined) ??
        (THIRD.test(text) ? pending.ids[2] : undefined) ??
        (FIRST.test(text) ? pending.ids[0] : undefined);
      if (picked) this.#take(pending.param, picked);
      return null;
    }
    let unclaimed = text;
    if (pending?.kind === "ask") {
      const alone = pending.params.length === 1;
      let answered = false;
      for (const param of pending.params) {
        const read = readValue(this.#model, pending.tool, param, text, alone);
        if (read && fits(propertiesOf(pending.tool)[param], read.value)) {
          this.#args.set(param, read.value);
          answered = true;
          // A value given for what was asked is not also another detail (a birth date no reading date).
          for (const said of [read.value].flat())
            if ((typeof said === "string" || typeof said === "number") && String(said).length >= 3)
              unclaimed = replaceStandalone(unclaimed, String(said), " ");
        }
      }
      // No answer, and the request said again in other words: the agent had it wrong.
      const other = answered ? null : this.#otherIntent(text);
      if (other && pending.tool === this.#intent) {
        this.#intent = other;
        this.#completed = this.#done.has(other);
        this.#confirmed = false;
        this.#pending = null;
        this.#learnFrom(text, false);
        return null;
      }
      const lacks = /\b(don'?t|do not) (have|know|remember)\b|not sure which|\beither\b/i.test(
        text,
      );
      for (const p of pending.params) {
        const entity = pending.tool.idEntities.get(p);
        if (entity === undefined || this.#args.has(p)) continue;
        // The record described where its id was asked ("It's my workspace (Harbor workspace)
        // from 2026-05-15") is one they have no id for.
        const words = regexLiteral(entity.replace(/_/g, " "));
        const described = new RegExp(`\\bmy ${words} \\(`, "i").test(text);
        if (lacks || described) this.#unknownIds.add(p);
      }
      // The answer to one question is that detail: a date of birth is not also a reading date.
      if (answered && alone) return null;
    }
    this.#learnFrom(unclaimed, false);
    return null;
  }

  /** A tool the message asks for more than the one the agent is working on, by `margin` at least (clearly, by default), if any. */
  #otherIntent(text: string, margin = 2): ToolModel | null {
    // What a record is ("my line (Quartz line, port pending)") is no request for a port's status.
    const scores = intentScores(this.#model, text.replace(/\([^)]*\)/g, " "));
    const best = scores[0];
    if (!best || best.tool === this.#intent) return null;
    const current = scores.find((s) => s.tool === this.#intent);
    const lead = best.score - (current?.score ?? 0);
    // "Check my invoice from my reservation": the thing acted on is named, the record it is of too.
    return lead >= margin || (lead > 0 && best.object && !current?.object) ? best.tool : null;
  }

  /**
   * Every value a message gives for the arguments of the tools the agent may call next. A value
   * already known stays, unless the person corrects it ("No, that isn't mine, it's …") or makes a
   * new request naming its record (`anew`): an id of one shape may be another record's (a flight
   * number read as a booking code).
   */
  #learnFrom(text: string, asked: boolean, anew = false): void {
    const correcting =
      anew ||
      /\b(isn'?t (mine|right|it)|not mine|wrong|mixed (it )?up|actually|sorry,? it'?s)\b/i.test(
        text,
      );
    for (const tool of this.#plannedTools()) {
      for (const param of Object.keys(propertiesOf(tool))) {
        if (this.#args.has(param) && !(correcting && tool.idEntities.has(param))) continue;
        const read = readValue(this.#model, tool, param, text, asked);
        if (read && fits(propertiesOf(tool)[param], read.value)) this.#args.set(param, read.value);
      }
    }
  }

  /** The tools the request may need: the goal's, the lookups that find the person, the reader of its record. */
  #plannedTools(): ToolModel[] {
    const intent = this.#intent;
    return [
      ...(intent ? [intent] : []),
      ...this.#lookups(),
      ...(intent ? [this.#reader(intent)].filter((t): t is ToolModel => t !== undefined) : []),
    ];
  }

  /** The next move: find who the person is, read before changing, gather what is missing, confirm, then call; or wrap up. */
  #next(conversation: readonly ChatMessage[]): AgentTurn {
    const tool = this.#intent;
    if (this.#pending?.kind === "reported") {
      const last = conversation.at(-1);
      // The person's ask, read through their slips ("Try aagin").
      const heard = last?.role === "user" ? mendAsks(last.content) : null;
      if (heard !== null && DOUBT.test(heard)) return this.#recheck();
      if (heard !== null && TRY_AGAIN.test(heard) && this.#unsureWrite) return this.#notTwice();
      // "Try again" after a refusal the world will repeat (a closed ticket) is answered, not retried.
      if (
        heard !== null &&
        TRY_AGAIN.test(heard) &&
        this.#lastError &&
        !RETRYABLE.has(this.#lastError)
      )
        return this.#restated(tool ?? (this.#intent as ToolModel), conversation);
      // Every lookup already found no one with the details given: asking for them again finds no one again.
      if (
        heard !== null &&
        TRY_AGAIN.test(heard) &&
        this.#identified === "no" &&
        this.#lookups().every((l) => this.#lookupsTried.has(l.tool.name))
      )
        return this.#say(
          "I've searched with every detail you gave me and found no account, so there's nothing more I can do on this here.",
          "I've already looked with all the details you gave and there's no account that matches, so there's nothing more I can do on this here.",
        );
      if (heard !== null && TRY_AGAIN.test(heard) && this.#retries < 1) {
        // "Please try again": the agent starts over once, asking afresh for what it could not find.
        this.#retries++;
        this.#pending = null;
        this.#lookupsTried.clear();
        this.#identified = null;
        // The record found afresh may be another: whoever holds it is checked again.
        this.#verified = null;
        this.#verifyTried.clear();
        this.#confirmed = false;
        for (const tool of this.#lookups())
          for (const p of Object.keys(propertiesOf(tool))) this.#args.delete(p);
        return this.#next(conversation);
      }
      if (last?.role === "user" && heard !== null && DISPUTE.test(heard))
        return this.#explain(last.content, conversation);
      if (last?.role === "user" && tool && intentOf(this.#model, last.content) === tool)
        return this.#restated(tool, conversation);
      return this.#say(
        "Is there anything else I can help you with?",
        "Can I help with anything else today?",
        "Anything else I can do for you?",
        "Is there something else you need?",
      );
    }
    if (!tool) {
      this.#intentAsks++;
      this.#pending = { kind: "intent" };
      if (this.#intentAsks > 2) {
        const handoff = this.#handoffTool();
        if (handoff) {
          this.#intent = handoff;
          return this.#handOffTo(handoff, conversation);
        }
        this.#pending = { kind: "reported" };
        return this.#say(
          "I'm sorry, I can't help with that here. Is there anything else I can do?",
        );
      }
      return this.#say(
        "Sorry, I'm not sure what you need. Could you tell me what you'd like me to do?",
        "Could you tell me a bit more about what you need done?",
        "I want to make sure I get this right: what would you like me to help with?",
      );
    }
    const slip = this.#plannedSlip(tool);
    if (slip === "early_handoff" && this.#turns === 1) {
      this.#slip = null;
      return this.#handOff(tool, conversation);
    }
    if (tool.kind === "handoff") return this.#handOffTo(tool, conversation);
    if (this.#done.has(tool)) {
      this.#pending = { kind: "reported" };
      return this.#restated(tool, conversation);
    }

    // Who the person is, first, when the policy asks it or the request needs their id.
    const lookup = this.#lookupNeeded(tool);
    if (lookup) return lookup;
    // …though someone new (registering a move in) has nothing to be found by, and what is for
    // anyone is listed for someone not found.
    if (
      this.#identified === "no" &&
      this.#agent.policy.identity.required &&
      !registers(tool) &&
      !this.#forAnyone(tool)
    ) {
      this.#pending = { kind: "reported" };
      return this.#say(
        "I'm sorry, I can't go ahead without finding your account first. Is there anything else I can help with?",
      );
    }

    // A change reads its record first: to know its state and the ids it holds.
    const reader = this.#reader(tool);
    const target = tool.idParam ? this.#args.get(tool.idParam) : undefined;
    if (
      reader &&
      tool.kind === "change" &&
      target !== undefined &&
      !this.#read.has(String(target)) &&
      this.#missing(reader).length === 0
    ) {
      // A list just read with the same arguments showed the record (the one the person picked
      // from it), as did the lists made under each of their records to find it (a line among
      // their accounts'): what it showed of its state is known, and is not read again.
      if (
        (reader.kind === "read_many" &&
          this.#made.has(this.#callKey(reader)) &&
          this.#seen.get(tool.entity)?.has(String(target))) ||
        (this.#byOwner?.ownerOf.has(String(target)) &&
          this.#statusSeen.has(`${tool.entity} ${String(target)}`))
      )
        return this.#afterRead(reader, null, null, conversation);
      return this.#call(reader, "read");
    }

    this.#fillFromSeen(tool);
    const missing = this.#missing(tool);
    const missingIds = missing.filter((p) => tool.idEntities.has(p));
    if (missingIds.length > 0 && slip === "invented_identifier") {
      // The slip is the made-up id alone: the details it cannot make up are asked for first.
      const details = missing.filter((p) => !tool.idEntities.has(p));
      if (details.length > 0) return this.#ask(tool, details);
      this.#slip = null;
      for (const p of missingIds) this.#args.set(p, this.#invent(tool, p));
      return this.#call(tool, "goal", {
        kind: "invented_identifier",
        detail: `made up ${missingIds.map((p) => `${p}=${this.#args.get(p)}`).join(", ")}`,
      });
    }
    const again = [...this.#args].find(([p, v]) => this.#notFound.get(p)?.has(String(v)));
    if (again) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, I still can't find anything with ${spokenName(again[0])} ${String(again[1])}, so I can't go further with it. Is there anything else I can help with?`,
      );
    }
    const listing = this.#listingFor(tool, missingIds, conversation);
    if (listing) return listing;
    if (missing.length > 0) return this.#ask(tool, missing);
    const narrowing = this.#narrowing(tool);
    if (narrowing) return this.#ask(tool, [narrowing]);

    // A yes is for the change read back: new values (a corrected id) need a new yes.
    if (this.#confirmed && this.#confirmedArgs !== this.#argsKey()) this.#confirmed = false;
    if (needsConfirmation(this.#agent, tool) && !this.#confirmed) {
      if (slip === "skipped_confirmation") {
        this.#slip = null;
        return this.#call(tool, "goal", {
          kind: "skipped_confirmation",
          detail: `called ${tool.tool.name} without the person's yes`,
        });
      }
      this.#pending = { kind: "confirm" };
      const details = this.#describe(tool);
      return this.#say(
        `To confirm, I'll ${details}. Shall I go ahead?`,
        `Just to check before I do it: ${details}. Would you like me to proceed? (yes/no)`,
        `Here's what I'm about to do: ${details}. Is that right, shall I go ahead?`,
      );
    }
    // Right after a failed answer a "done" would claim success after the error, another slip:
    // this one waits for a turn that does not follow a failure.
    const last = conversation.at(-1);
    const afterFailure = last?.role === "tool" && failedAnswer(last.content);
    if (
      slip === "claimed_unperformed_action" &&
      !afterFailure &&
      tool.kind !== "read_one" &&
      tool.kind !== "read_many"
    ) {
      this.#slip = null;
      this.#pending = { kind: "reported" };
      // Having said it is done, the agent goes on as if it were: the slip stays a slip.
      this.#completed = true;
      this.#done.add(tool);
      this.#lastReport = `it's done: ${this.#describe(tool)}`;
      return {
        message: {
          role: "assistant",
          content: `Done! I've taken care of it: ${this.#describe(tool)}. Is there anything else I can help you with?`,
        },
        slip: {
          kind: "claimed_unperformed_action",
          detail: `said ${tool.tool.name} was done without calling it`,
        },
      };
    }
    return this.#call(tool, "goal");
  }

  /** What is for anyone (the plans on sale, the stores near them): it needs nobody found first. */
  #forAnyone(tool: ToolModel): boolean {
    return (
      (tool.kind === "read_one" || tool.kind === "read_many") &&
      this.#model.entities.get(tool.entity)?.catalog === true &&
      lookupParams(tool).every((p) => !tool.idEntities.has(p))
    );
  }

  /** The lookup to make before anything else, or the question that makes it possible; null when none is needed. */
  #lookupNeeded(tool: ToolModel): AgentTurn | null {
    if (registers(tool)) return null;
    if (this.#identified === "yes") return this.#verification(tool);
    if (this.#identified !== null) return null;
    // Finding the person is what they asked for ("find my customer by phone", "…by membership
    // number"): that call is the lookup, not another one before it.
    const lookups = this.#lookups();
    const findsPerson =
      (tool.kind === "read_one" || tool.kind === "read_many") &&
      tool.entity === this.#model.person.name &&
      lookupParams(tool).every((p) => !tool.idEntities.has(p));
    if (lookups.includes(tool) || findsPerson || this.#forAnyone(tool)) return null;
    if (lookups.length === 0) {
      this.#identified = "yes";
      return this.#verification(tool);
    }
    const personId = this.#model.person.idField;
    const needsPerson = Object.keys(propertiesOf(tool)).some(
      (p) => snake(p) === personId && !this.#args.has(p),
    );
    if (!this.#agent.policy.identity.required && !needsPerson) return null;
    // The person's own details may already make one possible (an email in the opening).
    const isReady = (l: ToolModel) =>
      !this.#lookupsTried.has(l.tool.name) && this.#lookupMissing(l).length === 0;
    let ready = lookups.find(isReady);
    // Details that found no one before would find no one again: that lookup is not made twice.
    let again = false;
    while (ready && this.#foundNoOne.has(this.#callKey(ready))) {
      this.#lookupsTried.add(ready.tool.name);
      again = true;
      ready = lookups.find(isReady);
    }
    if (ready) return this.#call(ready, "lookup");
    const next = lookups.find((l) => !this.#lookupsTried.has(l.tool.name));
    if (!next) {
      this.#identified = "no";
      this.#pending = { kind: "reported" };
      return this.#say(
        again
          ? "I've looked again with those details and still can't find your account, so I can't make changes to it from here. Is there anything else I can help with?"
          : "I'm sorry, I couldn't find your account with the details you gave, so I can't make changes to it from here. Is there anything else I can help with?",
      );
    }
    return this.#ask(next, this.#lookupMissing(next));
  }

  /**
   * When the policy asks who the person is and a tool checks their details (a PIN, a date of
   * birth), the check comes after the lookup: the details are asked for, then checked; a check
   * that fails twice ends the request.
   */
  #verification(tool: ToolModel): AgentTurn | null {
    if (this.#verified !== null || !this.#agent.policy.identity.required) return null;
    // Sending the code a check takes is where checking who the person is starts.
    if (tool.sends) return null;
    // A check the agent can make: its record known, and nothing else it needs but the details to
    // check and, before a write, the person's own id (`check_verification_code(user_id)`), which
    // they are asked for.
    const person = this.#model.person.name;
    const writes = tool.kind === "change" || tool.kind === "create";
    const ownId = (t: ToolModel, p: string) =>
      writes &&
      t.idEntities.get(p) === person &&
      !t.refs.some((r) => r.param === p && r.by === "email");
    const verifier = [...this.#model.tools.values()].find(
      (t) =>
        t.verifies.length > 0 &&
        t !== tool &&
        t.idParam !== null &&
        this.#args.has(t.idParam) &&
        (t.tool.parameters.required ?? []).every(
          (p) => t.verifies.includes(p) || this.#argsFor(t)[p] !== undefined || ownId(t, p),
        ),
    );
    if (!verifier) return null;
    const unknownId = (verifier.tool.parameters.required ?? []).filter(
      (p) => !verifier.verifies.includes(p) && this.#argsFor(verifier)[p] === undefined,
    );
    if (unknownId.length > 0) {
      if (unknownId.some((p) => (this.#asked.get(p) ?? 0) < MAX_ASKS))
        return this.#ask(verifier, unknownId, true);
      this.#verified = false;
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, without your ${spokenName(unknownId[0] as string)} I can't confirm it's your account, so I can't make changes to it. Is there anything else I can help with?`,
      );
    }
    // The same details checked again would fail again: that is a mismatch, not a new try.
    const tried = JSON.stringify(this.#argsFor(verifier));
    if (this.#verifyTried.has(tried) && verifier.verifies.every((p) => this.#args.has(p))) {
      this.#verified = false;
      this.#pending = { kind: "reported" };
      return this.#say(
        "I'm sorry, those details still don't match what we have, so I can't make changes to this account. Is there anything else I can help with?",
      );
    }
    const needed = verifier.verifies.filter((p) => !this.#args.has(p));
    // A one-time code is sent before it is asked for.
    const sender = verifier.sentBy ? this.#model.tools.get(verifier.sentBy) : undefined;
    if (sender && needed.length > 0 && !this.#codeSent) {
      // The same send that failed would fail again: with no code, nothing can be checked.
      if (this.#made.has(this.#callKey(sender))) {
        this.#verified = false;
        this.#pending = { kind: "reported" };
        return this.#say(
          `I'm sorry, I couldn't send you a ${objectWords(sender)}, so I can't confirm it's your account. Is there anything else I can help with?`,
        );
      }
      if (
        (sender.tool.parameters.required ?? []).every((p) => this.#argsFor(sender)[p] !== undefined)
      )
        return this.#call(sender, "send");
    }
    const required = new Set(verifier.tool.parameters.required ?? []);
    const ask = needed.filter((p) => required.has(p) || needed.length <= 3).slice(0, 3);
    if (ask.length > 0 && ask.some((p) => (this.#asked.get(p) ?? 0) < MAX_ASKS))
      return this.#ask(verifier, ask, true);
    // A check without a detail it requires would be refused: the person could not give it.
    const lacking = needed.find((p) => required.has(p));
    if (lacking) {
      this.#verified = false;
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, without the ${spokenName(lacking)} I can't confirm it's your account, so I can't make changes to it. Is there anything else I can help with?`,
      );
    }
    this.#verifyTried.add(tried);
    return this.#call(verifier, "verify");
  }

  /** Reads tools that find the person (or their account) by their own details: an email, a phone, a name and zip. */
  #lookups(): ToolModel[] {
    const person = this.#model.person;
    const found = [...this.#model.tools.values()].filter((t) => {
      if (t.kind !== "read_many" && t.kind !== "read_one") return false;
      if (t.idByEmail) return true;
      if (t.kind === "read_one") return false;
      const params = lookupParams(t);
      const byDetails =
        params.length > 0 &&
        params.every(
          (p) => identityKey(snake(p)) !== null || t.refs.some((r) => r.param === p && !r.many),
        ) &&
        // A zip or a city alone finds places (the stores near them), never a person.
        params.some((p) => {
          const key = identityKey(snake(p));
          return (
            (key !== null && !PLACE_DETAILS.has(key)) ||
            t.refs.some((r) => r.param === p && r.by === "email")
          );
        });
      return (
        byDetails && (t.entity === person.name || !this.#model.entities.get(t.entity)?.catalog)
      );
    });
    const rank = (t: ToolModel) => {
      const keys = lookupParams(t).map((p) => identityKey(snake(p)) ?? "email");
      return Math.min(...keys.map((k) => LOOKUP_ORDER.indexOf(k) + 1 || 9)) * 10 + keys.length;
    };
    return found.sort((a, b) => rank(a) - rank(b));
  }

  /** What a lookup still needs: its required details, or, when all are optional, a record's id the person gave or else their details. */
  #lookupMissing(tool: ToolModel): string[] {
    const required = tool.tool.parameters.required ?? [];
    if (required.length > 0) return this.#missing(tool);
    const refs = tool.refs.filter((r) => r.by === "id" && !r.many).map((r) => r.param);
    if (refs.some((p) => this.#args.has(p))) return [];
    return lookupParams(tool).filter(
      (p) => !refs.includes(p) && !this.#args.has(p) && identityKey(snake(p)) !== "zip",
    );
  }

  /** Reads a tool answer: learns the ids it shows, retries what is worth retrying, and says what happened. */
  #afterTool(content: string, conversation: readonly ChatMessage[]): AgentTurn {
    const pending = this.#pending;
    const call = pending?.kind === "call" ? pending : null;
    const tool = call?.tool ?? (this.#intent as ToolModel);
    const parsed = parsedJson(content);
    const body =
      parsed !== null && typeof parsed === "object" ? (parsed as Record<string, unknown>) : null;
    const error = errorIn(body);
    const unreadable = body === null || (Array.isArray(body.warnings) && body.warnings.length > 0);
    const reads = tool.kind === "read_one" || tool.kind === "read_many";
    const { collection, name } = this.#model.entities.get(tool.entity) as EntityModel;
    const records = { one: name, many: collection };
    // A read is safe to ask again; a write whose answer came back spoiled has happened, so it is not repeated.
    if ((error && RETRYABLE.has(error)) || (unreadable && reads)) {
      if (this.#attempts < 2 && call)
        return this.#call(tool, call.purpose, undefined, call.listingFor);
    } else if (reads && call) {
      const key = this.#callKey(tool);
      this.#readsAnswered.set(key, (this.#readsAnswered.get(key) ?? 0) + 1);
    } else if (tool.kind === "change" || tool.kind === "create") this.#readsAnswered.clear();
    if (body && !error) {
      this.#learnIds(body, tool);
      // An id a call took and the world did not refuse is a real one, whatever the answer shows.
      for (const [param, entity] of tool.idEntities) {
        const value = this.#args.get(param);
        if (value !== undefined) this.#saw(entity, String(value));
      }
    }
    if (call?.purpose === "lookup") return this.#afterLookup(tool, body, error, conversation);
    if (call?.purpose === "verify") return this.#afterVerify(tool, body, conversation);
    if (call?.purpose === "send" && !error) {
      // Sent: the person is asked for what they received.
      this.#codeSent = true;
      this.#pending = null;
      const next = this.#next(conversation);
      if (typeof next.message.content === "string" && !next.message.tool_calls)
        next.message.content = `I've sent you a ${objectWords(tool)}. ${next.message.content}`;
      return next;
    }
    if (call?.purpose === "read") return this.#afterRead(tool, body, error, conversation);
    if (call?.purpose === "list" && call.listingFor && body && !error) {
      const pooled = this.#pooled(call.tool, call.listingFor, body, conversation);
      if (pooled === "next") return this.#call(call.tool, "list", undefined, call.listingFor);
      return this.#choose(call.listingFor, pooled ?? body, conversation);
    }
    if (error && this.#slip === "claimed_success_after_error") {
      this.#slip = null;
      this.#pending = { kind: "reported" };
      return {
        message: {
          role: "assistant",
          content: "All done: I've completed it. Is there anything else I can help you with?",
        },
        slip: {
          kind: "claimed_success_after_error",
          detail: `reported success after ${tool.tool.name} answered ${error}`,
        },
      };
    }
    if (error) return this.#notFoundAsk(tool, body, error) ?? this.#refused(body, error);
    this.#pending = { kind: "reported" };
    if (body === null) {
      if (!reads) this.#unsureWrite = true;
      return this.#say(
        `I'm sorry, the system sent back an answer I can't read, so I can't tell you yet whether that ${reads ? "lookup" : "request"} worked. Please check again shortly. Is there anything else I can help you with?`,
      );
    }
    if (tool.kind === "handoff")
      return this.#say(
        "I've passed your conversation to a colleague, who will pick it up from here.",
      );
    if (unreadable)
      return this.#say(
        `${reads ? "Here's what I could get" : "Done"}, though part of the answer didn't load: ${summary(body, records, this.#sayCode)}. Is there anything else I can help you with?`,
      );
    if (call?.purpose === "goal" && tool === this.#intent) {
      this.#completed = true;
      this.#done.add(tool);
    }
    // A write's report names what the call set, as the answer shows it, not the record's first
    // fields; so does a read made to check a write (the person asked whether it went through).
    const intent = this.#intent;
    const checksWrite =
      reads &&
      intent !== null &&
      intent !== tool &&
      (intent.kind === "change" || intent.kind === "create");
    const written = reads
      ? checksWrite
        ? this.#setFields(intent)
        : undefined
      : this.#setFields(tool);
    // A list read to check a write is told by the record written, not by its count.
    const checked = checksWrite && tool.kind === "read_many" ? this.#writtenAmong(body) : null;
    const told = summary(checked ?? body, records, this.#sayCode, written);
    const subject = checked ? spokenWords(tool.entity) : reads ? readSubject(tool) : null;
    const intro = reads
      ? `Here's what I found${subject ? ` on the ${subject}` : ""}`
      : `Done, I've ${pastOf(tool)}`;
    const unseen =
      checksWrite && written ? this.#checkNote(tool, checked ?? body, checked, written) : "";
    this.#lastReport = reads ? `the record shows ${told}` : `it's done: ${told}`;
    return this.#say(
      `${intro}: ${told}.${unseen} Is there anything else I can help you with?`,
      `${intro}: ${told}.${unseen} Can I help with anything else?`,
    );
  }

  /**
   * What a read made to check the write in hand adds to its report. A list without the record
   * written says it is gone, after a removal. A record that cannot show what the write set (an
   * account read after a meter reading) is no sign the write failed: what the write's own answer
   * said is told with it.
   */
  #checkNote(
    reader: ToolModel,
    shown: Record<string, unknown>,
    found: Record<string, unknown> | null,
    written: ReadonlySet<string>,
  ): string {
    const intent = this.#intent as ToolModel;
    const made = this.#lastReport.startsWith("it's done: ")
      ? this.#lastReport.slice("it's done: ".length)
      : null;
    const id = intent.idParam ? this.#args.get(intent.idParam) : undefined;
    if (reader.kind === "read_many" && found === null && id !== undefined) {
      const record = `${spokenWords(intent.entity)} ${String(id)}`;
      if (DELETE_VERBS.has(intent.verb)) return ` The ${record} is no longer listed.`;
      return ` The ${record} isn't among them${made ? `, but I've ${pastOf(intent)}, and the system confirmed it: ${made}` : ""}.`;
    }
    // A record the write only names (the workspace of the user whose MFA it reset) is not what it set.
    const set = new Set(
      [...written].filter((f) => !intent.refs.some((r) => r.param === f && onlyNames(intent, r))),
    );
    const shows =
      writtenIn(shown, set).length > 0 ||
      (intent.statusAfter !== null && String(shown.status ?? "").startsWith(intent.statusAfter));
    if (shows || !made) return "";
    return ` It doesn't show the ${this.#setNames(intent)}, but I've ${pastOf(intent)}, and the system confirmed it: ${made}.`;
  }

  /** The record of a list the write in hand acted on, found by its id, or null. */
  #writtenAmong(body: Record<string, unknown>): Record<string, unknown> | null {
    const intent = this.#intent;
    const param = intent?.idParam;
    const id = param ? this.#args.get(param) : undefined;
    if (!intent || !param || id === undefined) return null;
    const idField = (this.#model.entities.get(intent.entity) as EntityModel).idField;
    for (const value of Object.values(body)) {
      if (!Array.isArray(value)) continue;
      for (const item of value)
        if (
          item !== null &&
          typeof item === "object" &&
          ((item as Record<string, unknown>)[idField] === id ||
            (item as Record<string, unknown>)[param] === id)
        )
          return item as Record<string, unknown>;
    }
    return null;
  }

  /**
   * The fields a write's arguments set on its record, by the names its answer shows them under:
   * the details and the records it points to (the tariff switched to), not whose record it is.
   */
  #setFields(tool: ToolModel): Set<string> {
    const fields = new Set<string>();
    const person = this.#model.person.name;
    for (const param of Object.keys(this.#argsFor(tool))) {
      if (param === tool.idParam || tool.idEntities.get(param) === person) continue;
      if (tool.composes?.parts.includes(param)) continue;
      fields
        .add(param)
        .add(snake(param))
        .add(tool.sets.get(param) ?? snake(param));
      // The record a change points to is shown under its kind's name (`tariff_code` → `tariff`).
      const ref = tool.refs.find((r) => r.param === param);
      if (ref) fields.add(ref.entity);
    }
    if (tool.composes) fields.add(tool.composes.field);
    if (tool.toggles) fields.add(tool.toggles.field);
    return fields;
  }

  /** The details a write set, as a person hears them: "meter serial, reading and reading date". */
  #setNames(tool: ToolModel): string {
    const person = this.#model.person.name;
    const names = Object.keys(this.#argsFor(tool))
      .filter((p) => p !== tool.idParam && tool.idEntities.get(p) !== person)
      .filter((p) => !tool.refs.some((r) => r.param === p && onlyNames(tool, r)))
      .map(spokenName);
    // A write of nothing but its record (`send_invoice(reservation_id)`) is named for what it made.
    if (names.length === 0) return `${nameParts(tool).rest.join(" ") || "change"} itself`;
    if (names.length === 1) return names[0] as string;
    return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
  }

  /** A record not found by an id the person gave: the id is asked about again, while asks remain. */
  #notFoundAsk(
    tool: ToolModel,
    body: Record<string, unknown> | null,
    error: string,
  ): AgentTurn | null {
    if (error !== "not_found") return null;
    const looked = Object.keys((body?.looked_up as Record<string, unknown>) ?? {})[0];
    if (!looked || !this.#args.has(looked) || (this.#asked.get(looked) ?? 0) >= MAX_ASKS)
      return null;
    this.#lastError = error;
    const value = this.#args.get(looked);
    this.#args.delete(looked);
    this.#notFound.set(looked, (this.#notFound.get(looked) ?? new Set()).add(String(value)));
    this.#asked.set(looked, (this.#asked.get(looked) ?? 0) + 1);
    this.#pending = { kind: "ask", tool, params: [looked] };
    return this.#say(
      `I couldn't find anything with ${spokenName(looked)} ${String(value)}. Could you double-check the ${spokenName(looked)}?`,
    );
  }

  /** The world said no: say so as it said it, and that nothing was done. */
  #refused(body: Record<string, unknown> | null, error: string): AgentTurn {
    this.#lastError = error;
    this.#pending = { kind: "reported" };
    if (error === "permission_denied")
      return this.#say(
        "I'm sorry, I don't have permission to do that from here. Is there anything else I can help you with?",
      );
    this.#lastReport = `the system answered: ${this.#relayed(String(body?.message ?? error))}`;
    return this.#say(
      `I'm sorry, I couldn't do that: ${this.#relayed(String(body?.message ?? error))}. Is there anything else I can help you with?`,
    );
  }

  /** After a lookup of the person: their id when it found exactly one; else another way to find them. */
  #afterLookup(
    tool: ToolModel,
    body: Record<string, unknown> | null,
    error: string | null,
    conversation: readonly ChatMessage[],
  ): AgentTurn {
    this.#lookupsTried.add(tool.tool.name);
    const records = body ? recordsOf(body) : [];
    if (!error && records.length >= 1) {
      this.#identified = "yes";
      this.#pending = null;
      const entity = this.#model.entities.get(tool.entity) as EntityModel;
      if (records.length === 1) {
        const id = records[0]?.[entity.idField];
        if (id !== undefined) this.#setFor(entity, String(id));
      }
      // Several records found by the person's details: the one meant is chosen from them, not asked for.
      const intent = this.#intent;
      const param = intent
        ? [...intent.idEntities].find(
            ([p, name]) => name === entity.name && !entity.isPerson && !this.#args.has(p),
          )?.[0]
        : undefined;
      if (records.length > 1 && param && body) return this.#choose(param, body, conversation);
      return this.#next(conversation);
    }
    if (!error || error === "not_found") this.#foundNoOne.add(this.#callKey(tool));
    for (const param of Object.keys(propertiesOf(tool))) this.#args.delete(param);
    this.#pending = null;
    return this.#lookupNeeded(this.#intent as ToolModel) ?? this.#next(conversation);
  }

  /** A call by its tool and arguments: what it would carry now, unless given. */
  #callKey(tool: ToolModel, args: Record<string, unknown> = this.#argsFor(tool)): string {
    return `${tool.tool.name} ${JSON.stringify(args)}`;
  }

  /** After a check of the person's details: go on when it passed; ask again once; else say it cannot go on. */
  #afterVerify(
    tool: ToolModel,
    body: Record<string, unknown> | null,
    conversation: readonly ChatMessage[],
  ): AgentTurn {
    this.#pending = null;
    const error = errorIn(body);
    // Details the check refused (one missing, one of the wrong form) are asked for again, as a
    // mismatch is; a check that could not run for the world's own reasons (a fault) says nothing
    // about the person, and the request goes on.
    const refused = error === "invalid_arguments" || error === "placeholder_argument";
    // No record with that id: nothing was checked, and the id is asked about as any lookup's would be.
    if (error === "not_found")
      return this.#notFoundAsk(this.#intent ?? tool, body, error) ?? this.#refused(body, error);
    if (!refused && (body?.verified === true || error !== null || body === null)) {
      this.#verified = true;
      return this.#next(conversation);
    }
    const named = refused
      ? tool.verifies.filter((p) => JSON.stringify(body).includes(`"${p}`))
      : [];
    const failed = refused
      ? named.length > 0
        ? named
        : tool.verifies
      : Array.isArray(body?.did_not_match)
        ? (body?.did_not_match as string[])
        : tool.verifies;
    if (failed.every((p) => (this.#asked.get(p) ?? 0) < MAX_ASKS)) {
      for (const p of failed) this.#args.delete(p);
      this.#pending = { kind: "ask", tool, params: failed };
      for (const p of failed) this.#asked.set(p, (this.#asked.get(p) ?? 0) + 1);
      return this.#say(
        refused
          ? `I couldn't check that as given. Could you send me your ${failed.map(spokenName).join(" and ")} again?`
          : `That didn't match what we have on file. Could you check your ${failed.map(spokenName).join(" and ")} and send it again?`,
      );
    }
    this.#verified = false;
    this.#pending = { kind: "reported" };
    return this.#say(
      "I'm sorry, I couldn't verify those details, so I can't make changes to this account. Is there anything else I can help with?",
    );
  }

  /** After reading the record a change acts on: go on, or say why its state does not allow the change. */
  #afterRead(
    reader: ToolModel,
    body: Record<string, unknown> | null,
    error: string | null,
    conversation: readonly ChatMessage[],
  ): AgentTurn {
    const tool = this.#intent as ToolModel;
    const target = tool.idParam ? this.#args.get(tool.idParam) : undefined;
    if (target !== undefined) this.#read.add(String(target));
    if (error === "not_found" || (error && !RETRYABLE.has(error))) {
      this.#pending = { kind: "call", tool, purpose: "goal" };
      return this.#afterTool(JSON.stringify(body ?? { error }), conversation);
    }
    const entity = this.#model.entities.get(tool.entity) as EntityModel;
    // A record read without its status (a schema that leaves it out) is in the one a list showed.
    const status =
      body && typeof body.status === "string"
        ? body.status
        : this.#statusSeen.get(`${entity.name} ${String(target)}`);
    if (status && (!meets(tool.requires, status) || entity.statuses.terminal.includes(status))) {
      if (!tool.requires?.statuses.includes(status)) {
        this.#pending = { kind: "reported" };
        // As the world would refuse it: "try again" is answered, not tried from the start.
        this.#lastError = "invalid_state";
        const wanted = tool.requires?.statuses ?? [];
        return this.#say(
          `I've checked ${tool.another ? "the" : "your"} ${entity.name.replace(/_/g, " ")} ${String(target)}: it is ${status.replace(/_/g, " ")}, so I can't ${verbPhrase(tool)}${wanted.length > 0 ? ` (that's only possible while it is ${wanted.map((w) => w.replace(/_/g, " ")).join(" or ")})` : ""}. Is there anything else I can help you with?`,
        );
      }
    }
    this.#pending = null;
    void reader;
    return this.#next(conversation);
  }

  /**
   * Notes every id an answer shows, by the entity whose id field holds it, and the status a read
   * shows of its own records (not of a customer an order names). A write's answer makes the status
   * known before it stale.
   */
  #learnIds(body: Record<string, unknown>, tool: ToolModel): void {
    const fields = new Map<string, EntityModel>();
    for (const entity of this.#model.entities.values()) fields.set(entity.idField, entity);
    const reads = tool.kind === "read_one" || tool.kind === "read_many";
    const own = this.#model.entities.get(tool.entity);
    if (!reads && own && tool.idParam && this.#args.has(tool.idParam))
      this.#statusSeen.delete(`${own.name} ${String(this.#args.get(tool.idParam))}`);
    const visit = (value: unknown, depth: number) => {
      if (depth > 4 || value === null || typeof value !== "object") return;
      if (Array.isArray(value)) {
        for (const v of value.slice(0, 50)) visit(v, depth + 1);
        return;
      }
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const entity = fields.get(key);
        if (entity && (typeof v === "string" || typeof v === "number")) {
          this.#saw(entity.name, String(v));
          const status = (value as Record<string, unknown>).status;
          if (reads && entity === own && typeof status === "string")
            this.#statusSeen.set(`${entity.name} ${String(v)}`, status);
        }
        visit(v, depth + 1);
      }
    };
    visit(body, 0);
  }

  /** Arguments a tool's answers settled: the one id of an entity seen, the person's own id. */
  #fillFromSeen(tool: ToolModel): void {
    for (const [param, entityName] of tool.idEntities) {
      if (this.#args.has(param) || this.#someoneElse(param)) continue;
      // A list of ids, or a replacement, is the person's to choose.
      if (tool.refs.some((r) => r.param === param && (r.many || r.role === "new"))) continue;
      const seen = this.#seen.get(entityName);
      const entity = this.#model.entities.get(entityName) as EntityModel;
      if (seen?.size === 1 && (entity.isPerson || !entity.catalog)) {
        const [id] = seen as Set<string>;
        if (!this.#rejected.has(id as string))
          this.#args.set(param, entity.idFormat.numeric ? Number(id) : id);
      }
    }
  }

  /** Sets every known argument naming the entity to the id found. */
  #setFor(entity: EntityModel, id: string): void {
    for (const tool of this.#model.tools.values())
      for (const [param, name] of tool.idEntities)
        if (name === entity.name && !this.#args.has(param) && !this.#someoneElse(param))
          this.#args.set(param, entity.idFormat.numeric ? Number(id) : id);
    this.#saw(entity.name, id);
  }

  /** Whether a parameter names the one the request is about when that is not the person (a colleague). */
  #someoneElse(param: string): boolean {
    return this.#intent?.another === true && param === this.#intent.idParam;
  }

  /** Notes an id of an entity as real: a tool showed it or took it. */
  #saw(entity: string, id: string): void {
    const seen = this.#seen.get(entity) ?? new Set();
    seen.add(id);
    this.#seen.set(entity, seen);
  }

  /** After listing the person's records to find the one they mean: the best match on their own words, or ask which. */
  #choose(
    param: string,
    body: Record<string, unknown>,
    conversation: readonly ChatMessage[],
  ): AgentTurn {
    const records = recordsOf(body);
    const tool = this.#intent as ToolModel;
    const entity = this.#model.entities.get(tool.idEntities.get(param) as string) as EntityModel;
    // A choice the person gave for the change itself ("new role owner") says what is to be, not
    // which record it is.
    const choices = propertiesOf(tool);
    const given = new Set(
      [...this.#args]
        .filter(([p]) => p !== param && Array.isArray(choices[p]?.enum))
        .flatMap(([, v]) => tellingWords(String(v))),
    );
    const said = new Set([...saidWords(conversation)].filter((w) => !given.has(w)));
    // Someone the request is about for the person is not the person (their own id, said for another argument).
    const own = this.#someoneElse(param)
      ? new Set(
          [...tool.idEntities]
            .filter(([p, e]) => p !== param && e === entity.name && this.#args.has(p))
            .map(([p]) => String(this.#args.get(p))),
        )
      : new Set<string>();
    const scored = records
      .filter((r) => !this.#rejected.has(String(r[entity.idField])))
      .filter((r) => !own.has(String(r[entity.idField])))
      .map((r) => ({
        r,
        score: wordsSaidOf(r, said).size,
      }));
    const best = Math.max(0, ...scored.map((s) => s.score));
    const candidates = scored.filter((s) => best === 0 || s.score === best).map((s) => s.r);
    this.#unknownIds.delete(param);
    if (candidates.length === 1) {
      this.#take(param, (candidates[0] as Record<string, unknown>)[entity.idField]);
      this.#pending = null;
      return this.#next(conversation);
    }
    if (candidates.length === 0) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I couldn't find any ${entity.collection.replace(/_/g, " ")} on your account. Is there anything else I can help you with?`,
      );
    }
    const ids = candidates.map((r) => String(r[entity.idField]));
    this.#pending = { kind: "choose", param, ids };
    const listed = labelsOf(candidates, entity, this.#sayCode).map(
      (label, i) =>
        `${String((candidates[i] as Record<string, unknown>)[entity.idField])} (${label})`,
    );
    return this.#say(
      `I can see ${candidates.length} ${entity.collection.replace(/_/g, " ")} that could be it: ${listed.join("; ")}. Which one do you mean?`,
    );
  }

  /** The person disputes what was reported: say what the records show for what they mention. */
  #explain(text: string, conversation: readonly ChatMessage[]): AgentTurn {
    const lower = text.toLowerCase();
    const saidIn = (words: string, said: string) =>
      new RegExp(`\\b${regexLiteral(words.toLowerCase())}\\b`).test(said);
    // The ids in hand (not a name or an email every record of the person shares).
    const ids = new Set(
      [...this.#args]
        .filter(([param, value]) => typeof value === "string" && ID_PARAM.test(param))
        .map(([, value]) => value as string),
    );
    // The detail disputed, as the newest answer that has it shows it: the record in hand of a list
    // (the account a lookup found), the answer itself (its count and total are the list's, not a
    // record's), or a record read before the report, for what no write since has shown.
    let shown: string | null = null;
    const changed = new Set<string>();
    for (let i = conversation.length - 1; i >= 0 && shown === null; i--) {
      const m = conversation[i];
      if (m?.role !== "tool") continue;
      const body = parsedJson(m.content);
      const kind = this.#model.tools.get(m.name ?? "")?.kind;
      const wrote = kind === "change" || kind === "create";
      if (body !== null && typeof body === "object" && !Array.isArray(body)) {
        const records: Record<string, unknown>[] = [];
        let lists = false;
        for (const value of Object.values(body)) {
          if (!Array.isArray(value)) continue;
          const listed = value.filter(
            (item): item is Record<string, unknown> =>
              item !== null && typeof item === "object" && !Array.isArray(item),
          );
          if (listed.length > 0) lists = true;
          const inHand = listed.filter(
            (item) =>
              listed.length === 1 ||
              Object.values(item).some((v) => typeof v === "string" && ids.has(v)),
          );
          if (inHand.length === 1) records.push(inHand[0] as Record<string, unknown>);
        }
        // A list's envelope (no id of its own) counts its records: its numbers are no record's.
        const envelope = lists && !Object.keys(body).some((k) => ID_PARAM.test(k));
        const own = Object.fromEntries(
          Object.entries(body).filter(([, v]) => !envelope || typeof v !== "number"),
        );
        records.push(own);
        for (const record of records) {
          const field = Object.keys(record).find(
            (k) => !changed.has(k) && saidIn(spokenWords(k), lower),
          );
          if (field === undefined) continue;
          shown = `${spokenWords(field)} ${spokenAnswer(record[field], field, this.#sayCode)}`;
          break;
        }
        // What a write showed, and the state it leaves, may have changed since the answers before
        // it: those are not read for it.
        if (wrote) {
          for (const [key, value] of Object.entries(body)) {
            changed.add(key);
            if (value !== null && typeof value === "object" && !Array.isArray(value))
              for (const inner of Object.keys(value)) changed.add(inner);
          }
          if (this.#model.tools.get(m.name ?? "")?.statusAfter) changed.add("status");
        }
      }
    }
    // A detail neither shown nor ever told (in a report, not in a question) is not said to be what
    // was told: the agent says it cannot see it.
    const detail = shown === null ? DISPUTED_DETAIL.exec(text)?.[1]?.toLowerCase() : undefined;
    const told =
      detail !== undefined &&
      !this.#unseenDetails.has(detail) &&
      conversation.some(
        (m) =>
          m.role === "assistant" &&
          typeof m.content === "string" &&
          m.content
            .toLowerCase()
            .split(/(?<=[.!?])\s+/)
            .some((sentence) => !sentence.trim().endsWith("?") && saidIn(detail, sentence)),
      );
    if (detail !== undefined && !told) {
      this.#unseenDetails.add(detail);
      return this.#say(
        `I can't see the ${detail} in what the system gave me, so I can't tell you what it shows for it from here. Is there anything else I can help with?`,
        `The system hasn't shown me the ${detail}, so I can't check it against yours from here. Anything else I can do?`,
      );
    }
    shown ??= "what I told you";
    return this.#say(
      `I understand that's not what you have. What our system shows is ${shown}; I can only go by that here. Is there anything else I can help with?`,
      `I can see why that's confusing. The record I have shows ${shown}, and I can't change what it says from here. Anything else I can do?`,
    );
  }

  /** The person asks again for what was reported done or impossible: say so in other words, then pass them on. */
  #restated(tool: ToolModel, conversation: readonly ChatMessage[]): AgentTurn {
    // A read asked again with other details ("…with admin email X") is looked up again with them, once.
    const last = conversation.at(-1);
    const reads = tool.kind === "read_one" || tool.kind === "read_many";
    if (
      reads &&
      last?.role === "user" &&
      this.#restatements === 0 &&
      this.#tookNew(tool, last.content)
    ) {
      this.#restatements++;
      this.#done.delete(tool);
      this.#pending = null;
      return this.#next(conversation);
    }
    this.#restatements++;
    const handoff = this.#handoffTool();
    // A request carried out is not handed on; one the agent could not carry out goes to a person.
    if (this.#restatements >= 2 && handoff && tool !== handoff && !this.#completed) {
      this.#intent = handoff;
      this.#pending = null;
      return this.#handOffTo(handoff, conversation);
    }
    return this.#say(
      `I understand this matters to you. As I said, ${this.#lastReport || "I've done what I can with this request"}. I'm not able to do more on it from here.`,
      `I'm sorry, I know that's not the answer you wanted: ${this.#lastReport || "this is as far as I can take it"}. There's nothing more I can do on it here.`,
    );
  }

  /** Takes the values a message gives for `tool`'s arguments that differ from those it was called with; whether any did. */
  #tookNew(tool: ToolModel, text: string): boolean {
    let took = false;
    const properties = propertiesOf(tool);
    for (const param of Object.keys(properties)) {
      const read = readValue(this.#model, tool, param, text, false);
      if (!read || !fits(properties[param], read.value)) continue;
      if (JSON.stringify(read.value) === JSON.stringify(this.#args.get(param))) continue;
      this.#args.set(param, read.value);
      took = true;
    }
    return took;
  }

  /**
   * The person doubts a report: a read is made again; a write's record is read back when a tool
   * can read it; else the agent repeats what the system answered, claiming nothing new.
   */
  #recheck(): AgentTurn {
    return (
      this.#readAgain() ??
      this.#say(
        `I can only tell you what the system answered: ${this.#lastReport || "nothing more than I said"}. Is there anything else I can help you with?`,
        `The system's answer is all I have to go on: ${this.#lastReport || "as I said"}. Anything else I can do for you?`,
      )
    );
  }

  /**
   * The request read again, once: a read itself, a write by the tool that reads its record; null
   * when neither can be, or when that read was already answered twice with these details (a third
   * would only say the same again).
   */
  #readAgain(): AgentTurn | null {
    const tool = this.#intent as ToolModel;
    const reads = tool.kind === "read_one" || tool.kind === "read_many";
    const fresh = (reader: ToolModel) =>
      this.#missing(reader).length === 0 &&
      (this.#readsAnswered.get(this.#callKey(reader)) ?? 0) < 2;
    if (reads && fresh(tool) && this.#rechecks++ < 1) return this.#call(tool, "goal");
    const reader = this.#reader(tool);
    if (reader && reader !== tool && fresh(reader) && this.#rechecks++ < 1)
      return this.#call(reader, "goal");
    return null;
  }

  /** Asked to try again a write whose answer could not be read: read it back where a read can, never make it twice. */
  #notTwice(): AgentTurn {
    const read = this.#readAgain();
    if (read) return read;
    this.#pending = { kind: "reported" };
    return this.#say(
      "I'd rather not send it again: the system took the request, but its answer didn't come back readable, so it may well have gone through, and sending it again could do it twice. Is there anything else I can help you with?",
    );
  }

  #call(
    tool: ToolModel,
    purpose: "lookup" | "verify" | "read" | "goal" | "list" | "send",
    slip?: AgentTurn["slip"],
    listingFor?: string,
  ): AgentTurn {
    const sameCall = this.#pending?.kind === "call" && this.#pending.tool === tool;
    this.#attempts = sameCall ? this.#attempts + 1 : 1;
    this.#pending = listingFor
      ? { kind: "call", tool, purpose, listingFor }
      : { kind: "call", tool, purpose };
    const args = this.#argsFor(tool);
    this.#made.add(this.#callKey(tool, args));
    const id = `call_${fnv1a(`${this.#rng.key}/call/${++this.#calls}`)
      .toString(16)
      .padStart(8, "0")}`;
    const message: AssistantMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: tool.tool.name, arguments: JSON.stringify(args) },
        },
      ],
    };
    return slip ? { message, slip } : { message };
  }

  /** The arguments a call of `tool` would carry now: what the agent knows, and the notes it writes itself. */
  #argsFor(tool: ToolModel): Record<string, unknown> {
    // Keyed by the spec's parameter names: no prototype, so `__proto__` is an argument like any other.
    const args: Record<string, unknown> = keyed();
    const properties = propertiesOf(tool);
    const own = this.#ownId(tool);
    for (const param of Object.keys(properties)) {
      const value = this.#args.get(own && param === own.param ? own.from : param);
      if (value !== undefined && fits(properties[param], value)) args[param] = value;
    }
    for (const param of tool.tool.parameters.required ?? []) {
      if (args[param] === undefined && agentWrites(tool, param))
        args[param] = `Customer asked to ${this.#describe(this.#intent ?? tool)}.`;
    }
    return args;
  }

  /**
   * The person's own ids a check of who they are will take before the write in hand
   * (`check_verification_code(user_id)`), not known yet: asked with the first question about who
   * they are.
   */
  #ownIdsAhead(): string[] {
    const intent = this.#intent;
    if (
      !intent ||
      (intent.kind !== "change" && intent.kind !== "create") ||
      this.#verified !== null ||
      !this.#agent.policy.identity.required
    )
      return [];
    const person = this.#model.person.name;
    for (const verifier of this.#model.tools.values()) {
      if (verifier.verifies.length === 0 || verifier === intent) continue;
      const args = this.#argsFor(verifier);
      return (verifier.tool.parameters.required ?? []).filter(
        (p) =>
          p !== verifier.idParam &&
          !verifier.verifies.includes(p) &&
          args[p] === undefined &&
          verifier.idEntities.get(p) === person &&
          (this.#asked.get(p) ?? 0) === 0,
      );
    }
    return [];
  }

  /**
   * A check of who the person is, for a request about someone else of their kind (an admin
   * removing a colleague), takes the person's own id from where the request names it
   * (`requested_by_user_id`), never the colleague's: the parameter, and where its value is.
   */
  #ownId(tool: ToolModel): { param: string; from: string } | null {
    const intent = this.#intent;
    if ((tool.verifies.length === 0 && !tool.sends) || !intent?.another) return null;
    const person = this.#model.person.name;
    const from = intent.refs.find((r) => r.entity === person && r.by === "id" && !r.many)?.param;
    const param = [...tool.idEntities].find(([, entity]) => entity === person)?.[0];
    return from && param ? { param, from } : null;
  }

  /**
   * Asks for what is missing: identifiers, emails and the details a lookup takes together, any
   * other detail on its own, so every answer fills one field. A detail asked for twice without an
   * answer is not asked again: the agent says what it cannot do instead.
   */
  #ask(tool: ToolModel, params: string[], together = false): AgentTurn {
    const exhausted = params.find((p) => (this.#asked.get(p) ?? 0) >= MAX_ASKS);
    if (exhausted) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, without the ${spokenName(exhausted)} I can't ${verbPhrase(tool)} from here. Is there anything else I can help you with?`,
      );
    }
    const properties = propertiesOf(tool);
    // Which of the person's records it is comes first, with who they are (it is read before
    // anything else is asked); a choice from a catalog (the tariff to switch to) is asked with
    // the other details, and so is who they are when no record is asked.
    const owned = (entity: string | undefined) =>
      entity !== undefined && !this.#model.entities.get(entity)?.catalog;
    const records = params.filter(
      (p) =>
        p === tool.idParam ||
        owned(tool.idEntities.get(p)) ||
        tool.refs.some((r) => r.param === p && owned(r.entity)),
    );
    const identifying =
      records.length > 0
        ? params.filter((p) => records.includes(p) || identityKey(snake(p)) !== null)
        : [];
    // Simple details (a number, a date, a choice, a short text) come together, up to four; an object on its own.
    const simple = params.filter((p) => {
      const type = properties[p]?.type;
      return type !== "object" && type !== "array";
    });
    // The details a check takes are asked for in one go, as a person expects to be asked them;
    // an object or a list is asked for on its own.
    const first = together
      ? simple.length > 0
        ? simple
        : params.slice(0, 1)
      : identifying.length > 0
        ? identifying
        : simple.length > 1
          ? simple.slice(0, 4)
          : params.slice(0, 1);
    // Who they are is asked with what the check of it will take of theirs (their user id), a
    // question saved in a conversation that is long already.
    const ahead = first.some((p) => tool.idEntities.has(p) || identityKey(snake(p)) !== null)
      ? this.#ownIdsAhead().filter((p) => !first.includes(p))
      : [];
    const asked = [...first, ...ahead];
    this.#pending = { kind: "ask", tool, params: asked };
    const times = Math.max(...asked.map((p) => this.#asked.get(p) ?? 0));
    for (const p of asked) this.#asked.set(p, (this.#asked.get(p) ?? 0) + 1);
    const named = asked.map((p) => {
      if (ahead.includes(p)) return `your ${spokenName(p)}`;
      const key = identityKey(snake(p));
      if (key === "email") return "the email address on your account";
      if (key) return `your ${spokenName(p)}`;
      // Someone else's id (the colleague a request is about) is not the person's own.
      if (tool.idEntities.has(p) && !(tool.another && p === tool.idParam))
        return `your ${spokenName(p)}`;
      return `the ${spokenName(p)}`;
    });
    const list =
      named.length > 1
        ? `${named.slice(0, -1).join(", ")} and ${named.at(-1)}`
        : (named[0] as string);
    // A yes-or-no is asked as one: "the declaration accepted" is not a thing to hand over.
    const [only] = asked;
    if (asked.length === 1 && only && propertiesOf(tool)[only]?.type === "boolean")
      return this.#say(
        `For ${spokenName(only)}, is that a yes or a no?`,
        `Just to check, ${spokenName(only)}: yes or no?`,
      );
    if (times > 0)
      return this.#say(
        `Sorry, could you send me ${list} again? I need it to go on.`,
        `I didn't catch that. Could you type out ${list} for me?`,
      );
    return this.#say(
      `Could you give me ${list}?`,
      `To help with that, I'll need ${list}. Could you share it?`,
      `Sure. What is ${list}?`,
    );
  }

  /**
   * Hands the conversation over through the hand-off tool, with a summary the agent writes and,
   * where it must choose (a team, a queue, a reason), the choice the conversation's words fit best.
   */
  #handOffTo(tool: ToolModel, conversation: readonly ChatMessage[]): AgentTurn {
    this.#chooseEnums(tool, conversation);
    this.#writeForColleague(tool, conversation);
    const missing = this.#missing(tool);
    const listing = this.#listingFor(tool, missing, conversation, true);
    if (listing) return listing;
    if (missing.length > 0 && missing.every((p) => (this.#asked.get(p) ?? 0) < MAX_ASKS))
      return this.#ask(tool, missing);
    if (missing.length > 0) {
      this.#pending = { kind: "reported" };
      return this.#say(
        `I'm sorry, I can't pass this on without your ${missing.map(spokenName).join(" and ")}. Is there anything else I can help with?`,
      );
    }
    // An id only the person's word stands for (no tool has taken or shown it) is read back before
    // a colleague is sent to it: a misread number would send them to someone else's record.
    const unseen = [...tool.idEntities]
      .filter(
        ([param, entity]) =>
          this.#args.has(param) && !this.#seen.get(entity)?.has(String(this.#args.get(param))),
      )
      .map(([param]) => `${spokenName(param)} as ${String(this.#args.get(param))}`);
    if (this.#confirmed && this.#confirmedArgs !== this.#argsKey()) this.#confirmed = false;
    if (unseen.length > 0 && !this.#confirmed) {
      this.#pending = { kind: "confirm" };
      const ids = unseen.join(" and ");
      return this.#say(
        `Before I pass this on: I have your ${ids}. Is that right, shall I go ahead?`,
        `Just to check before I hand this over, your ${ids}: is that right? Shall I go ahead?`,
        `I'll pass this on with your ${ids}. Is that correct, shall I go ahead?`,
      );
    }
    return this.#call(tool, "goal");
  }

  /**
   * A hand-off's free-text fields (the question, the reason) are the agent's to write: what the
   * person asked, in their words. Identifiers, choices and shaped values stay the person's to give.
   */
  #writeForColleague(tool: ToolModel, conversation: readonly ChatMessage[]): void {
    const asked = conversation
      .filter((m) => m.role === "user")
      .map((m) => m.content.trim())
      .filter((text) => text !== "" && !wantsHuman(mendAsks(text)))
      .at(0);
    for (const param of tool.tool.parameters.required ?? []) {
      if (this.#args.has(param) || tool.idEntities.has(param)) continue;
      if (isFreeText(param, propertiesOf(tool)[param]))
        this.#args.set(
          param,
          asked
            ? `The customer said: "${asked.slice(0, 300)}"`
            : "The customer asked to speak with someone.",
        );
    }
  }

  /** Fills a tool's required choices (enums) the person would not name, by the words of the conversation. */
  #chooseEnums(tool: ToolModel, conversation: readonly ChatMessage[]): void {
    let said = untypo(
      conversation
        .filter((m) => m.role === "user")
        .map((m) => m.content.toLowerCase())
        .join(" "),
      this.#model,
    );
    // A detail's name the person said before its value ("with loss type home subsidence") names no
    // choice (`large_loss`).
    for (const label of this.#labels()) said = said.split(label).join(" ");
    for (const param of tool.tool.parameters.required ?? []) {
      const options = propertiesOf(tool)[param]?.enum;
      if (!Array.isArray(options) || options.length === 0) continue;
      // A value said for another tool's detail of that name ("because duplicate") is none of these.
      if (this.#args.has(param) && options.includes(this.#args.get(param))) continue;
      const scored = options.map((o) => ({ o, score: this.#heardScore(String(o), said) }));
      const best = scored.reduce((a, b) => (b.score > a.score ? b : a));
      const general = options.find((o) =>
        /general|other|customer|care|support|default/.test(String(o)),
      );
      this.#args.set(param, best.score > 0 ? best.o : (general ?? options[0]));
    }
  }

  /**
   * How well the person's words name a choice: its telling words heard, whole words or their
   * plurals ("today" is no `same_day`, "feeling" no `fee_waiver`), one more when all of it was
   * said ("about complaints" beats the "care" of "taken care of" for `customer_care`). Either side
   * of one said with "or" or "and" will do (`refund_or_credit`). A record's name ("claim" of
   * `withdraw_submitted_claim`) is in every conversation about it, a state a record is in
   * ("submitted", "failed") in many, and the words of an ask for someone ("support") in every
   * hand-off: they name no choice ("it failed" is no `verification_failed`), though a choice of
   * states alone (`closed`) is named by them.
   */
  #heardScore(option: string, said: string): number {
    let best = 0;
    for (const side of option.toLowerCase().split(/[_\s-]+(?:or|and)[_\s-]+/)) {
      const words = side.split(/[_\s-]+/).filter((w) => w.length > 2 && !CONNECTORS.has(w));
      const heard = new Set(
        words.filter((w) => new RegExp(`\\b${regexLiteral(w)}(s|es)?\\b`).test(said)),
      );
      // A state names a choice made only of states (`closed`), not one with other words.
      const statesOnly = words.every((w) => STATUS_WORDS.has(w));
      const needed = statesOnly ? words : words.filter((w) => !STATUS_WORDS.has(w));
      const telling = [...heard].filter(
        (w) => needed.includes(w) && !this.#recordNouns().has(w) && !ASK_FOR_SOMEONE.has(w),
      );
      const whole = telling.length > 0 && needed.every((w) => heard.has(w));
      best = Math.max(best, telling.length + (whole ? 1 : 0));
    }
    return best;
  }

  #labelWords: readonly string[] | null = null;

  /** The spec's details named in more than one word, as the person says them ("loss type"). */
  #labels(): readonly string[] {
    this.#labelWords ??= [
      ...new Set(
        [...this.#model.tools.values()]
          .flatMap((t) => Object.keys(propertiesOf(t)))
          .map((param) => spokenName(param).toLowerCase())
          .filter((label) => label.includes(" ")),
      ),
    ].sort();
    return this.#labelWords;
  }

  #nouns: ReadonlySet<string> | null = null;

  /** The words of the spec's record names, singular and plural ("claim", "claims", "support", "ticket"). */
  #recordNouns(): ReadonlySet<string> {
    this.#nouns ??= new Set(
      [...this.#model.entities.values()].flatMap((e) =>
        [e.name, e.collection ?? ""].flatMap((n) => n.toLowerCase().split(/[_\s-]+/)),
      ),
    );
    return this.#nouns;
  }

  /** The early hand-off slip: handing over before trying the tool, through the same steps as a hand-off asked for, so its call is well formed. */
  #handOff(tool: ToolModel, conversation: readonly ChatMessage[]): AgentTurn {
    const handoff = this.#handoffTool();
    const slip = {
      kind: "early_handoff" as const,
      detail: `handed off before trying ${tool.tool.name}`,
    };
    if (handoff) {
      this.#intent = handoff;
      const turn = this.#handOffTo(handoff, conversation);
      // Asking first for what the hand-off needs, the agent says where it is taking the person.
      const content = `I'll pass you to a colleague who can help with this. ${turn.message.content ?? ""}`;
      return turn.message.tool_calls?.length
        ? { ...turn, slip }
        : { message: { role: "assistant", content }, slip };
    }
    this.#pending = { kind: "reported" };
    return {
      message: {
        role: "assistant",
        content: "Let me pass you to a colleague who can help with this.",
      },
      slip,
    };
  }

  /**
   * The hand-off tool for what the person said: the one whose own words they used ("a
   * pharmacist"), else the one that passes people to people in general, else the first.
   */
  #handoffTool(text = ""): ToolModel | undefined {
    const handoffs = [...this.#model.tools.values()].filter((t) => t.kind === "handoff");
    if (handoffs.length <= 1) return handoffs[0];
    const said = untypo(text.toLowerCase(), this.#model);
    const scored = handoffs.map((tool) => {
      const named = toolWords(tool.tool).nouns.filter(
        (n) => n.length > 3 && new RegExp(`\\b${n}\\b`).test(said),
      ).length;
      const general = GENERAL_HANDOFF.test(`${tool.tool.name} ${tool.tool.description}`) ? 1 : 0;
      return { tool, score: named * 2 + general };
    });
    return scored.reduce((best, next) => (next.score > best.score ? next : best)).tool;
  }

  #argsKey(): string {
    return JSON.stringify([...this.#args]);
  }

  /** Required arguments not yet known, or known in a form the schema refuses (those the agent writes itself excepted). */
  #missing(tool: ToolModel): string[] {
    const properties = propertiesOf(tool);
    const required = tool.tool.parameters.required ?? [];
    // The id of the record a change acts on is needed, whatever the schema marks optional; so is
    // one the person gave that was not found (the appointment a form is for): they meant one.
    const needed = [
      ...(tool.kind === "change" &&
      tool.idParam &&
      !tool.idByEmail &&
      !required.includes(tool.idParam)
        ? [...required, tool.idParam]
        : required),
      ...[...tool.idEntities.keys()].filter(
        (p) => !required.includes(p) && p !== tool.idParam && this.#notFound.has(p),
      ),
    ];
    for (const p of needed) this.#adoptIdentity(tool, p);
    return needed.filter(
      (p) =>
        !agentWrites(tool, p) && (!this.#args.has(p) || !fits(properties[p], this.#args.get(p))),
    );
  }

  /**
   * Who the person is, said for one detail, holds for another of the same kind: the full name
   * given to a check is the account holder's name. A tool named for that detail changes it, so
   * there it is asked for.
   */
  #adoptIdentity(tool: ToolModel, param: string): void {
    if (this.#args.has(param) && fits(propertiesOf(tool)[param], this.#args.get(param))) return;
    const key = identityKey(snake(param));
    if (!key || !SAME_FOR_LIFE.has(key) || tool.tool.name.includes(key.split("_").at(-1) as string))
      return;
    for (const [other, value] of this.#args)
      if (
        other !== param &&
        identityKey(snake(other)) === key &&
        fits(propertiesOf(tool)[param], value)
      ) {
        this.#args.set(param, value);
        return;
      }
  }

  /**
   * A listing that requires nothing but can be narrowed by a detail of the person (the email of
   * an admin, a phone) would list everyone's records without it: the detail is asked for once.
   */
  #narrowing(tool: ToolModel): string | null {
    if (tool.kind !== "read_many" || (tool.tool.parameters.required ?? []).length > 0) return null;
    const params = Object.keys(propertiesOf(tool));
    if (params.some((p) => this.#args.has(p))) return null;
    if (tool.refs.some((r) => this.#args.has(r.param))) return null;
    // Only what is the person's alone narrows to their records: a city or a name lists a catalog.
    const personal = params.find(
      (p) =>
        ["email", "phone"].includes(identityKey(snake(p)) ?? "") && (this.#asked.get(p) ?? 0) === 0,
    );
    return personal ?? null;
  }

  /**
   * The tool that reads back the record a change acts on: a read of one record, else a list that
   * holds it and can be called now, its owner's id filled from what the answers showed (an
   * appointment among a patient's).
   */
  #reader(tool: ToolModel): ToolModel | undefined {
    const tools = [...this.#model.tools.values()];
    // What a create made is read by its id, once its answer showed it.
    if (tool.kind === "create")
      return tools.find((t) => {
        if (t.kind !== "read_one" || t.entity !== tool.entity || !t.idParam || t.idByEmail)
          return false;
        this.#fillFromSeen(t);
        return this.#missing(t).length === 0;
      });
    if (tool.kind !== "change" || !tool.idParam) return undefined;
    return (
      tools.find(
        (t) =>
          t.kind === "read_one" && t.entity === tool.entity && t.idParam !== null && !t.idByEmail,
      ) ??
      tools.find((t) => {
        if (t.kind !== "read_many" || t.entity !== tool.entity) return false;
        this.#fillFromSeen(t);
        return this.#missing(t).length === 0;
      })
    );
  }

  /**
   * The call that lists the records of an id the person does not have, when it can be made now;
   * `fresh`, only a call not made before (a hand-off after the request was answered would list
   * again what the agent already showed).
   */
  #listingFor(
    tool: ToolModel,
    missing: string[],
    conversation: readonly ChatMessage[],
    fresh = false,
  ): AgentTurn | null {
    const param = missing.find((p) => tool.idEntities.has(p) && this.#unknownIds.has(p));
    const lister = param === undefined ? undefined : this.#lister(tool, param);
    if (!lister) return null;
    const lacking = this.#missing(lister);
    if (!fresh && this.#nextOwner(lister, lacking))
      return this.#call(lister, "list", undefined, param);
    // A list of the person's own records (`list_appointments(patient_id)`) needs them found first.
    if (!fresh && lacking.some((p) => lister.idEntities.get(p) === this.#model.person.name)) {
      const lookup = this.#lookupNeeded(lister);
      if (lookup) return lookup;
    }
    if (lacking.length > 0) {
      // A list found by a detail of the person's (`listTickets(userEmail)`) is worth asking it
      // for; one that needs another id they lack is not.
      const askable =
        !lacking.some((p) => lister.idEntities.has(p)) &&
        lacking.every((p) => (this.#asked.get(p) ?? 0) === 0);
      return askable && !fresh ? this.#ask(lister, lacking) : null;
    }
    if (fresh && this.#made.has(this.#callKey(lister))) return null;
    // A list of everyone's records (`find_workspace()`) is narrowed to the person's by a detail of
    // theirs: one they said, or gave for another argument (a contact email), else asked for.
    const narrowing = this.#narrowing(lister);
    if (narrowing) {
      const key = identityKey(snake(narrowing));
      const schema = propertiesOf(lister)[narrowing];
      const said = conversation
        .filter((m) => m.role === "user")
        .map((m) => m.content)
        .join("\n");
      // Not one of a list given for the request (the emails of people to invite): those are others'.
      const others = new Set(
        [...this.#args.values()].filter(Array.isArray).flatMap((list) => list.map(String)),
      );
      const read = readValue(this.#model, lister, narrowing, said, false)?.value;
      const value =
        (read !== undefined && !others.has(String(read)) ? read : undefined) ??
        [...this.#args].find(([p, v]) => identityKey(snake(p)) === key && fits(schema, v))?.[1];
      if (value === undefined || !fits(schema, value)) return this.#ask(lister, [narrowing]);
      this.#args.set(narrowing, value);
    }
    return this.#call(lister, "list", undefined, param);
  }

  /**
   * Where a list is made under a record of the person's they have several of (`list_lines` under
   * an account, of four found by their phone number), sets the next of those to list under as the
   * list's argument; false when the list lacks anything else or every one has been listed.
   */
  #nextOwner(lister: ToolModel, lacking: string[]): boolean {
    const [param] = lacking;
    const entityName = param === undefined ? undefined : lister.idEntities.get(param);
    if (lacking.length !== 1 || param === undefined || entityName === undefined) return false;
    const entity = this.#model.entities.get(entityName) as EntityModel;
    if (entity.catalog) return false;
    const owners = [...(this.#seen.get(entityName) ?? [])].filter((id) => !this.#rejected.has(id));
    if (this.#byOwner?.param !== param)
      this.#byOwner = { param, listed: new Set(), records: [], ownerOf: new Map() };
    const next = owners.find((id) => !this.#byOwner?.listed.has(id));
    if (next === undefined) return false;
    this.#byOwner.listed.add(next);
    this.#args.set(param, entity.idFormat.numeric ? Number(next) : next);
    return true;
  }

  /**
   * A list made under one of several owners: its records join those of the owners listed before.
   * "next" when none of them is what the person described and an owner is left to list under (the
   * list's argument is set to it); else all the records listed, or null for a list of one owner.
   */
  #pooled(
    lister: ToolModel,
    param: string,
    body: Record<string, unknown>,
    conversation: readonly ChatMessage[],
  ): Record<string, unknown> | "next" | null {
    const byOwner = this.#byOwner;
    if (!byOwner || !lister.idEntities.has(byOwner.param) || byOwner.listed.size === 0) return null;
    const tool = this.#intent as ToolModel;
    const entity = this.#model.entities.get(tool.idEntities.get(param) as string) as EntityModel;
    const owner = this.#args.get(byOwner.param);
    const records = recordsOf(body);
    for (const record of records) {
      byOwner.records.push(record);
      byOwner.ownerOf.set(String(record[entity.idField]), owner);
    }
    // A record the person described ("my line (Lumen line, active) from 2026-05-12") holds every
    // word of it; without such a description, it holds a name they said that another listed
    // record does not ("jade" of two lines, not "this" of every line's "this billing cycle", nor a
    // date another line shares by chance). Until one does, the next owner's records are listed too.
    const wordsOf = byOwner.records.map(
      (r) => new Set(tellingWords(JSON.stringify(Object.values(r)))),
    );
    const description = describedAs(conversation, entity.name);
    const said = new Set([...saidWords(conversation)].filter((w) => /^[a-z]+$/.test(w)));
    const described = description
      ? wordsOf.some((words) => description.every((w) => words.has(w)))
      : wordsOf.some((words) =>
          [...words].some((w) => said.has(w) && wordsOf.some((other) => !other.has(w))),
        );
    this.#args.delete(byOwner.param);
    if (!described && this.#nextOwner(lister, [byOwner.param])) return "next";
    return { [entity.collection]: byOwner.records, count: byOwner.records.length };
  }

  /** Takes the id of a record the person means, and the owner it was listed under (the line's account). */
  #take(param: string, id: unknown): void {
    this.#args.set(param, id);
    const owner = this.#byOwner?.ownerOf.get(String(id));
    if (this.#byOwner && owner !== undefined) this.#args.set(this.#byOwner.param, owner);
  }

  /** A read-many tool that lists records of the entity an unknown id names, to find it from. */
  #lister(tool: ToolModel, param: string): ToolModel | undefined {
    const entity = tool.idEntities.get(param);
    return [...this.#model.tools.values()].find(
      (t) => t.kind === "read_many" && t.entity === entity,
    );
  }

  /** Decided once the request is known: whether this episode slips, and how. */
  #plannedSlip(tool: ToolModel): SlipKind | null {
    if (this.#slip !== undefined) return this.#slip;
    const rng = this.#rng.fork("slip");
    if (!rng.chance(this.#slipRate)) {
      this.#slip = null;
      return null;
    }
    const writes = tool.kind === "change" || tool.kind === "create";
    const options: SlipKind[] = ["claimed_success_after_error"];
    if (tool.kind !== "handoff") options.push("early_handoff");
    if (tool.idEntities.size > 0) options.push("invented_identifier");
    if (writes) options.push("claimed_unperformed_action");
    if (writes && needsConfirmation(this.#agent, tool)) options.push("skipped_confirmation");
    this.#slip = rng.pick(options);
    return this.#slip;
  }

  #invent(tool: ToolModel, param: string): unknown {
    const entity = this.#model.entities.get(tool.idEntities.get(param) as string) as EntityModel;
    const made = entity.idFormat.make(this.#rng.fork("invent", param));
    const id = entity.idFormat.numeric ? Number(made) : made;
    // A list of ids gets a list of one: the made-up id must reach the call to be the slip it is.
    return tool.refs.some((r) => r.param === param && r.many) ? [id] : id;
  }

  /** The write read back: what it does and every detail it will send. */
  #describe(tool: ToolModel): string {
    const properties = propertiesOf(tool);
    const args = [...this.#args]
      .filter(([p]) => p in properties)
      .map(
        ([p, v]) =>
          `${spokenName(p)} ${spoken(v, isChoice(properties[p]) ? this.#sayCode : undefined)}`,
      );
    return args.length > 0 ? `${verbPhrase(tool)} with ${args.join(", ")}` : verbPhrase(tool);
  }

  /** Says the first of the wordings not said before in this conversation, so no message repeats. */
  #say(...wordings: string[]): AgentTurn {
    const fresh = [...wordings, ...LAST_WORDS].find((w) => !this.#said.has(w));
    const content = fresh ?? `${wordings[0]} (${this.#said.size + 1})`;
    this.#said.add(content);
    return { message: { role: "assistant", content } };
  }
}

/** The parameters a lookup finds by: its required ones, or all when none is required. */
function lookupParams(tool: ToolModel): string[] {
  const required = tool.tool.parameters.required ?? [];
  return required.length > 0 ? required : Object.keys(propertiesOf(tool));
}

/**
 * Whether a write only names the record a reference gives, as the world has it: one its name does
 * not name stays as it was (`reset_user_mfa`'s `workspace_id`, `verification_id`), where
 * `change_plan`'s `plan_code` is what the line is moved to.
 */
function onlyNames(tool: ToolModel, ref: Ref): boolean {
  if (ref.many || ref.by !== "id" || ref.role === "new") return false;
  const words = new Set(nameParts(tool).rest);
  return !ref.entity.split("_").some((w) => words.has(w));
}

/** What a tool's name says it acts on, in words: `send_verification_code` → "verification code". */
function objectWords(tool: ToolModel): string {
  return nameParts(tool).rest.join(" ");
}

/** The words the person has said, those long enough to tell one record from another. */
function saidWords(conversation: readonly ChatMessage[]): Set<string> {
  return new Set(
    conversation.filter((m) => m.role === "user").flatMap((m) => tellingWords(m.content)),
  );
}

/** Whether a message names a detail by its spoken name ("the plan should be…"). */
function namesDetail(text: string, param: string): boolean {
  return new RegExp(`\\b${regexLiteral(spokenName(param).toLowerCase())}\\b`).test(
    text.toLowerCase(),
  );
}

/** A value written as a code ("pending_move_in", "final_bill_issued"), not as words. */
const CODE = /^[a-z0-9]+(?:_[a-z0-9]+)+$/;

/**
 * The words of a record's values the person said; a code counts only when every word of it was
 * said: "move" of a request to register a move-out tells no account that is "pending_move_in".
 */
function wordsSaidOf(record: unknown, said: Set<string>, heard = new Set<string>()): Set<string> {
  if (typeof record === "string") {
    const words = tellingWords(record);
    if (!CODE.test(record) || words.every((w) => said.has(w)))
      for (const word of words) if (said.has(word)) heard.add(word);
  } else if (typeof record === "number") {
    for (const word of tellingWords(String(record))) if (said.has(word)) heard.add(word);
  } else if (record !== null && typeof record === "object")
    for (const value of Object.values(record)) wordsSaidOf(value, said, heard);
  return heard;
}

/**
 * The words a person described a record of theirs by, the last time they did ("my line (Lumen
 * line, active) from 2026-05-12": lumen, line, active, 2026-05-12), or null when they did not.
 */
function describedAs(conversation: readonly ChatMessage[], entity: string): string[] | null {
  const pattern = new RegExp(
    `\\bmy ${regexLiteral(entity.replace(/_/g, " "))} \\(([^)]*)\\)(?: from (\\d{4}-\\d{2}-\\d{2}))?`,
    "i",
  );
  for (let i = conversation.length - 1; i >= 0; i--) {
    const m = conversation[i];
    if (m?.role !== "user") continue;
    const found = pattern.exec(m.content);
    if (found) return tellingWords(`${found[1]} ${found[2] ?? ""}`);
  }
  return null;
}

/** The records an answer lists, or the record it is. */
function recordsOf(body: Record<string, unknown>): Record<string, unknown>[] {
  const list = Object.values(body).find(Array.isArray) as Record<string, unknown>[] | undefined;
  if (list && (typeof body.count === "number" || Object.keys(body).length <= 3)) return list;
  return [body];
}

/** The tool's action in words: `cancel_pending_order` → "cancel the pending order". */
function verbPhrase(tool: ToolModel): string {
  const verb = tool.verb;
  const { particle, rest } = nameParts(tool);
  const said = lookup(SPLIT_VERBS, verb) ?? verb;
  // "escalate to account manager", not "escalate the to account manager".
  const object =
    rest.length === 0
      ? "it"
      : /^(to|for|with|from|into|onto)$/.test(rest[0] as string)
        ? rest.join(" ")
        : `the ${rest.join(" ")}`;
  return `${said}${particle} ${object}`;
}

/** Verbs a tool name writes as one word that English writes as two. */
const SPLIT_VERBS: Record<string, string> = {
  setup: "set up",
  signup: "sign up",
  login: "log in",
  checkout: "check out",
  handoff: "hand off",
};

/** Words after a verb that belong to it ("top up", "check in"). */
const PARTICLES = new Set(["up", "in", "out", "on", "off", "back", "over", "down"]);

/**
 * A tool name's words past its verb: a particle right after the verb goes with it ("topped up the
 * balance", "check in the guest"), the rest name what it acts on.
 */
function nameParts(tool: ToolModel): { particle: string; rest: string[] } {
  const words = snake(tool.tool.name).split("_").filter(Boolean);
  const at = words.indexOf(tool.verb);
  const after = words[at + 1];
  const particle = after && PARTICLES.has(after) ? ` ${after}` : "";
  return { particle, rest: words.filter((w, i) => w !== tool.verb && !(particle && i === at + 1)) };
}

/** Verbs of two syllables or more stressed on the last, whose final consonant doubles. */
const STRESSED_LAST = new Set([
  "cancel",
  "transfer",
  "refer",
  "prefer",
  "commit",
  "permit",
  "submit",
  "admit",
  "omit",
  "control",
  "patrol",
  "compel",
  "expel",
  "occur",
  "regret",
]);

/** "cancelled the pending order" for a report. */
export function pastOf(tool: ToolModel): string {
  const verb = tool.verb;
  // A final consonant doubles after a short stressed vowel: "stopped", "transferred", never "registerred".
  const doubles = /^[^aeiou]*[aeiou][bdgklmnprt]$/.test(verb) || STRESSED_LAST.has(verb);
  const past = verb.endsWith("e")
    ? `${verb}d`
    : /[^aeiou]y$/.test(verb)
      ? `${verb.slice(0, -1)}ied`
      : doubles && /[^aeiou][aeiou][bdgklmnprt]$/.test(verb)
        ? `${verb}${verb.at(-1)}ed`
        : `${verb}ed`;
  const irregular: Record<string, string> = {
    send: "sent",
    pay: "paid",
    set: "set",
    reset: "reset",
    freeze: "frozen",
    issue: "issued",
    submit: "submitted",
    setup: "set up",
    signup: "signed up",
    login: "logged in",
    checkout: "checked out",
    make: "made",
    hold: "held",
    buy: "bought",
    sell: "sold",
    unfreeze: "unfrozen",
    repay: "repaid",
    split: "split",
    write: "written",
    put: "put",
    take: "taken",
    give: "given",
    get: "got",
    leave: "left",
    find: "found",
    renew: "renewed",
  };
  const { particle, rest } = nameParts(tool);
  return `${Object.hasOwn(irregular, verb) ? irregular[verb] : past}${particle} the ${rest.join(" ") || "request"}`;
}

/**
 * What each of several records is, to ask which one the person means: its first two words of
 * text (a name, a status), and any choice of the entity's that tells them apart ("electricity
 * and gas").
 */
function labelsOf(
  records: readonly Record<string, unknown>[],
  entity: EntityModel,
  sayCode: SayCode,
): string[] {
  const { idField } = entity;
  const first = records[0] ?? {};
  const plain = Object.keys(first)
    .filter((k) => k !== idField && typeof first[k] === "string" && !/(_id|Id)$/.test(k))
    .slice(0, 2);
  const choice = (k: string) => {
    const schema = entity.fields.get(k);
    return k === "status" || Array.isArray(schema?.enum) || Array.isArray(schema?.items?.enum);
  };
  const telling = Object.keys(first).filter(
    (k) =>
      !plain.includes(k) &&
      choice(k) &&
      records.every(
        (r) =>
          typeof r[k] === "string" ||
          (Array.isArray(r[k]) && (r[k] as unknown[]).every((x) => typeof x === "string")),
      ) &&
      new Set(records.map((r) => JSON.stringify(r[k]))).size > 1,
  );
  return records.map((r) =>
    [...plain, ...telling]
      .map((k) => r[k])
      .filter((v) => v !== undefined)
      .map((v) =>
        Array.isArray(v) ? v.map(String).map(sayCode).join(" and ") : sayCode(String(v)),
      )
      .join(", "),
  );
}

/** Whether a parameter is one of the choices its schema lists (`reason: no_longer_needed | other`). */
function isChoice(schema: SchemaFragment | undefined): boolean {
  return Array.isArray(schema?.enum) || Array.isArray(schema?.items?.enum);
}

/** How the agent says a value of the world's to the person (`pending_move_in` as "pending move in"). */
type SayCode = (value: string) => string;

/** A value as the agent reads it back; a choice's code in words, given `sayCode` ("reason no longer needed"). */
function spoken(value: unknown, sayCode?: SayCode): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (typeof value === "string" && sayCode) return sayCode(value);
  if (Array.isArray(value)) return value.map((v) => spoken(v, sayCode)).join(" and ");
  if (value !== null && typeof value === "object")
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${spokenName(k)} ${spoken(v, sayCode)}`)
      .join(", ");
  return String(value);
}

/** Records a listing's report names one by one; past this, the first five and a count. */
const MAX_LISTED = 10;
/** Records a listing's report tells with their details; past this, by their ids alone. */
const DETAILED = 5;
/** A person's detail other than their name (an email, a phone, an address): not told in a list. */
function isContactDetail(field: string): boolean {
  const detail = identityKey(snake(field));
  return detail !== null && detail !== "name";
}

/** Details told of each record of a short list, its status besides. */
const DETAILS_EACH = 3;

/**
 * What one record of a list holds beyond its id, as a report says it: its first plain details
 * (no other record's id, no timestamp, none of someone's contact details but their name) and its
 * status wherever it sits.
 */
function detailsOf(item: Record<string, unknown>, sayCode: SayCode): string {
  const plain = Object.entries(item)
    .slice(1)
    .filter(
      ([k, v]) =>
        (typeof v === "string" || typeof v === "number" || typeof v === "boolean") &&
        !REFERENCE_FIELD.test(k) &&
        !/_at$/.test(k) &&
        !isContactDetail(k),
    );
  const shown = plain.slice(0, DETAILS_EACH);
  const status = plain.find(([k]) => k === "status");
  if (status && !shown.includes(status)) shown.push(status);
  return shown.map(([k, v]) => `${spokenWords(k)} ${spokenAnswer(v, k, sayCode)}`).join(", ");
}

/**
 * What an answer shows, as a report says it: a list by its count (`records.one` or `.many`) and
 * its records, up to five with their details, else by their ids; after a write, what it set; else
 * the first fields and the status.
 */
function summary(
  body: Record<string, unknown>,
  records: { one: string; many: string },
  sayCode: SayCode,
  written?: ReadonlySet<string>,
): string {
  const list = Object.entries(body).find(([, v]) => Array.isArray(v));
  const plain = Object.entries(body).filter(
    ([k, v]) =>
      k !== "warnings" &&
      (typeof v === "string" || typeof v === "number" || typeof v === "boolean"),
  );
  // A list counted, or all an answer holds (`{"matches": [...]}`), is told by its count and ids.
  if (list && (typeof body.count === "number" || plain.length === 0)) {
    const items = list[1] as unknown[];
    // A short list is told whole; a long one by its first records and how many more.
    const told = items.length <= MAX_LISTED ? items.length : 5;
    // Each by its first field: an id as written, a code in words (a form "new patient health history").
    const ids = items.slice(0, told).map((i) => {
      const [field, value] =
        i !== null && typeof i === "object" ? (Object.entries(i)[0] ?? ["", undefined]) : ["", i];
      return typeof value === "string" ? spokenAnswer(value, field, sayCode) : String(value);
    });
    const counted = `${items.length} ${spokenWords(items.length === 1 ? records.one : records.many)}`;
    // A few records are told with what each holds: a person who asked to see their invoices
    // hears their dates, amounts and states, not only their numbers.
    if (items.length > 0 && items.length <= DETAILED) {
      const each = items.map((item, at) => {
        const details =
          item !== null && typeof item === "object" && !Array.isArray(item)
            ? detailsOf(item as Record<string, unknown>, sayCode)
            : "";
        return details === "" ? ids[at] : `${ids[at]} (${details})`;
      });
      return `${counted}: ${each.join("; ")}`;
    }
    const more = items.length > told ? ` and ${items.length - told} more` : "";
    return `${counted}${ids.length > 0 ? ` (${ids.join(", ")}${more})` : ""}`;
  }
  // After a write: the record's id, what the call set (a list of plain values said as one), its status.
  const set = written ? writtenIn(body, written) : [];
  if (set.length > 0) {
    const status = plain.find(([k]) => k === "status");
    const id = plain[0];
    return [
      ...(id && !written?.has(id[0]) && id[0] !== "status" ? [id] : []),
      ...set,
      ...(status && !set.some(([k]) => k === "status") ? [status] : []),
    ]
      .map(([k, v]) => `${spokenWords(k)} ${spokenAnswer(v, k, sayCode)}`)
      .join(", ");
  }
  // The first fields, and the status wherever it sits: what a person asking about a record needs.
  const shown = plain.slice(0, 5);
  const status = plain.find(([k]) => k === "status");
  if (status && !shown.includes(status)) shown.push(status);
  return shown.map(([k, v]) => `${spokenWords(k)} ${spokenAnswer(v, k, sayCode)}`).join(", ");
}

/**
 * What an answer shows of the fields a write set: each by its name, a record pointed to by its
 * code, a detail inside a part of the record (`direct_debit.collection_day`) under the part's
 * name, with its unit where the part names it so (`monthly_amount` as `monthly_amount_gbp`).
 */
function writtenIn(
  body: Record<string, unknown>,
  written: ReadonlySet<string>,
): [string, unknown][] {
  const isWritten = (key: string) =>
    written.has(key) ||
    [...written].some((w) => key.startsWith(`${w}_`) && UNIT.test(key.slice(w.length + 1)));
  return Object.entries(body)
    .flatMap(([k, v]): [string, unknown][] =>
      written.has(k)
        ? [[k, codeOf(v) ?? v]]
        : v !== null && typeof v === "object" && !Array.isArray(v)
          ? Object.entries(v)
              .filter(([sub, x]) => isWritten(sub) && typeof x !== "object")
              .map(([sub, x]): [string, unknown] => [`${k}_${sub}`, x])
          : [],
    )
    .filter(
      ([, v]) =>
        typeof v === "string" ||
        typeof v === "number" ||
        typeof v === "boolean" ||
        // A list of plain values, or of objects each said by its details (a seat assignment).
        (Array.isArray(v) &&
          v.length > 0 &&
          (v.every((x) => typeof x !== "object") ||
            v.every((x) => x !== null && typeof x === "object" && !Array.isArray(x)))),
    );
}

/** A unit a field's name ends with: a currency, pence, days, kWh. */
const UNIT = /^(gbp|usd|eur|aud|cad|nzd|chf|pence|cents|days|kwh|minutes|hours)$/;

/** The code or id an object of an answer is known by (a tariff's `code`), or undefined. */
function codeOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const entry = Object.entries(value).find(([k]) => /(^|_)(code|id)$/.test(k));
  return typeof entry?.[1] === "string" ? entry[1] : undefined;
}

/**
 * A value of an answer as a report says it: money to the cent, a list of plain values joined, a
 * code in words ("status pending move in") but in a field that holds references.
 */
function spokenAnswer(value: unknown, field: string, sayCode: SayCode): string {
  // Each object of a list in brackets: "flights (flight number BC4223, date 2026-07-13)".
  if (Array.isArray(value))
    return value
      .map((v) =>
        v !== null && typeof v === "object" && !Array.isArray(v)
          ? `(${spoken(v, sayCode)})`
          : spokenAnswer(v, field, sayCode),
      )
      .join(" and ");
  if (value !== null && typeof value === "object") return spoken(value, sayCode);
  if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(2);
  return typeof value === "string" && !REFERENCE_FIELD.test(field) ? sayCode(value) : String(value);
}

/** Words of a hand-off to people in general, not to one specialist. */
const GENERAL_HANDOFF =
  /\b(human|person|people|agents?|representative|staff|team|colleague|customer care|support)\b/i;

/**
 * A tool that makes someone a customer (a sign-up, a move-in) takes their name and other details
 * and no record of theirs: there is nobody to look up yet.
 */
function registers(tool: ToolModel): boolean {
  if (tool.kind !== "create" || tool.refs.some((r) => r.by === "id")) return false;
  const details = (tool.tool.parameters.required ?? []).filter((p) =>
    PERSONAL_DETAILS.has(identityKey(snake(p)) ?? ""),
  );
  return details.length >= 2;
}

/** Words that start how a read finds what it reads (`find_account_by_name`), not what it reads. */
const READ_BY = new Set(["by", "with", "from", "using", "via"]);

/**
 * What a read reads, in its name's words (`track_shipment` → "shipment", `get_account_summary` →
 * "account summary"): a report says what it is about, as a person would expect to hear.
 */
function readSubject(tool: ToolModel): string | null {
  const words = nameWords(tool.tool.name);
  const verb = verbOf(tool.tool.name);
  const rest = words.filter(
    (w, at) => !(w === verb && (at === 0 || at === words.length - 1)) && w !== "id" && w !== "ids",
  );
  const cut = rest.findIndex((w) => READ_BY.has(w));
  const subject = (cut < 0 ? rest : rest.slice(0, cut)).join(" ");
  return subject === "" ? null : subject;
}
