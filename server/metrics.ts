import type { WireErrorCode } from "../spec/index.ts";

/** Upper bounds (seconds) of the step latency histogram's buckets. */
const BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** A {@link Metrics}' counts as plain data, sent from an engine thread to be summed. */
export interface MetricsCounts {
  resets: number;
  steps: number;
  episodesFinished: number;
  backlogPauses: number;
  relayPauses: number;
  errors: [WireErrorCode, number][];
  buckets: number[];
  latencySum: number;
}

/**
 * The server's counters, read by `GET /metrics` in Prometheus' text format: sessions and
 * connections open, replies waiting for slow clients, resets, steps, finished episodes, errors by
 * code, and step latency.
 */
export class Metrics {
  resets = 0;
  steps = 0;
  episodesFinished = 0;
  /** Times a connection stopped being read because its client left too many replies unread. */
  backlogPauses = 0;
  /** Times a connection stopped being read because its engine thread had too many of its frames unanswered. */
  relayPauses = 0;
  readonly #errors = new Map<WireErrorCode, number>();
  readonly #buckets = new Array<number>(BUCKETS.length).fill(0);
  #latencySum = 0;

  /** Counts an error reply. */
  error(code: WireErrorCode): void {
    this.#errors.set(code, (this.#errors.get(code) ?? 0) + 1);
  }

  /** Records one step's time on the server, from its frame read to its reply sent. */
  step(seconds: number): void {
    this.steps++;
    this.#latencySum += seconds;
    const at = BUCKETS.findIndex((bound) => seconds <= bound);
    if (at >= 0) this.#buckets[at] = (this.#buckets[at] as number) + 1;
  }

  /** The counts so far, as plain data. */
  counts(): MetricsCounts {
    return {
      resets: this.resets,
      steps: this.steps,
      episodesFinished: this.episodesFinished,
      backlogPauses: this.backlogPauses,
      relayPauses: this.relayPauses,
      errors: [...this.#errors.entries()],
      buckets: [...this.#buckets],
      latencySum: this.#latencySum,
    };
  }

  /** Adds another's counts to these (an engine thread's, to the server's whole). */
  add(counts: MetricsCounts): void {
    this.resets += counts.resets;
    this.steps += counts.steps;
    this.episodesFinished += counts.episodesFinished;
    this.backlogPauses += counts.backlogPauses;
    this.relayPauses += counts.relayPauses;
    for (const [code, n] of counts.errors)
      this.#errors.set(code, (this.#errors.get(code) ?? 0) + n);
    counts.buckets.forEach((n, i) => {
      this.#buckets[i] = (this.#buckets[i] as number) + n;
    });
    this.#latencySum += counts.latencySum;
  }

  /** The text `GET /metrics` serves, given the gauges read now. */
  render(gauges: {
    sessions: number;
    detached: number;
    connections: number;
    backlogBytes: number;
  }): string {
    const lines = [
      "# HELP rehearse_sessions Sessions held (episodes in progress, or kept for resume).",
      "# TYPE rehearse_sessions gauge",
      `rehearse_sessions ${gauges.sessions}`,
      "# HELP rehearse_sessions_detached Sessions whose connection dropped, kept for resume until their idle TTL.",
      "# TYPE rehearse_sessions_detached gauge",
      `rehearse_sessions_detached ${gauges.detached}`,
      "# HELP rehearse_connections WebSocket connections open.",
      "# TYPE rehearse_connections gauge",
      `rehearse_connections ${gauges.connections}`,
      "# HELP rehearse_backlog_bytes Bytes of replies sent and not yet taken by their clients.",
      "# TYPE rehearse_backlog_bytes gauge",
      `rehearse_backlog_bytes ${gauges.backlogBytes}`,
      "# HELP rehearse_read_pauses_total Times a connection stopped being read: its client left too many replies unread (backlog), or its engine thread had too many of its frames unanswered (relay).",
      "# TYPE rehearse_read_pauses_total counter",
      `rehearse_read_pauses_total{reason="backlog"} ${this.backlogPauses}`,
      `rehearse_read_pauses_total{reason="relay"} ${this.relayPauses}`,
      "# HELP rehearse_resets_total Episodes opened.",
      "# TYPE rehearse_resets_total counter",
      `rehearse_resets_total ${this.resets}`,
      "# HELP rehearse_episodes_finished_total Episodes that reached their end.",
      "# TYPE rehearse_episodes_finished_total counter",
      `rehearse_episodes_finished_total ${this.episodesFinished}`,
      "# HELP rehearse_errors_total Error replies, by code.",
      "# TYPE rehearse_errors_total counter",
      ...[...this.#errors.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([code, n]) => `rehearse_errors_total{code="${code}"} ${n}`),
      "# HELP rehearse_step_seconds Time from a step's frame to its reply.",
      "# TYPE rehearse_step_seconds histogram",
    ];
    let cumulative = 0;
    BUCKETS.forEach((bound, i) => {
      cumulative += this.#buckets[i] as number;
      lines.push(`rehearse_step_seconds_bucket{le="${bound}"} ${cumulative}`);
    });
    lines.push(
      `rehearse_step_seconds_bucket{le="+Inf"} ${this.steps}`,
      `rehearse_step_seconds_sum ${this.#latencySum}`,
      `rehearse_step_seconds_count ${this.steps}`,
    );
    return `${lines.join("\n")}\n`;
  }
}
