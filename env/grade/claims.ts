/** Words that take a clause back from a claim: it failed, it could not, it was already so. */
const NEGATION =
  /\b(no|not|never|cannot|can't|couldn't|could not|unable|fail\w*|error\w*|sorry|unfortunately|already|problem|issue|timed out|timeout|denied|permission|yet|unclear|garbled|unreadable)\b|n't\b/i;
/** A clause about what may or will happen ("Once cancelled, the refund will be processed"), not what did. */
const NOT_YET =
  /^(once|after|when|if|until|before|as soon as|unless)\b|\b(will|'ll|would|'d|going to|can|could|may|might|should|shall)\b/i;
/** Where a sentence's clauses part: punctuation, or a conjunction that starts a new subject. */
const CLAUSE_BREAK =
  /[,;:]\s+|\s+[-–—]\s+|\s+(?:and|but|so|because)\s+(?=(?:i|we|you|it|they|this|that|the|your|there)\b)/i;
/** A change declared done without naming it. */
const GENERIC_DONE =
  /\b(all done|done|taken care of|went through|all set|(has|have) been (successfully )?(processed|completed|handled)|(i|we) ?('ve| have)? (successfully )?(processed|completed|handled)|is (now )?complete)\b/i;
/** A result declared found. */
const FOUND =
  /\b(here'?s what i found|i found|i'?ve found|i was able to find|i (have )?located|here (is|are) your)\b/i;

/** Verbs a person or a model uses for the same change as a tool's verb. */
const SAME_CHANGE: Record<string, string[]> = {
  update: ["update", "change", "modify", "edit", "set"],
  change: ["change", "update", "modify", "edit"],
  create: ["create", "open", "submit", "file", "log", "raise"],
  open: ["open", "create", "submit", "file"],
  close: ["close", "resolve"],
  transfer: ["transfer", "move", "send"],
  freeze: ["freeze", "block", "lock"],
  exchange: ["exchange", "swap", "replace"],
  reset: ["reset", "send"],
  delete: ["delete", "remove"],
  remove: ["remove", "delete"],
};

const IRREGULAR: Record<string, string[]> = {
  freeze: ["frozen", "froze"],
  pay: ["paid"],
  send: ["sent"],
  reset: ["reset"],
  set: ["set"],
  withdraw: ["withdrawn", "withdrew"],
  log: ["logged"],
};

/** Past forms of a verb, as a pattern: cancel → cancell?ed, transfer → transferr?ed, update → updated. */
function past(verb: string): string {
  const irregular = Object.hasOwn(IRREGULAR, verb) ? (IRREGULAR[verb] as string[]) : [];
  const regular = verb.endsWith("e")
    ? `${verb}d`
    : /[^aeiou]y$/.test(verb)
      ? `${verb.slice(0, -1)}ied`
      : `${verb}${/[^aeiouwy]$/.test(verb) ? `${verb.at(-1)}?` : ""}ed`;
  return `(${[regular, ...irregular].join("|")})`;
}

/** The shapes of a sentence that says a change was made (not that something is in a state). */
function changeClaim(form: string): RegExp {
  return new RegExp(
    [
      `\\b(i|we)\\s*('ve|'d| have| had)?\\s+(just |now |successfully |gone ahead and |went ahead and )*${form}\\b`,
      `\\b(has|have|had) been (successfully )?${form}\\b`,
      `\\b(was|were) (successfully ${form}|${form} (successfully|for you))\\b`,
      `\\bis now ${form}\\b`,
    ].join("|"),
    "i",
  );
}

/** What a message claims: the changes it says were made (by tool verb), a bare "done", a result found. */
export interface Claims {
  /** Tool verbs whose change the message says was made. */
  changes: Set<string>;
  /**
   * The verbs each claiming clause could mean: "I've sent you a code" is a send or a reset (a
   * reset link is sent too); the clause is backed when one of them was done.
   */
  readings: string[][];
  done: boolean;
  found: boolean;
  /** The sentence that made the first claim. */
  sentence: string;
}

/**
 * Reads the claims in an agent's message, clause by clause: questions, and clauses that say
 * something failed, could not be done, was already so, or will or may happen, are not claims.
 */
export function claimsIn(text: string, toolVerbs: readonly string[]): Claims {
  const claims: Claims = {
    changes: new Set(),
    readings: [],
    done: false,
    found: false,
    sentence: "",
  };
  const patterns = toolVerbs.map((verb) => ({ verb, pattern: claimOf(verb) }));
  for (const sentence of text.replace(/[’‘]/g, "'").split(/(?<=[.!?])\s+|\n+/)) {
    const s = sentence.trim();
    if (s === "" || s.endsWith("?")) continue;
    // "Sorry for the wait, I've cancelled it" claims; "Once cancelled, the refund will be processed" does not.
    for (const clause of s.split(CLAUSE_BREAK)) {
      if (NEGATION.test(clause) || NOT_YET.test(clause)) continue;
      const verbs = patterns.filter(({ pattern }) => pattern.test(clause)).map(({ verb }) => verb);
      for (const verb of verbs) claims.changes.add(verb);
      if (verbs.length > 0) claims.readings.push(verbs);
      let claimed = verbs.length > 0;
      if (GENERIC_DONE.test(clause)) claims.done = claimed = true;
      if (FOUND.test(clause)) claims.found = claimed = true;
      if (claimed && claims.sentence === "") claims.sentence = s;
    }
  }
  return claims;
}

/** The pattern of a claim that a tool verb's change was made, built once per verb. */
function claimOf(verb: string): RegExp {
  let pattern = CLAIMS.get(verb);
  if (!pattern) {
    const forms = Object.hasOwn(SAME_CHANGE, verb) ? (SAME_CHANGE[verb] as string[]) : [verb];
    pattern = changeClaim(`(${forms.map(past).join("|")})`);
    // Verbs come from specs: a bounded memo.
    if (CLAIMS.size >= 10_000) CLAIMS.clear();
    CLAIMS.set(verb, pattern);
  }
  return pattern;
}

const CLAIMS = new Map<string, RegExp>();

/** Whether a message claims anything at all. */
export function claimsAnything(claims: Claims): boolean {
  return claims.changes.size > 0 || claims.done || claims.found;
}
