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
  return text
    .split(/(?<=[.!?])\s+/)
    .filter(
      (q) =>
        /\?\s*$/.test(q) || /^(please|could|can|would|what|which)\b/i.test(q) || YES_NO.test(q),
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
