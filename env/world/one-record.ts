/** The verbs a description opens with when it fetches something. */
const FETCH =
  /^(get|gets|fetch|fetches|retrieve|retrieves|show|shows|return|returns|look up|looks up)\s+/;
/** Where the thing fetched ends: its fields, what it is for, where it is kept. */
const PHRASE_END =
  /[:,.;(]|\s(for|with|of|on|in|from|by|that|which|showing|including|containing|and|or)\s/;
/** Words that end in s and are not plural. */
const NOT_PLURAL = /(ss|us|is|ics)$/;

/**
 * Whether a listing tool's description asks for one record: "Get the current subscription: …",
 * "Get one bill in full", "Get details for a single prescription", "Get a bill statement for the
 * account"; not "List the meters on an account", "Get the insurance plans on file". A tool that
 * reads a record's children by its parent's id answers such a call with one record, not a list.
 */
export function readsOneRecord(description: string): boolean {
  const text = description.trim().toLowerCase();
  const opening = FETCH.exec(text);
  if (!opening) return false;
  // "details for a single prescription" names the record after its details.
  const rest = text
    .slice(opening[0].length)
    .replace(/^(full\s+|all\s+)?details\s+(for|of|on)\s+/, "");
  const article =
    /^(the\s+(current\s+|latest\s+|most recent\s+|active\s+)?|an?\s+(single\s+)?|one\s+)/.exec(
      rest,
    );
  if (!article) return false;
  const phrase = rest.slice(article[0].length).split(PHRASE_END)[0] ?? "";
  const head = phrase.trim().split(/\s+/).at(-1) ?? "";
  if (!/^[a-z]+$/.test(head)) return false;
  return !(head.endsWith("s") && !NOT_PLURAL.test(head));
}
