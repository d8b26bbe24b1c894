import type { Row } from "../index.ts";

/**
 * An example customer grader for `rehearse grade --grader examples/grader.ts`, built on the
 * episode's outcome: a row passes when the person got what they came for (the world says so, not
 * their last words), the conduct checks found nothing, and the person did not give up. Write your
 * own: it decides what good means for your agent.
 */
export default function grade(row: Row) {
  const outcome = row.episode.outcome;
  if (outcome && !outcome.reached)
    return {
      reward: 0,
      reason: `the person did not get what they came for: ${outcome.reason}`,
      failure_class: "unhelpful" as const,
    };
  const finding = row.conduct[0];
  if (finding) return { reward: 0, reason: finding.detail, failure_class: finding.check };
  if (row.episode.ended_by === "user_gave_up")
    return { reward: 0, reason: "the person gave up", failure_class: "unhelpful" as const };
  if (row.episode.ended_by === "error")
    return {
      reward: 0,
      reason: `the episode broke: ${row.episode.errors[0] ?? "error"}`,
      failure_class: "other" as const,
    };
  return { reward: 1, reason: "goal reached, clean conduct, and the person stayed" };
}
