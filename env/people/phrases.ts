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
    String.raw`\(\s*y(es)?\s*\/\s*n(o)?\s*\)`,
    String.raw`\bok(ay)? (for me )?to\b`,
  ].join("|"),
  "i",
);

/** The sentences of a message that ask the person something: questions, and "please …" or "could you …" requests. */
export function questionsIn(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .filter(
      (q) =>
        /\?\s*$/.test(q) ||
        /^(please|could|can|would|what|which)\b/i.test(q) ||
        /\(\s*y(es)?\s*\/\s*n(o)?\s*\)/i.test(q),
    );
}

/** Whether one question asks the person's go-ahead to act: a yes/no question, not "What would you like me to do?" nor an offer of more help. */
export function asksGoAhead(question: string): boolean {
  return (
    GO_AHEAD.test(question) &&
    !/^\W*(what|which|how|where|when|who|why)\b/i.test(question) &&
    !/anything else/i.test(question)
  );
}

/** Whether a message asks the person's go-ahead before the agent acts. */
export function awaitsGoAhead(text: string): boolean {
  return questionsIn(text).some(asksGoAhead);
}
