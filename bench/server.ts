import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WebSocketServer } from "ws";
import {
  Agent,
  Episode,
  OfflineWriter,
  offlineUser,
  Planner,
  SituationPool,
} from "../env/index.ts";
import { serve } from "../server/index.ts";
import { DEFAULTS } from "../spec/index.ts";
import { benchTurn } from "./server-turns.ts";

const spawnLoad = promisify(execFile);
const SPEC = new URL("../examples/retail-orders.json", import.meta.url).pathname;
const SESSIONS = [1, 64, 512];
const SECONDS = 3;
const TRIES = 2;
/** Aims at 64 sessions: at least half the raw echo server's rate, and a step p99 under 5 ms. */
const TARGET_RATIO = 0.5;
const TARGET_P99_MS = 5;

interface Measured {
  steps: number;
  resets: number;
  seconds: number;
  latencies: number[];
  /** CPU seconds of the load generator's process while its sessions ran. */
  clientCpuSeconds: number;
  /** CPU seconds of this process (the server under test, every thread) while the load ran. */
  serverCpuSeconds: number;
}

/** Runs the load generator (bench/server-load.ts) as its own process, on its own core, against `url`. */
async function load(url: string, sessions: number): Promise<Measured> {
  const cpuStart = process.cpuUsage();
  const { stdout } = await spawnLoad(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./server-load.ts", import.meta.url)),
      JSON.stringify({ url, sessions, seconds: SECONDS }),
    ],
    { maxBuffer: 256 * 1024 * 1024 },
  );
  const cpu = process.cpuUsage(cpuStart);
  return { ...JSON.parse(stdout), serverCpuSeconds: (cpu.user + cpu.system) / 1e6 } as Measured;
}

/** CPU microseconds a frame (a step or a reset) of the server and of the client. */
function cpuPerFrame(measured: Measured): string {
  const frames = measured.steps + measured.resets;
  const per = (seconds: number) => ((seconds * 1e6) / frames).toFixed(0);
  return `${per(measured.serverCpuSeconds)} / ${per(measured.clientCpuSeconds)} µs`;
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
}

/** p-quantile of the server's own step time, from its Prometheus histogram (as histogram_quantile reads it). */
function histogramQuantile(metrics: string, q: number): number {
  const buckets = [...metrics.matchAll(/rehearse_step_seconds_bucket\{le="([^"]+)"\} (\d+)/g)].map(
    (m) => ({ le: m[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[1]), count: Number(m[2]) }),
  );
  const total = buckets.at(-1)?.count ?? 0;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of buckets) {
    if (count >= rank) {
      if (!Number.isFinite(le)) return lower;
      return lower + ((le - lower) * (rank - below)) / Math.max(1, count - below);
    }
    lower = le;
    below = count;
  }
  return Number.NaN;
}

/**
 * The engine alone, in this process, with no socket, envelope or session: episodes dealt as the
 * server deals them (starting worlds kept, as `rehearse serve` keeps them), each played with the load generator's turns (a lookup, then a question, in
 * turn), its row taken when it ends as the server takes it for a freeze. Steps per second on one
 * core: what any server of this engine could serve at most, on one core.
 */
