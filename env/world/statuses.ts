import { lookup } from "../util/lookup.ts";
import { regexLiteral } from "../util/regex.ts";
import { STATUSES } from "./vocabulary.ts";

/**
 * Words that name a record's state, as tool names, descriptions and policies use them. A status a
 * spec spells otherwise (in an output schema's enum) is taken from there.
 */
export const STATUS_WORDS = new Set([
  "pending",
  "processing",
  "processed",
  "confirmed",
  "scheduled",
  "booked",
  "shipped",
  "in_transit",
  "delivered",
  "completed",
  "cancelled",
  "canceled",
  "refunded",
  "returned",
  "exchanged",
  "active",
  "inactive",
  "suspended",
  "expired",
  "open",
  "closed",
  "resolved",
  "draft",
  "submitted",
  "approved",
  "rejected",
  "denied",
  "paid",
  "unpaid",
  "overdue",
  "frozen",
  "blocked",
  "locked",
  "ready",
  "checked_in",
  "checked_out",
  "in_house",
  "no_show",
  "upcoming",
  "posted",
  "reversed",
  "failed",
  "on_hold",
  "waitlisted",
  "in_progress",
  "archived",
  "terminated",
  "lapsed",
  "settled",
  "disputed",
  "verified",
  "issued",
  "filled",
  "dispensed",
  "picked_up",
  "ready_for_pickup",
  "awaiting_authorization",
]);

/** States after which a record can no longer be changed (a cancelled order, a closed account). */
const TERMINAL = new Set([
  "cancelled",
  "canceled",
  "refunded",
  "returned",
  "exchanged",
  "closed",
  "expired",
  "terminated",
  "rejected",
  "denied",
  "reversed",
  "archived",
  "lapsed",
  "checked_out",
  "no_show",
  "completed",
  "resolved",
  "settled",
  "picked_up",
  "dispensed",
  "frozen",
  "declined",
  "withdrawn",
  "void",
  "voided",
  "written_off",
  "discontinued",
  "transferred_out",
  "deactivated",
]);

/** A first word that turns the state after it round: `not_sent` is no kind of sent. */
const NOT_A_KIND = /^(not|non|un|pre)$/;

/** Whether a state is final: a final state, or a kind of one (`late_cancelled`, `rejected_pin`). */
function isFinal(state: string): boolean {
  if (TERMINAL.has(state)) return true;
  const words = state.split("_");
  return !NOT_A_KIND.test(words[0] as string) && words.some((w) => TERMINAL.has(w));
}

/** A record's states: those it can be changed in, and the final ones. */
export interface Statuses {
  usable: string[];
  terminal: string[];
}

/** What a tool needs of its record's status: the states it acts in, and those it refuses. */
export interface Requirement {
  /** The states the tool acts in (empty: any state not excluded). */
  statuses: string[];
  /** The states it refuses. */
  excluded: string[];
  /** Where it was read: the tool's name, its description, or a rule. */
  source: string;
}

/** The states of a record paid in full, and in part. */
export const PAID = /^(paid|paid_in_full|settled)$/;
export const PART_PAID = /^(partially_paid|part_paid|partly_paid|partial)$/;
/** The states of a record that owes nothing more: paid, written off, voided. */
export const OWES_NOTHING = /^(paid|paid_in_full|settled|written_off|waived|void|voided|refunded)$/;

/**
 * Whether a record in `status` is already in the state a tool leaves it in: that state, or a kind
 * of it (`suspended_lost` is suspended).
 */
export function inState(status: string | undefined, after: string): boolean {
  return status === after || (status?.startsWith(`${after}_`) ?? false);
}

/**
 * The state a change leaves its record in: the tool's own word where the entity knows it, else
 * the kind of it the call's details name (`suspend_line(reason: "lost")` → `suspended_lost`), else
 * the first kind the entity knows.
 */
export function stateAfter(
  statuses: Statuses,
  after: string,
  args: Record<string, unknown>,
): string {
  const known = [...statuses.usable, ...statuses.terminal];
  if (known.includes(after)) return after;
  const kinds = known.filter((s) => s.startsWith(`${after}_`));
  const said = Object.values(args)
    .filter((v): v is string => typeof v === "string")
    .map(statusKey);
  return kinds.find((k) => said.includes(k.slice(after.length + 1))) ?? kinds[0] ?? after;
}

