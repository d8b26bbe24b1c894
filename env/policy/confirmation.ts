/**
 * A sentence asking for the person's go-ahead, in the ways policies say it: "confirm", "get a
 * clear yes", "obtain explicit user confirmation (yes)", "read it back and wait for the guest to
 * agree", "without the customer's explicit agreement", "double-check with the admin".
 */
const ASKS_YES =
  /\b(confirm(s|ed|ing|ation)?|re-?confirm|(explicit|clear|verbal|express) (yes|agreement|consent|approval|ok|go-?ahead|permission)|(a|the|their|his|her) (clear |explicit )?(yes|ok|go-?ahead)\b|say(s)? yes|agree(s|d|ment)?|consent(s|ed)?|approv(e|es|ed|al)|read (it |them |this |that |the [\w ]{1,30}? )?back|double-?check(s|ed)? with|permission (from|of)|\(?\s*yes\s*\/\s*no\s*\)?|(y\/n))\b/i;

/** A clause saying no go-ahead is needed: "confirmation is not needed for a freeze". */
const NO_NEED =
  /\b(not (needed|required|necessary)|no need|needs? no (separate |explicit )?(confirmation|approval|consent|yes)|needn'?t|need not|does ?n[o']t (need|require)|do ?n[o']t (need|require)|without (asking|confirm\w*|a yes|approval|their (ok|agreement))|unnecessary|no (confirmation|approval|consent) (is )?(needed|required|necessary)|can (be done|proceed|go ahead) (straight away|immediately|at once|directly))\b/i;

/** Words that speak of checking who the person is, as an identity rule does. */
export const IDENTITY =
  /\b(authenticat\w*|verif\w+ (the |their |his |her |a )?([\w-]+'s )?(identity|caller|customer|user|patient|guest|member|account ?holder|policyholder|person|requester|admin|employee)|identity (check|verification)|(confirm|check|establish) (the |their )?([\w-]+'s )?identity|(locate|find|look up) (their|the (customer|user|guest|patient)'?s?) (user |customer |account )?(id|account|profile)|know who you are (talking|speaking) (to|with)|(make sure|check|confirm) (that )?you are (talking|speaking) (to|with) the)\b/i;

/** The clauses of a sentence, where requirements and exemptions are read. */
export function clausesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|;\s*|:\s+(?=[A-Z])|,\s+(?=(?:but|while|whereas|although)\b)/)
    .map((c) => c.trim())
    .filter(Boolean);
}

/** "confirm" that is not a go-ahead: a confirmation email, a confirmed booking, a status. */
const NOT_A_YES =
  /\bconfirmation (email|number|code|message|text|sms|page|letter|id)s?\b|\b(a|an|the|any|only|all|each|every) confirmed\b|\bstatus\W{0,3}confirmed\b|\bconfirm (that )?(the |their )?(person|caller|user|customer|admin|member|guest|patient|requester)('s)? (is|are|has|owns|belongs)\b/i;

/** "Don't confirm whether…", "never confirm": confirming as telling, and forbidden. */
const NEGATED_CONFIRM =
  /\b(don'?t|do not|never|must not|mustn'?t|should not|shouldn'?t)\s+(\w+\s+){0,2}confirm/i;

/** "Needs no confirmation": the clause waives a yes instead of asking for one. */
const WAIVES_YES = /\bneeds? no (separate |explicit )?(confirmation|approval|consent|yes)\b/i;

/** A tool description asking for the person's yes before the call ("Ask for explicit user confirmation (yes/no) before calling this"). */
const DESCRIPTION_ASKS_YES =
  /\b(ask (the (user|customer|caller|guest|patient|member|person) )?for (an? )?(explicit |clear )?((user|customer|their) )?(confirmation|yes|approval|consent|go-?ahead)|(explicit|clear) (user |customer )?(confirmation|yes|consent|approval|agreement)|\(\s*yes\s*\/\s*no\s*\)|confirm with the (user|customer|caller|guest|patient|member|person)|only (after|once) the (user|customer|caller|guest|patient|member|person) (confirms|agrees|says yes))\b/i;

/** Whether a clause of a policy asks for the person's go-ahead (and is not about identity or a confirmation email). */
export function asksYes(clause: string): boolean {
  return (
    ASKS_YES.test(clause) &&
    !IDENTITY.test(clause) &&
    !NOT_A_YES.test(clause) &&
    !NO_NEED.test(clause) &&
    !WAIVES_YES.test(clause) &&
    !NEGATED_CONFIRM.test(clause)
  );
}

/** Whether a clause says a go-ahead is not needed ("Lookups need no confirmation", "no need to confirm a freeze"). */
export function waivesYes(clause: string): boolean {
  return (
    ASKS_YES.test(clause) &&
    (NO_NEED.test(clause) || WAIVES_YES.test(clause)) &&
    !IDENTITY.test(clause) &&
    !NOT_A_YES.test(clause)
  );
}

/** Whether a tool's own description asks for the person's go-ahead before it is called. */
export function descriptionAsksYes(description: string): boolean {
  return DESCRIPTION_ASKS_YES.test(description);
}
