import { randomUUID } from "node:crypto";
import { type Episode, type Grader, messageOf } from "../env/index.ts";
import {
  type Grade,
  GradeSchema,
  type ObservationData,
  type RequestId,
  type ResetRequest,
  type RewardReport,
  type Row,
  type SessionState,
} from "../spec/index.ts";
import { StepBucket } from "./limits.ts";

/** What a session needs from the server: the grader, if any, and where finished episodes go. */
export interface SessionHooks {
  grader?: Grader;
  /** Called with each finished episode's row (for `POST /v1/freeze`). */
  finished(row: Row): void;
}

/**
 * One client's episode on the server: the same {@link Episode} `simulate()` runs, its work done
 * one call at a time, the last result kept (with the request it answered) so a client whose
 * connection dropped can resume and learn whether its step ran.
 */
export class Session {
  readonly id = randomUUID();
  readonly episode: Episode;
  readonly bucket: StepBucket;
  /** The connection attached, or null while the session waits for a resume. */
  connection: { takeOver(): void } | null = null;
  /** When the session last did something (ms, performance.now()). */
  lastActive = performance.now();
  #stepCount = 0;
  #last: ObservationData | null = null;
  #lastId: RequestId | null = null;
  #tail: Promise<unknown> = Promise.resolve();
  #graded: { grade?: Grade; error?: string } | null = null;
  readonly #hooks: SessionHooks;

  constructor(episode: Episode, stepRate: number, hooks: SessionHooks) {
    this.episode = episode;
    this.bucket = new StepBucket(stepRate);
    this.#hooks = hooks;
  }

  /** Runs `work` after the session's earlier work, so calls never interleave inside the episode. */
  run<T>(work: () => Promise<T> | T): Promise<T> {
    const next = this.#tail.then(work);
    this.#tail = next.catch(() => {});
    return next;
  }

  /** Waits for the work in flight (a resume answers once the step it may be asking about is done). */
  settled(): Promise<unknown> {
    return this.#tail;
  }

  /** Opens a new episode; the reply carries the session id a resume names. */
  async reset(request: ResetRequest, id: RequestId | null): Promise<ObservationData> {
    const result = await this.episode.reset(request);
    this.#stepCount = 0;
    this.#graded = null;
    return this.#keep({ ...result, session_id: this.id }, id);
  }

  /** Takes the agent's message; at the end, grades the episode and hands its row on. */
  async step(message: unknown, id: RequestId | null): Promise<ObservationData> {
    const result: ObservationData = await this.episode.step(message);
    this.#stepCount++;
    if (result.done) {
      const row = this.episode.row();
      this.#hooks.finished(row);
      const graded = await this.#grade(row);
      if (graded.grade) result.reward = graded.grade.reward;
    }
    return this.#keep(result, id);
  }

  /** The full grade: the episode's own, and the grader's verdict once the episode is done. */
  async reward(): Promise<RewardReport> {
    const own = this.episode.reward();
    const report: RewardReport = { ...own, done: this.episode.done };
    if (!this.episode.done || !this.#hooks.grader) return report;
    // Asked once: a row is built for the grader only the first time.
    const graded = this.#graded ?? (await this.#grade(this.episode.row()));
    if (graded.error !== undefined) return { ...report, grade_error: graded.error };
    const grade = graded.grade as Grade;
    return {
      ...report,
      reward: grade.reward,
      reason: grade.reason,
      ...(grade.failure_class ? { failure_class: grade.failure_class } : {}),
      grader: grade,
    };
  }

  /** OpenEnv's state (`episode_id`, `step_count`) with the session's id and the episode's coordinates. */
  state(withLast = false): SessionState {
    const metadata = this.#last?.observation.metadata;
    return {
      episode_id: metadata?.episode_id ?? null,
      step_count: this.#stepCount,
      session_id: this.id,
      task_id: metadata?.task_id ?? null,
      seed: metadata?.seed ?? null,
      done: this.#last?.done ?? false,
      truncated: this.#last?.observation.truncated ?? false,
      ...(withLast ? { last: this.#last, last_id: this.#lastId } : {}),
    };
  }

  /** The grader's verdict on the finished row, asked once. */
  async #grade(row: Row): Promise<{ grade?: Grade; error?: string }> {
    const grader = this.#hooks.grader;
    if (!grader) return {};
    if (!this.#graded) {
      try {
        const verdict = GradeSchema.safeParse(await grader(row));
        this.#graded = verdict.success
          ? { grade: verdict.data }
          : {
              error: `grader: expected {reward, reason, failure_class?}: ${verdict.error.issues.map((i) => `${i.path.join(".") || "(the result)"}: ${i.message}`).join("; ")}`,
            };
      } catch (error) {
        this.#graded = { error: `grader: ${messageOf(error)}` };
      }
    }
    return this.#graded;
  }

  #keep(result: ObservationData, id: RequestId | null): ObservationData {
    this.#last = result;
    this.#lastId = id;
    this.lastActive = performance.now();
    return result;
  }
}

/** A session's state before any reset: OpenEnv's empty state. */
export const NO_SESSION_STATE: SessionState = {
  episode_id: null,
  step_count: 0,
  session_id: null,
  task_id: null,
  seed: null,
  done: false,
  truncated: false,
};