/** A status word as a key: lower case, spaces and hyphens as underscores ("in house" → `in_house`). */
export function statusKey(word: string): string {
  return word
    .toLowerCase()
    .trim()
    .replace(/[\s-]+/g, "_");
}

/**
 * The states of an entity: the enums of its `status` fields when a schema gives them, the status
 * words the tools and the policy use for it, and the defaults of its kind; split into usable and
 * final.
 */
export function statusesOf(
  entity: string,
  enums: readonly string[],
  mentioned: readonly string[],
): Statuses {
  const defaults = lookup(STATUSES, entity) ?? (STATUSES.default as Statuses);
  const all =
    enums.length > 0
      ? enums.map(statusKey)
      : [...defaults.usable, ...defaults.terminal, ...mentioned];
  const unique = [...new Set(all)];
  const terminal = unique.filter(
    (s) => defaults.terminal.includes(s) || (isFinal(s) && !defaults.usable.includes(s)),
  );
  const usable = unique.filter((s) => !terminal.includes(s));
  return {
    usable: usable.length > 0 ? usable : defaults.usable,
    terminal: terminal.length > 0 ? terminal : defaults.terminal,
  };
}

/** The states a sentence about status lists in quotes, when it lists two or more. */
export function statesListed(sentence: string): string[] {
  if (!/\bstatus(es)?\b|\bstates?\b/i.test(sentence)) return [];
  const quoted = [...sentence.matchAll(QUOTED_STATE)].map((q) => statusKey(q[1] as string));
  return quoted.length >= 2 ? quoted : [];
}

