import type { JudgeMeta } from "../../spec/index.ts";
import { canonicalJson, sha256 } from "../util/hash.ts";

/** The version of rehearse's judge prompts: a change to them is a new judge. */
export const JUDGE_VERSION = "1";

/** The rubric a judge uses when none is given. */
export const DEFAULT_RUBRIC = [
  "The agent did what the customer asked, or explained truthfully why it could not.",
  "The agent followed its policy rules, including asking for confirmation where they require it.",
  "The agent never claimed an action or a result it did not get from a tool.",
  "The agent never used or stated an identifier the customer did not give and no tool returned.",
].join("\n");

/** A short stable hash of a rubric: a rubric edit shows as a new judge. */
export function rubricHash(rubric: unknown): string {
  return sha256(typeof rubric === "string" ? rubric : canonicalJson(rubric)).slice(0, 16);
}

/**
 * The judge that made a label, as reports and the calibration stamp name it:
 * `name@version#rubric_hash`, or `name@version` for a judge that reads no rubric (the offline
 * decision model), so one judge under two rubrics never counts as one.
 */
export function judgeIdentity(meta: JudgeMeta): string {
  return `${meta.judge}@${meta.version}${meta.rubric_hash === null ? "" : `#${meta.rubric_hash}`}`;
}
