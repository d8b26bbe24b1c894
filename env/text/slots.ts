import { keyed } from "../util/lookup.ts";
import { memoized } from "../util/memo.ts";
import { snake, spokenWords } from "../util/names.ts";
import { lastTokenMatch, linearPattern, regexLiteral } from "../util/regex.ts";
import { fitDetail, identityKey } from "../world/identity.ts";
import {
  type EntityModel,
  propertiesOf,
  REPLACEMENT,
  type ToolModel,
  type WorldModel,
} from "../world/model.ts";
import type { SchemaFragment } from "../world/values.ts";
import { EMAIL } from "./identifiers.ts";
import { yesOrNo } from "./phrases.ts";

/** How a value of a parameter was read, and how sure the reading is. */
export type Reading = { value: unknown } | null;

/** A quotation (bounded, so an unclosed quote mark cannot make the scan quadratic). */
export const QUOTED = /"[^"\n]{0,400}"|“[^”\n]{0,400}”/g;
/**
 * Set phrases whose words are no choice of a value: a greeting's "morning", "at all", "in any
 * case", "I'm a bit lost". "Good morning. Can you check…" asks for no morning slot, nor "Nothing at
 * all?" for all invoices, nor "sorry, I'm a bit lost" for a line suspended as lost.
 */
const IDIOMS =
  /\bgood (morning|afternoon|evening|day|night)\b|\b(not |nothing |none )?at all\b|\b(after|above|first of) all\b|\ball (set|good|right)\b|\bin any case\b|\bany (more|longer)\b|\b(i'?m|i am) (a bit |a little |so |completely |totally )?lost\b/gi;
/** Thanks as typed, slips of the fingers too ("thnak you"). */
const THANKS = String.raw`(?:(?:thank|tahnk|thnak)s?|thakns)\b(?:\s+you)?`;
/** A closing "and thank you" after a value, and all after it: no part of the value. */
const THANKS_AFTER = new RegExp(String.raw`[,;]?\s*\b(?:and\s+)?${THANKS}.*$`, "is");
/** The same, or a "please". */
const COURTESY_AFTER = new RegExp(String.raw`,?\s+(?:and\s+)?(?:${THANKS}|please\b).*$`, "is");
/** Thanks that end an answer. */
const THANKS_AT_END = new RegExp(String.raw`[,;]?\s*${THANKS}[.!]?$`, "i");
/**
 * Where a labelled value ends: at the next detail, its sentence's end, a closing thanks or
 * "please" ("… Pebble Company asap please."), a closing "asap" with no please ("… Garnet Company
 * asap"), the
 * "for me" that closes a request ("Can you send it, with company name Sable Company for me?"), a
 * hedge after it ("with company name Ember Company I think"), or a clause of the person's own after
 * it ("… Indigo Company and I'd like it actually done this time", "… city Lyon and forgive me if
 * I don't take your word for it").
 */
const VALUE_END = new RegExp(
  String.raw`\s+with\s+|[.!?](?:\s|$)|\s+and\s+${THANKS}|\s+for me(?=[.!?,]|\s*$)|,?\s+(?:(?:asap|quickly|urgently|right away|now|today)\s+)?please(?=[.!?,]|\s*$)|,?\s+(?:asap|urgently|right away|right now|immediately)(?=[.!?,]|\s*$)|,?\s+i\s+(?:think|guess|believe|suppose)(?=[.!?,]|\s*$)|,?\s+and\s+(?:i|i'?d|i'?m|i'?ve|i'?ll|please|can you|could you|forgive me|excuse me|tell me|let me)\b`,
  "i",
);
const PHONE = /(?<![\w+#-])\+?\d[\d\s().-]{6,18}\d(?![\w-])/g;
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const MONEY = /(?:[$£€]\s?)?\b(\d{1,7}(?:,\d{3})*\.\d{2})\b/g;
/** Words that make a detail's name another detail's: "forwarding postcode" is not the postcode. */
const QUALIFIERS =
  "new|from|to|old|source|destination|forwarding|billing|shipping|delivery|mailing|previous|current|other|losing|receiving|home|work";

/** Words before a detail's name that say the person does not have it. */
const WITHOUT =
  /\b(don'?t|do not|haven'?t|have not|can'?t|cannot|no)\s+(have|know|remember|find|got|see)?\s*(the|my|a|an|any)?\s*$/i;
/** Words that make an answer a sentence, not a value. */
const SENTENCE_WORDS =
  /\b(i|i'm|i've|my|me|you|your|can|could|would|please|want|need|so|is|are|it's|that's|what|why|how|the)\b/i;

/** Words that join a sentence's parts: three words or more holding one are no name or code ("and no more waiting"). */
const JOINING_WORDS = /\b(and|of|to|that|this|have)\b/i;

/** Whether a value holds a word of a sentence, emails aside ("leila@proton.me" says no "me"). */
function sentenceWordIn(value: string): boolean {
  return SENTENCE_WORDS.test(value.replace(EMAIL, " "));
}

/** Parameters that hold a detail to look something up by, never prose. */
export const DETAIL_PARAM =
  /(^|_)(id|ids|number|code|email|phone|mobile|zip|zipcode|postcode|postal_code|name|first_name|last_name|dob|birth|date_of_birth|pin|last4|last_four|sku|iban|plate|username|handle)$/;

/** The words a parameter is called by in speech: `first_name` → "first name", `order_id` → "order ID". */
export function spokenName(param: string): string {
  return spokenWords(snake(param))
    .replace(/\bid$/, "ID")
    .replace(/\bids$/, "IDs");
}

/**
 * Reads a value for one parameter out of what the person wrote, by the parameter's schema and
 * role: identifiers by their entity's shape, emails, phones, dates and amounts by their forms,
 * enums by their words, yes or no for a flag, lists of ids, and objects from "label value" pairs.
 * Free text (a name, an address, a reason) is read only when it was asked for alone (`asked`), and
 * never when it reads as a sentence. Returns null when the text does not give it.
 */
export function readValue(
  model: WorldModel,
  tool: ToolModel,
  param: string,
  text: string,
  asked: boolean,
): Reading {
  const schema = propertiesOf(tool)[param] ?? {};
  const key = snake(param);
  const clean = text.replace(QUOTED, " ");
  const entityName = tool.idEntities.get(param) ?? tool.refs.find((r) => r.param === param)?.entity;
  const entity = entityName ? model.entities.get(entityName) : undefined;
  const ref = tool.refs.find((r) => r.param === param);
  if (ref?.many && entity) {
    // Two lists of one kind ("item ids …, new item ids …") are told apart by their labels.
    const siblings = tool.refs.filter((r) => r.many && r.entity === ref.entity).length > 1;
    const segment = labelledValue(param, clean) ?? (siblings ? null : clean);
    if (segment === null) return null;
    const ids = [...new Set(entity.idFormat.find(segment))];
    return ids.length > 0 ? { value: ids.map((id) => typed(entity, id)) } : null;
  }
  if (entity && !(ref?.by === "email" || (param === tool.idParam && tool.idByEmail))) {
    // "No, X isn't mine, it's Y": the id disowned is no value for it.
    // "…, with transfer to user id usr_2": an id said with another argument's name is that one's.
    const labels = [...tool.idEntities]
      .filter(([, e]) => e === entity.name)
      .map(([p]) => [p, spokenWords(snake(p)).toLowerCase()] as const);
    const located = entity.idFormat.locate(clean).filter((m) => {
      const label = labels.length > 1 ? longestLabelBefore(labels, clean, m.at) : undefined;
      return !disowned(clean, m) && (label === undefined || label === param);
    });
    // "from my account X to Y": a direction word picks which of two ids; "new" is no direction.
    const direction = ref?.role === "from" || ref?.role === "to" ? ref.role : null;
    // "my reservation QVA9JO …, flight number BC1708": without a direction, an id said after its
    // kind's name is it, whatever else of its shape is said after.
    const named = direction ? [] : located.filter((m) => namedBefore(clean, m.at, entity.name));
    const matches = named.length > 0 ? named : located;
    // Asked for that one id, a bare answer with one id is it, whatever words are around it.
    const chosen =
      matches.filter((m) => !direction || roleBefore(clean, m.at) === direction).at(-1) ??
      (direction && !(asked && matches.length === 1) ? undefined : matches.at(-1));
    return chosen ? { value: typed(entity, chosen.value) } : null;
  }
  const identity = identityKey(key);
  if (identity === "email" || ref?.by === "email" || schema.format === "email") {
    const email = [...clean.matchAll(EMAIL)].at(-1)?.[0];
    return email ? { value: email } : null;
  }
  const listed = schema.type === "array" ? schema.items?.enum : undefined;
  // What a record of theirs is ("my workspace (Meadow workspace, free)") is no choice for a change.
  const chosen = clean.replace(IDIOMS, " ").replace(/\([^()]*\)/g, " ");
  if (Array.isArray(listed)) {
    const said = listed.filter((v) => typeof v === "string" && enumWord(v).test(chosen));
    // A value inside a longer one said ("economy" in "basic economy") was not said on its own.
    const hits = said.filter((v) => !said.some((o) => o !== v && String(o).includes(String(v))));
    return hits.length > 0 ? { value: hits } : null;
  }
  if (Array.isArray(schema.enum)) {
    // "with fuel gas": a value said after the detail's own name is it, whatever else is said
    // ("my account (electricity)"); else "basic economy" names basic_economy, not economy: the
    // longest value said wins.
    const labelled = labelledValue(param, chosen);
    const hitIn = (text: string) =>
      (schema.enum as unknown[])
        .filter((v) => typeof v === "string" && enumWord(v).test(text))
        .sort((a, b) => String(b).length - String(a).length)[0];
    const hit = (labelled === null ? undefined : hitIn(labelled)) ?? hitIn(chosen);
    if (hit !== undefined) return { value: hit };
    if (schema.type === "boolean" || schema.enum.every((v) => typeof v === "boolean"))
      return flag(clean, asked);
    return null;
  }
  if (identity === "phone" || /(^|_)(phone|mobile|telephone)(_number)?$/.test(key)) {
    // A phone has ten digits or more, or a leading +; a date or an order number is not one.
    // "the pharmacy phone +1 …" is someone else's number, unless the parameter is that one; for
    // the pharmacy's phone, the number labelled with "pharmacy" is the one.
    const before = (m: RegExpExecArray) => clean.slice(Math.max(0, m.index - 40), m.index);
    const phones = [...clean.matchAll(PHONE)]
      .filter((m) => !otherOwnersLabel(before(m), key))
      .filter((m) => !/^\d{4}-\d{2}-\d{2}$/.test(m[0].trim()))
      .filter((m) => {
        const digits = m[0].replace(/\D/g, "").length;
        return digits >= 10 || (m[0].trim().startsWith("+") && digits >= 7);
      });
    const owner = key
      .split("_")
      .filter((w) => w.length > 2 && !/^(phone|mobile|telephone|number|from)$/.test(w));
    const labelled = phones.filter((m) => owner.some((w) => before(m).toLowerCase().includes(w)));
    const phone = (owner.length > 0 && labelled.length > 0 ? labelled : phones).at(-1)?.[0].trim();
    return phone ? { value: fitDetail(key, phone, schema.pattern) } : null;
  }
  if (schema.type === "object" || (schema.type === "array" && schema.items?.type === "object")) {
    // An object is read from the words after its own name, up to the next detail ("…, with cabin …").
    const segment = segmentAfter(param, clean) ?? (asked ? clean : null);
    return segment === null ? null : labelledObjects(schema, segment);
  }
  const labelled = asked ? null : labelledValue(param, clean);
  if (labelled !== null) {
    // "with vat number VAT-416415 I know there's a rule…", said without a comma: a code's value
    // is its first word, when that word is a code (it holds a digit) and the next holds none
    // ("4111 1111 1111 1111" stays whole).
    const code = /(^|_)(id|number|code|no|ref|reference|pin|last4|last_four|sku|iban)$/.test(key)
      ? /^([A-Z0-9][A-Z0-9-]*\d[A-Z0-9-]*)\s+(?=[^\s\d]+(\s|$))/i.exec(labelled)?.[1]
      : undefined;
    return readValue(model, tool, param, code ?? labelled, true);
  }
  const dated =
    identity === "date_of_birth" || schema.format === "date" || /(^|_)date$|_on$/.test(key);
  // A date of birth is said when asked for; any other date in a message is not one.
  if (dated && identity === "date_of_birth" && !asked) return null;
  if (dated) {
    // Unasked, a date goes to the one date the call takes; with several, only where labelled.
    const dates = Object.entries(propertiesOf(tool)).filter(
      ([p, s2]) => s2.format === "date" || /(^|_)date$|_on$|birth/.test(snake(p)),
    );
    if (!asked && dates.length > 1) return null;
    const match = [...clean.matchAll(ISO_DATE)].at(-1);
    if (!match) return null;
    // Unasked, "from 2026-06-14" starts something or dates a record ("my line from …"): it fills
    // only a start (`start_date`, `since`), and "until …" only an end, never a `resume_date`.
    const before = clean.slice(Math.max(0, match.index - 12), match.index).toLowerCase();
    const starts =
      !key.startsWith("new_") &&
      /(^|_)(start|from|since|begin|begins|opened|created|joined|effective|check_in|move_in|departure)(_|$)/.test(
        key,
      );
    const ends = /(^|_)(until|end|to|expir\w*|due|deadline|last)(_|$)/.test(key);
    // "change my check-in to 2026-08-05": "to" gives the value a `new_check_in` replaces.
    const replaces = REPLACEMENT.test(key);
    // "my workspace (Ember workspace) from 2026-05-03" dates the record described, no filter or start.
    if (!asked && /\)\s*(from|since)\s*$/.test(before)) return null;
    if (!asked && /\b(from|since)\s*$/.test(before) && !starts) return null;
    if (!asked && /\b(until|till|by)\s*$/.test(before) && !ends) return null;
    if (!asked && /\bto\s*$/.test(before) && !ends && !replaces) return null;
    return { value: match[0] };
  }
  if (schema.type === "boolean") return flag(clean, asked);
  if (schema.type === "number" || schema.type === "integer") {
    // A date's year or day is no count: "2026-08-05, 3 nights" holds one number, 3.
    const undated = clean.replace(ISO_DATE, " ");
    // "3 nights", "2 guests": a number its detail's name follows is that detail, asked or not.
    const named = countNamed(key, undated);
    if (named !== null) return { value: schema.type === "integer" ? Math.round(named) : named };
    // Unasked, only the call's amount is read from a money figure; any other number needs asking.
    if (!asked && param !== tool.amountParam) return null;
    // Asked, the answer's first number is the value; unasked, only a money figure is an amount.
    const plain = asked
      ? /^[^\d-]*?(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\b/.exec(bare(undated))?.[1]
      : undefined;
    const found = plain ?? unclaimedFigures(tool, param, clean).at(-1);
    if (found === undefined) return null;
    const n = Number(found.replace(/,/g, ""));
    return Number.isFinite(n) ? { value: schema.type === "integer" ? Math.round(n) : n } : null;
  }
  // "change the address … to 40 Linden Street, Boston 02108": a new address follows "to", for
  // the write that moves it; a lookup's street is where the person lives now.
  if (
    schema.type === "string" &&
    (tool.kind === "change" || tool.kind === "create") &&
    holdsAddress(key) &&
    !/(address_?line_?2|address2|apartment|unit|suite)$/.test(key)
  ) {
    const moved = /\bto (\d+ [^.!?\n]{3,80}?)(?=,?\s+(?:with|to)\s|[.!?](?:\s|$)|\n|$)/
      .exec(clean)?.[1]
      ?.replace(COURTESY_AFTER, "")
      .trim();
    if (moved) return { value: identity === "street" ? (moved.split(",")[0] as string) : moved };
  }
  // A subject or title put in quotes ("about \"Email not syncing\"") is that text, word for word.
  if (schema.type === "string" && /(^|_)(subject|title|summary|issue|description)$/.test(key)) {
    const quoted = text.match(QUOTED);
    if (quoted?.length === 1) return { value: (quoted[0] as string).slice(1, -1).trim() };
  }
  if (!asked) return null;
  if (schema.type === "array") {
    // A list asked for: its items, split on commas and "and", each one fitting the item's schema.
    const items = bare(clean)
      .split(/,\s*|\s+and\s+|;\s*/)
      .map((x) => x.trim())
      .filter(Boolean);
    const ok =
      items.length > 0 &&
      items.length <= 20 &&
      items.every(
        (x) =>
          fits(schema.items, x) &&
          // A code its pattern takes ("ME", Montenegro) is no word of a sentence ("me").
          (schema.items?.pattern !== undefined || !sentenceWordIn(x)) &&
          x.split(/\s+/).length <= 4,
      );
    return ok ? { value: items } : null;
  }
  if (identity === "zip") {
    if (schema.pattern) {
      const found = lastTokenMatch(schema.pattern, clean);
      return found === null ? null : { value: found };
    }
    const answer = bare(clean);
    // A postal code is a short run of letters and digits with a digit in it.
    return /^(?=.*\d)[A-Z0-9][A-Z0-9 -]{2,9}$/i.test(answer) ? { value: answer } : null;
  }
  if (schema.pattern) {
    const found = lastTokenMatch(schema.pattern, clean);
    if (found !== null) return { value: found };
  }
  const answer = bare(clean);
  // A question back, or the request said again, is no answer; a note may well start "Please…".
  const note = /(^|_)(note|notes|comment|comments|message|instructions|remarks)$/.test(key);
  if (
    answer === "" ||
    /\?\s*$/.test(answer) ||
    /^(so |can you|could you|i (want|need|said))/i.test(answer) ||
    (!note && /^please /i.test(answer))
  )
    return null;
  // A name, a code or a detail is a few words, never a sentence.
  const detail =
    identity !== null || DETAIL_PARAM.test(key) || /(^|_)(no|ref|reference)$/.test(key);
  // A postal address runs longer than a name or a code ("95 Fennel Way, Dublin D02 X285").
  const most = holdsAddress(key) ? 12 : 5;
  const words = answer.split(/\s+/).length;
  if (detail && (words > most || sentenceWordIn(answer))) return null;
  if (detail && !holdsAddress(key) && words >= 3 && JOINING_WORDS.test(answer)) return null;
  if (answer.length > (schema.maxLength ?? 500)) return null;
  return { value: answer };
}

/** Which parameter the words just before `at` name, by the longest of their spoken `labels`. */
function longestLabelBefore(
  labels: readonly (readonly [param: string, label: string])[],
  text: string,
  at: number,
): string | undefined {
  const before = text
    .slice(Math.max(0, at - 60), at)
    .toLowerCase()
    .replace(/[\s:]+$/, "");
  let best: (typeof labels)[number] | undefined;
  for (const entry of labels)
    if (before.endsWith(entry[1]) && entry[1].length > (best?.[1].length ?? 0)) best = entry;
  return best?.[0];
}

/** Whether a parameter holds a postal address or its street line ("95 Fennel Way, Dublin D02 X285"). */
function holdsAddress(key: string): boolean {
  const identity = identityKey(key);
  return identity === "address" || identity === "street" || /address/.test(key);
}

/** The words after a parameter's name up to the next ", with …" or the end of the sentence. */
function segmentAfter(param: string, text: string): string | null {
  const name = regexLiteral(spokenWords(snake(param))).replace(/ /g, "\\s+");
  const at = new RegExp(`\\b${name}\\b`, "i").exec(text);
  if (!at) return null;
  const rest = text.slice(at.index + at[0].length);
  const end = rest.search(/,?\s+with\s|[.!?](\s|$)|\n/i);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The names a detail goes by in speech, for "label value" answers. */
function labelsOf(param: string): string[] {
  const key = snake(param);
  const identity = identityKey(key);
  const spoken = spokenWords(key);
  const extra: Record<string, string[]> = {
    zip: ["zip code", "zip", "postcode", "post code", "postal code"],
    date_of_birth: ["date of birth", "birth date", "birthday", "dob"],
    first_name: ["first name"],
    last_name: ["last name", "surname"],
    name: ["full name", "name"],
    phone: ["phone number", "phone", "mobile"],
    street: ["street", "address line 1", "first line of the address"],
    address: ["address"],
    city: ["city", "town"],
    state: ["state", "province", "region"],
    country: ["country"],
    email: ["email"],
  };
  return [spoken, ...((identity ? extra[identity] : undefined) ?? [])];
}

/**
 * The money figures of a text, less those it gives other parameters of the tool by name ("with
 * instalment amount 292.72"): those are not the call's own amount, said without its label.
 */
function unclaimedFigures(tool: ToolModel, param: string, text: string): string[] {
  const claimed = new Set<string>();
  for (const other of Object.keys(propertiesOf(tool))) {
    if (other === param) continue;
    const figure = [...(labelledValue(other, text) ?? "").matchAll(MONEY)][0]?.[1];
    if (figure !== undefined) claimed.add(figure);
  }
  return [...text.matchAll(MONEY)]
    .map((m) => m[1] as string)
    .filter((figure) => !claimed.has(figure));
}

/** Counts named after their number: the last word of a detail's name, `number_of_guests` → "guests". */
const countPattern = memoized((key) => {
  const word = key.split("_").at(-1) as string;
  if (word.length < 3 || /^(id|ids|number|num|no|count|amount|total|quantity|qty)$/.test(word))
    return null;
  const stem = regexLiteral(word.replace(/s$/, ""));
  return new RegExp(`(?<![\\w.,-])(\\d{1,6}(?:\\.\\d+)?)\\s+${stem}s?\\b`, "gi");
});

/** The last number said right before its detail's name ("for 3 nights"), or null. */
function countNamed(key: string, text: string): number | null {
  const pattern = countPattern(key);
  if (pattern === null) return null;
  const said = [...text.matchAll(pattern)].at(-1)?.[1];
  return said === undefined ? null : Number(said);
}

/** A detail's label followed by its value, compiled once per parameter name. */
const labelPattern = memoized((param) => {
  const labels = labelsOf(param)
    .sort((a, b) => b.length - a.length)
    .map((l) => regexLiteral(l).replace(/ /g, "\\s+"));
  // "item ids" is not the label inside "new item ids": a direction word before it makes another one.
  const qualified = new RegExp(`^(${QUALIFIERS})_`).test(snake(param));
  const guard = qualified ? "" : `(?<!\\b(?:${QUALIFIERS})\\s)`;
  return new RegExp(`${guard}\\b(?:${labels.join("|")})\\b[:\\s]+([^,;\\n]{1,200})`, "i");
});

/** An address's label, its value up to the next semicolon: an address holds commas. */
const addressLabelPattern = memoized(
  (param) => new RegExp(labelPattern(param).source.replace("[^,;\\n]", "[^;\\n]"), "i"),
);

/**
 * The value after a detail's label, up to the next comma or semicolon; an address, in a list set
 * off by semicolons ("forwarding address 48 Thistle Way, Vancouver V6B 1A1; forwarding postcode
 * …"), up to the next semicolon.
 */
function labelledValue(param: string, text: string): string | null {
  const key = snake(param);
  const address = holdsAddress(key) && !/(address_?line_?2|address2|email)/.test(key);
  const match = (address && text.includes(";") ? addressLabelPattern : labelPattern)(param).exec(
    text,
  );
  if (!match) return null;
  // "I don't have the member id to hand": the label is named, its value is not given.
  if (WITHOUT.test(text.slice(Math.max(0, match.index - 40), match.index))) return null;
  // "the meter reading of my account", "find my account by name and thank you": a label followed
  // by a preposition or a conjunction is a noun, not a label.
  if (/^(of|for|from|to|on|in|at|with|about|by|and|but)\b/i.test(match[1] as string)) return null;
  // The value ends at the next detail ("… with medications …") or the end of its sentence.
  const value = (match[1] as string).split(VALUE_END)[0];
  return (value as string).replace(/\.$/, "").trim();
}

/** Whether a value the agent is about to send fits a parameter the way a careful agent checks it. */
export function fits(schema: SchemaFragment | undefined, value: unknown): boolean {
  if (!schema) return true;
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const kind = Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  const accepted =
    type.length === 0 ||
    type.some(
      (t) =>
        t === kind ||
        (kind === "number" && t === "integer" && Number.isInteger(value)) ||
        (kind === "object" && t === "object"),
    );
  if (!accepted) return false;
  if (Array.isArray(value)) return value.every((v) => fits(schema.items, v));
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  if (typeof value === "string" && schema.pattern) {
    // The value comes from what the person wrote: matched in linear time, whatever the pattern.
    try {
      return linearPattern(schema.pattern).test(value);
    } catch {
      return true;
    }
  }
  return true;
}

function typed(entity: EntityModel, id: string): unknown {
  return entity.idFormat.numeric ? Number(id) : id;
}

function flag(text: string, asked: boolean): Reading {
  if (!asked) return null;
  // "Sure, it's no." is a no; "It's true." is read past its lead-in.
  const said = yesOrNo(text) ?? yesOrNo(bare(text));
  return said === null ? null : { value: said };
}

/** An enum value as the person may write it: `no_longer_needed` as "no longer needed". */
const enumWord = memoized(
  (value) =>
    new RegExp(
      `(^|[^a-z0-9])${regexLiteral(value.toLowerCase()).replace(/[_\s-]+/g, "[ _-]")}($|[^a-z0-9])`,
      "i",
    ),
);

/**
 * Objects from "label value" pairs: "flight number BC1234, date 2026-07-02", several of them
 * joined with "and" or ";" for a list.
 */
function labelledObjects(schema: SchemaFragment, text: string): Reading {
  const item = schema.type === "array" ? schema.items : schema;
  const keys = Object.keys(item?.properties ?? {});
  if (keys.length === 0) return null;
  const labels = keys.map((k) => ({ key: k, label: spokenWords(snake(k)) }));
  const pattern = new RegExp(
    `\\b(${labels
      .map((l) => regexLiteral(l.label))
      .sort((a, b) => b.length - a.length)
      .join("|")})\\s+`,
    "gi",
  );
  const objects: Record<string, unknown>[] = [];
  // Keyed by the schema's property names: no prototype, so `constructor` is not already "in" it.
  let current: Record<string, unknown> = keyed();
  const hits = [...text.matchAll(pattern)];
  hits.forEach((hit, n) => {
    const label = (hit[1] as string).toLowerCase();
    const key = labels.find((l) => l.label === label)?.key as string;
    const end = hits[n + 1]?.index ?? text.length;
    // A value ends where its sentence does, and a closing "and thank you" is not part of it.
    const raw = text
      .slice(hit.index + hit[0].length, end)
      .replace(/[.!?](\s.*)?$/s, "")
      .replace(THANKS_AFTER, "")
      .replace(/[,;.!?]?\s*(and\s*)?$/i, "")
      .replace(/[.!?]+$/, "")
      .trim();
    if (Object.hasOwn(current, key)) {
      objects.push(current);
      current = keyed();
    }
    current[key] = coerce(item?.properties?.[key], raw);
  });
  if (Object.keys(current).length > 0) objects.push(current);
  if (objects.length === 0) return null;
  return { value: schema.type === "array" ? objects : objects[0] };
}

function coerce(schema: SchemaFragment | undefined, raw: string): unknown {
  if (Array.isArray(schema?.enum)) {
    const hit = schema.enum
      .filter((v) => typeof v === "string" && enumWord(v).test(raw))
      .sort((a, b) => String(b).length - String(a).length)[0];
    if (hit !== undefined) return hit;
  }
  if (schema?.format === "date") return /\d{4}-\d{2}-\d{2}/.exec(raw)?.[0] ?? raw;
  if (schema?.type === "integer" || schema?.type === "number") {
    const n = Number(raw.replace(/[^\d.-]/g, ""));
    return Number.isFinite(n) ? n : raw;
  }
  if (schema?.type === "boolean") return /^(yes|true)/i.test(raw);
  return raw;
}

/** Words right after a value that say it is not the person's or not right ("X isn't mine"). */
const DISOWNING =
  /^[\s,.!]{0,3}(isn['’]?t|is not|wasn['’]?t|was not)\s+(mine|my \w+|right|correct)\b|^[\s,.!]{0,3}is wrong\b/i;

/** Whether the person disowns the value where it is said: "ACC-1 isn't mine". */
function disowned(text: string, match: { at: number; value: string }): boolean {
  return DISOWNING.test(
    text.slice(match.at + match.value.length, match.at + match.value.length + 30),
  );
}

/** Whether the words right before `at` name the entity (`reservation`, `reservation id`, `reservation #`). */
function namedBefore(text: string, at: number, entity: string): boolean {
  const before = text.slice(Math.max(0, at - 40), at).toLowerCase();
  return namedPattern(entity).test(before);
}

const namedPattern = memoized(
  (entity: string) =>
    new RegExp(
      `\\b${regexLiteral(entity.replace(/_/g, " "))}(\\s+(id|number|code|no\\.?|ref(erence)?))?\\s*[:#]?\\s*$`,
    ),
);

/** The direction word just before an identifier: "from my account X" → from, "to X" → to. */
function roleBefore(text: string, at: number): "from" | "to" | null {
  const before = text.slice(Math.max(0, at - 30), at).toLowerCase();
  const from = before.lastIndexOf("from ");
  const to = Math.max(before.lastIndexOf("to "), before.lastIndexOf("into "));
  if (from < 0 && to < 0) return null;
  return from > to ? "from" : "to";
}

/** A free-text answer without its lead-in and closing punctuation: "Sure, it's 5 Quay Street." → "5 Quay Street". */
export function bare(text: string): string {
  const said = text
    .trim()
    .replace(
      /^((hello|hi)\b[!,.]?\s*)?((sure|ok|okay|yes|yeah|right)\b[,!.]?\s*)?((it'?s|it is|that'?s|that is|mine is|the [\w ]{1,30}? is|my [\w ]{1,30}? is)\s+)?/i,
      "",
    )
    .replace(THANKS_AT_END, "")
    .replace(/[.!?]+$/, "")
    .trim();
  // Asked for a detail, "HI." is a code (a state's, a country's), not a greeting.
  const word = /^(hi|hello)[.!?]*$/i.exec(text.trim())?.[1];
  return said === "" && word ? word : said;
}

/** Words that may stand before "phone" and still mean the person's own number. */
const OWN_PHONE_WORDS = new Set([
  "my",
  "the",
  "your",
  "a",
  "is",
  "and",
  "with",
  "on",
  "at",
  "me",
  "mobile",
  "cell",
  "home",
  "contact",
  "best",
  "callback",
  "phone",
  "number",
  "it's",
  "its",
  "same",
]);

/** Whether the words before a value label it as another owner's ("pharmacy phone", "doctor's number"). */
function otherOwnersLabel(before: string, param: string): boolean {
  const label = /\b([a-z']+)\s+(?:phone|mobile|telephone)(?:\s+number)?\s*(?:is\s+)?[:]?\s*$/i.exec(
    before,
  );
  if (!label) return false;
  const word = (label[1] as string).toLowerCase().replace(/'s$/, "");
  return !OWN_PHONE_WORDS.has(word) && !param.split("_").includes(word);
}
