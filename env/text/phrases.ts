/** "(yes/no)", "(y/n)": a choice the person must make now. */
const YES_NO = /\(\s*y(es)?\s*\/\s*n(o)?\s*\)/i;

/**
 * A request for the person's go-ahead before the agent acts ("Shall I cancel it?", "Would you like
 * me to proceed?", "(yes/no)"), as opposed to a request for a detail ("Can I have your email?").
 */
const GO_AHEAD = new RegExp(
  [
    String.raw`\b(shall|should|may|can) i (?!(have|get|ask|see|know|take|grab|help|confirm your|check your)\b)`,
    String.raw`\bgo ahead\b`,
    String.raw`\bproceed\b`,
    String.raw`\bis (that|this|everything|all (of )?(this|that)) (right|correct|ok(ay)?)\b`,
    String.raw`\b(do|would) you (want|like) me to\b`,
    String.raw`\bconfirm (that|whether|if) you\b`,
    String.raw`\bconfirm you('d| would)? (want|like)\b`,
    YES_NO.source,
    String.raw`\bok(ay)? (for me )?to\b`,
    String.raw`\bhow about (i|we)\b`,
  ].join("|"),
  "i",
);

/** The sentences of a message that ask the person something: questions, and "please …" or "could you …" requests. */
export function questionsIn(text: string): string[] {
  return text.split(/(?<=[.!?])\s+/).filter(
    (q) =>
      /\?\s*$/.test(q) ||
      /^(please|could|can|would)\b/i.test(q) ||
      // "What is your email" asks; "What our system shows is X." states.
      (/^(what|which)\b/i.test(q) && !/\.\s*$/.test(q)) ||
      YES_NO.test(q),
  );
}

/** A clause that asks for something other than a yes or no ("What would you like me to do?"). */
const WH_QUESTION = /^\W*(what|which|how(?! about)|where|when|who|why)\b/i;
/** A request the person must answer now: a question, a yes/no choice, or "please confirm …". */
const ANSWER_NOW = new RegExp(String.raw`\?\s*$|${YES_NO.source}|^\W*(please )?confirm\b`, "i");

/**
 * Whether one question asks the person's go-ahead to act: a clause of it asks yes or no about
 * acting ("When you're ready, shall I cancel it?"), and it is not an offer of more help or a mere
 * mention ("Please contact us if you'd like to proceed with a return.").
 */
export function asksGoAhead(question: string): boolean {
  if (!ANSWER_NOW.test(question) || /anything else/i.test(question)) return false;
  return question
    .split(/[,;:]\s+|\s+[-–—]\s+/)
    .some((clause) => GO_AHEAD.test(clause) && !WH_QUESTION.test(clause));
}

/** Whether a message asks the person's go-ahead before the agent acts. */
export function awaitsGoAhead(text: string): boolean {
  return questionsIn(text).some(asksGoAhead);
}

/** Words that open an answer without being it: "Okay, no." says no, "Well, yes." yes. */
const FILLERS =
  /^(?:(?:ok(?:ay)?|alright|all right|right|well|so|oh|ah|hm+|um+|uh+|look|listen|again|as i said|to be clear)\b[\s,.!…-]*)+/;
/** Fillers that are a yes when nothing follows them ("Okay.", "Hmm, alright."). */
const YES_FILLER = /\b(ok(ay)?|alright|all right|right)\b/;
const YES_WORD =
  /^(yes|yeah|yep|yup|sure|correct|please do|go ahead|do it|obviously|absolutely|definitely|of course|confirm(ed)?|true)\b/;
const NO_WORD = /^(no|nope|nah|not|never|false|don'?t|do not)\b/;
/** Openings with a "no" in them that say yes ("No problem.") or say neither ("Not sure."). */
const NO_THAT_IS_YES = /^(no (problem|worries|issue|objection)s?|not a problem|why not)\b/;
const NO_THAT_IS_NEITHER = /^not (sure|certain)\b/;
/** A yes taken back by what follows: "Sure, it's no.", "Yes, no, wait…". */
const TAKEN_BACK = /\b(it'?s|is|that'?s) no\b|\bno,? (wait|stop|don'?t)\b/;

/**
 * The person's answer to a yes-or-no question: true, false, or null when it is neither. What opens
 * the answer decides it, past any filler ("Okay, no." is a no, "Okay." a yes, "No problem." a yes).
 */
export function yesOrNo(text: string): boolean | null {
  const said = text
    .trim()
    .toLowerCase()
    .replace(/^[^a-z0-9']+/, "");
  const answer = said.replace(FILLERS, "");
  if (NO_THAT_IS_YES.test(answer)) return true;
  if (NO_THAT_IS_NEITHER.test(answer)) return null;
  if (NO_WORD.test(answer)) return false;
  const yes = answer === "" ? YES_FILLER.test(said) : YES_WORD.test(answer);
  if (!yes) return null;
  return !TAKEN_BACK.test(said);
}

/** A go-ahead said in passing, past the opening ("I suppose so, go ahead."). */
const GO_AHEAD_SAID = /\b(go ahead|please (do|proceed)|do it|that'?s (right|correct))\b/;

/**
 * Whether a reply to a read-back lets the agent act: a plain yes ("Yes, obviously. You don't need
 * to…"), not a yes with a condition ("Yes, but change the date first"), or a go-ahead said later
 * in a reply that neither opens with a no nor asks to wait.
 */
export function givesGoAhead(text: string): boolean {
  const answer = yesOrNo(text);
  const said = text
    .trim()
    .toLowerCase()
    .replace(/^[^a-z0-9']+/, "");
  if (answer !== null) return answer && !/^[\w']+,? but\b/.test(said.replace(FILLERS, ""));
  if (/^(wait|stop|hold on|cancel)\b/.test(said)) return false;
  return GO_AHEAD_SAID.test(said) && !/\b(isn'?t|not|don'?t|wrong)\b/.test(said);
}