/** A quoted word or three that may be a state: 'checked_in', "no show". */
export const QUOTED_STATE = /['"‘“]([a-z][a-z_ -]{1,28}[a-z])['"’”]/gi;
/** A view's choice of the records still to come or under way, and one of those over. */
const AHEAD_VIEW = /^(upcoming|future|current|ongoing|open|active|pending|scheduled)$/;
const PAST_VIEW =
  /^(past|previous|history|historical|closed|ended|finished|inactive|archived|old)$/;

/**
 * The states each choice of a view filter lists: those its description names beside it
 * ("'upcoming' returns scheduled and confirmed appointments only"), else the usable states for a
 * choice of what is ahead and the final ones for what is over. A choice read as neither filters
 * nothing.
 */
export function statusViewsOf(
  views: readonly { choices: string[]; description: string }[],
  statuses: Statuses,
): Map<string, string[]> {
  const states = [...statuses.usable, ...statuses.terminal];
  const out = new Map<string, string[]>();
  for (const { choices, description } of views) {
    const clauses = description.split(/(?<=[.;!?])\s+/);
    for (const choice of choices) {
      const own = clauses.filter((c) => {
        const quoted = [...c.matchAll(QUOTED_STATE)].map((q) => statusKey(q[1] as string));
        return quoted.length === 1 && quoted[0] === choice;
      });
      const named = states.filter((state) =>
        own.some((c) =>
          new RegExp(`\\b${regexLiteral(state).replace(/_/g, "[ _-]")}\\b`, "i").test(c),
        ),
      );
      if (named.length > 0) out.set(choice, named);
      else if (AHEAD_VIEW.test(choice)) out.set(choice, statuses.usable);
      else if (PAST_VIEW.test(choice)) out.set(choice, statuses.terminal);
    }
  }
  return out;
}

const NEGATED =
  /\b(not|never|no longer|cannot|can'?t|isn'?t|aren'?t|won'?t|unless|except|fails?|refused?|rejects?|only once .* not)\b|\b\w+n['’]t\b/i;
/** A clause saying what the call leaves the record in, not what it needs ("is created in 'draft' status"). */
const RESULT =
  /\b(will be|becomes?|is set to|are set to|moves? (it )?to|changes? (it )?to|(is|are) (created|marked|put|placed|left) (in|as)|status will|is changed to)\b/i;

/**
 * What a write needs of its record's status, read from its name ("cancel_pending_order" →
 * pending) and description ("Only lines in status 'active' can change plans", "Lines in
 * 'suspended_nonpay' cannot be restored", "Cancel an order that has not shipped yet"), against the
 * entity's own vocabulary. Null when neither says anything about the status.
 */
export function requirementOf(
  nameWords: readonly string[],
  description: string,
  vocabulary: ReadonlySet<string>,
  forms: readonly string[],
): Requirement | null {
  const named = nameWords.map(statusKey).filter((w) => vocabulary.has(w));
  if (named.length > 0) return { statuses: named, excluded: [], source: "its name" };
  const statuses: string[] = [];
  const excluded: string[] = [];
  // Brackets are clauses of their own: "(status 'confirmed')" requires, "(unless turned off)" does
  // not negate the rest. Runs of whitespace are one space first: `\s*[()]` would try a run of
  // thousands of spaces again from each of them.
  for (const clause of description.replace(/\s+/g, " ").split(/(?<=[.;!?]) |; ?|, | ?[()] ?/)) {
    if (RESULT.test(clause)) continue;
    const words = statesIn(clause, vocabulary, forms);
    if (words.length === 0) continue;
    if (NEGATED.test(clause)) excluded.push(...words);
    else statuses.push(...words);
  }
  if (statuses.length === 0 && excluded.length === 0) return null;
  return {
    statuses: [...new Set(statuses)].filter((s) => !excluded.includes(s)),
    excluded: [...new Set(excluded)],
    source: "its description",
  };
}

/** The longest status word read in a description: statuses are a word or three. */
const MOST_STATUS = 64;

/** Words before a status that make it a state ("is pending", "has not shipped", "in status"). */
const STATE_LEAD =
  /\b(status|state|is|are|was|were|isn'?t|aren'?t|not|still|already|currently|only|in)\s+$/;
/** Words before a status that make it a verb ("can be cancelled", "to be returned"). */
const VERB_LEAD = /\b(be|been|being|to|get|gets|got)\s+$/;

/**
 * The states a clause names: its quoted status words when it quotes any; else the status words
 * used as states ("a delivered order", "has not shipped", "status pending"), not as verbs ("can be
 * cancelled").
 */
function statesIn(
  clause: string,
  vocabulary: ReadonlySet<string>,
  forms: readonly string[],
): string[] {
  const quoted = [...clause.matchAll(/['"‘“]([a-z][a-z_ -]{1,28}[a-z])['"’”]/gi)]
    .map((q) => statusKey(q[1] as string))
    .filter((w) => vocabulary.has(w));
  if (quoted.length > 0) return quoted;
  const lower = clause.toLowerCase();
  const found: string[] = [];
  for (const word of vocabulary) {
    // A status from a spec's enum may be any text: it is matched as written, and only if it is
    // as short as a status is.
    if (word.length > MOST_STATUS) continue;
    const pattern = new RegExp(
      `(^|[^a-z_])${regexLiteral(word).replace(/_/g, "[ _-]")}(?=$|[^a-z_])`,
      "g",
    );
    for (const m of lower.matchAll(pattern)) {
      const at = (m.index ?? 0) + (m[1] as string).length;
      const before = lower.slice(Math.max(0, at - 24), at);
      const after = lower.slice(at + m[0].length - (m[1] as string).length);
      const adjective = forms.some((f) => after.startsWith(` ${f}`));
      if (VERB_LEAD.test(before)) continue;
      if (adjective || STATE_LEAD.test(before)) {
        found.push(word);
        break;
      }
    }
  }
  return found;
}

/**
 * Whether a tool that brings records back (`restore_line`, `reopen_ticket`) acts on a final
 * `status`: when its description names that state ("Reopen a closed ticket"), or names none of
 * the record's states. "Restore service on a line suspended as lost, stolen or temporary" names
 * the suspended states, so a closed line is not restored.
 */
export function revivesFrom(description: string, statuses: Statuses, status: string): boolean {
  const said = new Set(description.toLowerCase().match(/[a-z]+/g) ?? []);
  const named = (state: string) => state.split(/[_\s-]+/).every((w) => said.has(w.toLowerCase()));
  return named(status) || ![...statuses.usable, ...statuses.terminal].some(named);
}

/** Whether a record in `status` may be acted on under a requirement. */
export function meets(requirement: Requirement | null, status: string | undefined): boolean {
  if (!requirement || status === undefined) return true;
  const key = statusKey(status);
  if (requirement.excluded.includes(key)) return false;
  return requirement.statuses.length === 0 || requirement.statuses.includes(key);
}
