/** Most characters a finding quotes as evidence; `evidence.message` leads to the whole message. */
export const EVIDENCE_CHARS = 240;

/** Findings a row lists per check; past them, one more finding of that check counts the rest. */
export const FINDINGS_PER_CHECK = 20;

const ELLIPSIS = "…";

/**
 * The sentence of `text` that holds `value` (found at `at`, else where it first appears), clipped
 * around the value to {@link EVIDENCE_CHARS} with an ellipsis where it was cut. Only a window
 * around the value is read, so a quote costs the same however long the message is.
 */
export function excerpt(text: string, value: string, at = text.indexOf(value)): string {
  if (at < 0) return excerpt(text, "", 0);
  const end = at + value.length;
  const lo = Math.max(0, at - EVIDENCE_CHARS);
  const hi = Math.min(text.length, end + EVIDENCE_CHARS);
  // The sentence starts after the last sentence end before the value and ends at the next one;
  // -1 where the window holds neither, so the sentence runs on past what is read.
  let sentenceStart = lo === 0 ? 0 : -1;
  for (const m of text.slice(lo, at).matchAll(/[.!?]\s+|\n+/g))
    sentenceStart = lo + m.index + m[0].length;
  const stop = /[.!?](?=\s)|\n/.exec(text.slice(end, hi));
  const sentenceEnd = stop
    ? end + stop.index + (stop[0] === "\n" ? 0 : 1)
    : hi === text.length
      ? hi
      : -1;
  let start = Math.max(lo, sentenceStart);
  let finish = sentenceEnd < 0 ? hi : sentenceEnd;
  if (finish - start > EVIDENCE_CHARS) {
    // A long sentence: the value with as much as fits on either side, centred where it can be.
    const room = Math.max(0, EVIDENCE_CHARS - value.length);
    start = Math.max(start, Math.min(at - Math.floor(room / 2), finish - EVIDENCE_CHARS));
    finish = Math.min(finish, start + EVIDENCE_CHARS);
  }
  return clip(text, start, finish, start !== sentenceStart, finish !== sentenceEnd);
}

/**
 * Text without sentences (a call's JSON arguments): whole when it fits in {@link EVIDENCE_CHARS},
 * else the value at `at` with as much as fits on either side, and an ellipsis where it was cut.
 */
export function around(text: string, value: string, at: number): string {
  if (text.length <= EVIDENCE_CHARS) return text;
  const room = Math.max(0, EVIDENCE_CHARS - value.length);
  const start = Math.max(0, Math.min(at - Math.floor(room / 2), text.length - EVIDENCE_CHARS));
  const finish = Math.min(text.length, start + EVIDENCE_CHARS);
  return clip(text, start, finish, start > 0, finish < text.length);
}

/** `text[start, end)` with an ellipsis on each side that was cut, never splitting a surrogate pair. */
function clip(text: string, start: number, end: number, cutLeft: boolean, cutRight: boolean) {
  const from = /[\uDC00-\uDFFF]/.test(text[start] ?? "") ? start + 1 : start;
  const to = /[\uD800-\uDBFF]/.test(text[end - 1] ?? "") ? end - 1 : end;
  return `${cutLeft ? ELLIPSIS : ""}${text.slice(from, to)}${cutRight ? ELLIPSIS : ""}`;
}

/**
 * A row's findings, listing the first {@link FINDINGS_PER_CHECK} of each check. The next one of a
 * check stands for it and all after it: its detail says how many were left out. A finding is built
 * only when it is listed, so a message naming thousands of unknown ids costs no more than twenty.
 */
export class FindingList<F extends { check: string; detail: string }> {
  readonly #listed: F[] = [];
  readonly #counts = new Map<string, number>();
  readonly #standIns = new Map<string, F>();

  /** Counts a finding of `check`, building it with `make` when it is listed. */
  push(check: F["check"], make: () => F): void {
    const n = (this.#counts.get(check) ?? 0) + 1;
    this.#counts.set(check, n);
    if (n > FINDINGS_PER_CHECK + 1) return;
    const finding = make();
    this.#listed.push(finding);
    if (n === FINDINGS_PER_CHECK + 1) this.#standIns.set(check, finding);
  }

  /** The findings to record, in the order they were found. */
  list(): F[] {
    return this.#listed.map((finding) => {
      const standIn = this.#standIns.get(finding.check) === finding;
      if (!standIn) return finding;
      const more = (this.#counts.get(finding.check) as number) - FINDINGS_PER_CHECK;
      return {
        ...finding,
        detail: `${more} more ${finding.check} findings are not listed (a row lists the first ${FINDINGS_PER_CHECK} of a check); the first of them: ${finding.detail}`,
      };
    });
  }
}