async function bareEngine(seconds: number): Promise<number> {
  const agent = await Agent.load(SPEC);
  const plan = new Planner(agent, { rows: DEFAULTS.rows });
  const situations = new SituationPool(agent, [...plan.walk()]);
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let steps = 0;
  while (performance.now() < deadline) {
    const episode = new Episode({
      spec: agent,
      situations,
      maxTurns: 1000,
      writer: new OfflineWriter(),
      userModel: offlineUser,
      keepStart: true,
    });
    let { done } = await episode.reset();
    for (let turn = 1; !done; turn++) {
      ({ done } = await episode.step(benchTurn(turn)));
      steps++;
    }
    episode.row();
  }
  return steps / ((performance.now() - started) / 1000);
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const rate = (measured: Measured) => measured.steps / measured.seconds;

/**
 * Steps per second and step latency of the environment server for 1, 64 and 512 concurrent
 * sessions (offline person and world), beside a raw `ws` echo server measured in the same run by
 * the same client; prints the ratio. Each size runs against a fresh server, so the server-side
 * figures (from /metrics) are that size's alone.
 */
export async function run(): Promise<void> {
  const echo = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
  echo.on("connection", (socket) =>
    socket.on("message", (data, isBinary) => socket.send(data, { binary: isBinary })),
  );
  await new Promise((resolve) => echo.once("listening", resolve));
  const echoUrl = `ws://127.0.0.1:${(echo.address() as { port: number }).port}`;
  console.log(
    `server: steps/s, the better of ${TRIES} runs of ${SECONDS} s, client in its own process (retail example, offline person and world; a lookup and a question in turn, a reset after each episode)`,
  );
  console.log(
    "  sessions | rehearse steps/s | echo frames/s | ratio | round trip p50 / p99 (rehearse) | (echo)            | server step p50 / p99",
  );
  const bare = Math.max(await bareEngine(SECONDS), await bareEngine(SECONDS));
  console.log(
    `  the engine alone in this process (no socket, envelope or session), the better of 2 runs: ${bare.toFixed(0)} steps/s on one core`,
  );
  try {
    for (const sessions of SESSIONS) {
      // Two runs of each, interleaved, the better kept: other work on the machine slows one run, not the figure.
      let env: Measured | null = null;
      let raw: Measured | null = null;
      let metrics = "";
      for (let attempt = 0; attempt < TRIES; attempt++) {
        const server = await serve(SPEC, {
          port: 0,
          maxSessions: 1024,
          stepRate: 1e9,
          maxTurns: 1000,
          idleTtl: 600,
        });
        try {
          const measured = await load(server.wsUrl, sessions);
          if (!env || rate(measured) > rate(env)) {
            env = measured;
            metrics = await (await fetch(`${server.url}/metrics`)).text();
          }
        } finally {
          await server.close();
        }
        const echoed = await load(echoUrl, sessions);
        if (!raw || rate(echoed) > rate(raw)) raw = echoed;
      }
      if (!env || !raw) throw new Error("no run measured");
      const envRate = rate(env);
      const rawRate = rate(raw);
      const envSorted = env.latencies.sort((a, b) => a - b);
      const rawSorted = raw.latencies.sort((a, b) => a - b);
      const serverP50 = histogramQuantile(metrics, 0.5) * 1000;
      const serverP99 = histogramQuantile(metrics, 0.99) * 1000;
      const ratio = envRate / rawRate;
      console.log(
        `  ${String(sessions).padStart(8)} | ${envRate.toFixed(0).padStart(16)} | ${rawRate.toFixed(0).padStart(13)} | ${ratio.toFixed(2).padStart(5)} | ${`${ms(quantile(envSorted, 0.5))} / ${ms(quantile(envSorted, 0.99))}`.padEnd(31)} | ${`${ms(quantile(rawSorted, 0.5))} / ${ms(quantile(rawSorted, 0.99))}`.padEnd(17)} | ${ms(serverP50)} / ${ms(serverP99)}  (${env.resets} resets)`,
      );
      console.log(
        `  ${" ".repeat(8)} | the server keeps ${((envRate / bare) * 100).toFixed(0)}% of the engine alone's steps/s; CPU a frame, server / client: rehearse ${cpuPerFrame(env)}, echo ${cpuPerFrame(raw)}`,
      );
      if (sessions === 64)
        console.log(
          `  goal at 64 sessions: ratio ≥ ${TARGET_RATIO} (${ratio >= TARGET_RATIO ? "met" : "MISSED"}), server step p99 < ${TARGET_P99_MS} ms (${serverP99 < TARGET_P99_MS ? "met" : "MISSED"}), round-trip p99 < ${TARGET_P99_MS} ms (${quantile(envSorted, 0.99) < TARGET_P99_MS ? "met" : "MISSED"})`,
        );
    }
  } finally {
    for (const socket of echo.clients) socket.terminate();
    echo.close();
  }
}
