import { execFile } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { WebSocketServer } from "ws";
import {
  Agent,
  Episode,
  OfflineWriter,
  offlineUser,
  Planner,
  rowJson,
  SituationPool,
} from "../env/index.ts";
import { copyData } from "../env/util/copy.ts";
import { dealtEpisode, Engine } from "../server/engine.ts";
import { HeldEpisodes } from "../server/held-episodes.ts";
import { type ServeOptions, type ServerHandle, serve } from "../server/index.ts";
import { DEFAULTS, type Row, SERVE_DEFAULTS, type StepResult } from "../spec/index.ts";
import { benchTurn, endsEpisode, RESET_FRAME, stepFrame } from "./server-turns.ts";

const spawnLoad = promisify(execFile);
const SPEC = new URL("../examples/retail-orders.json", import.meta.url).pathname;
const SESSIONS = [1, 64, 512];
/** Engine threads of the second configuration measured: one per core (`rehearse serve --threads`). */
const THREADS = availableParallelism();
const SECONDS = 3;
const WARM_UP_SECONDS = 5;
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
async function load(url: string, sessions: number, seconds = SECONDS): Promise<Measured> {
  const cpuStart = process.cpuUsage();
  const { stdout } = await spawnLoad(
    process.execPath,
    [
      "--import",
      "tsx",
      fileURLToPath(new URL("./server-load.ts", import.meta.url)),
      JSON.stringify({ url, sessions, seconds }),
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

/** The step histogram's lines of `after` less the counts of `before`: the measured load's alone. */
function stepHistogramSince(before: string, after: string): string {
  const counts = new Map(
    [...before.matchAll(/^(rehearse_step_seconds_bucket\{le="[^"]+"\}) (\d+)$/gm)].map((m) => [
      m[1],
      Number(m[2]),
    ]),
  );
  return after.replace(
    /^(rehearse_step_seconds_bucket\{le="[^"]+"\}) (\d+)$/gm,
    (_, name: string, count: string) => `${name} ${Number(count) - (counts.get(name) ?? 0)}`,
  );
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

/** Makes episodes of the retail example as `rehearse serve` deals them, offline person and world. */
async function dealer(): Promise<() => Episode> {
  const agent = await Agent.load(SPEC);
  const situations = new SituationPool(agent, [
    ...new Planner(agent, { rows: DEFAULTS.rows }).walk(),
  ]);
  const roles = { writer: new OfflineWriter(), userModel: offlineUser };
  return () => dealtEpisode({ agent, situations, maxTurns: 1000, ...roles });
}

/**
 * The engine alone, in this process, with no socket, envelope or session: episodes dealt as the
 * server deals them (starting worlds kept, as `rehearse serve` keeps them), each played with the load generator's turns (a lookup, then a question, in
 * turn), its row taken when it ends as the server takes it for a freeze. Steps per second on one
 * core: what any server of this engine could serve at most, on one core.
 */
async function bareEngine(seconds: number): Promise<number> {
  const newEpisode = await dealer();
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let steps = 0;
  while (performance.now() < deadline) {
    const episode = newEpisode();
    let { done } = await episode.reset();
    for (let turn = 1; !done; turn++) {
      ({ done } = await episode.step(benchTurn(turn)));
      steps++;
    }
    episode.row();
  }
  return steps / ((performance.now() - started) / 1000);
}

/** Each turn's frame, written once: the client's work is not the server's, and would be counted as its CPU here. */
const framesOfTurns: Buffer[] = [];
function frameOfTurn(turn: number): Buffer {
  framesOfTurns[turn] ??= Buffer.from(turn === 0 ? RESET_FRAME : stepFrame(turn));
  return framesOfTurns[turn];
}

/**
 * A socket in this process, played by the load generator's rule: each reply it is sent is answered
 * with the next frame (a reset after an episode that ended, else the next step), until the deadline.
 */
class InProcessSocket extends EventEmitter {
  readyState = 1;
  /** Replies are taken at once: nothing waits to go out. */
  readonly bufferedAmount = 0;
  #turn = 0;
  readonly #deadline: number;
  readonly #answered: () => void;
  readonly #finished: () => void;
  constructor(deadline: number, answered: () => void, finished: () => void) {
    super();
    this.#deadline = deadline;
    this.#answered = answered;
    this.#finished = finished;
  }
  send(reply: string): void {
    this.#answered();
    if (performance.now() >= this.#deadline) {
      this.#finished();
      return;
    }
    this.#turn = endsEpisode(reply) ? 0 : this.#turn + 1;
    const frame = frameOfTurn(this.#turn);
    queueMicrotask(() => this.emit("message", frame, false));
  }
  close(): void {
    this.readyState = 3;
  }
  terminate(): void {
    this.readyState = 3;
  }
}

/**
 * The server's own {@link Engine} (connections, sessions, the envelope's decoding, checking and
 * encoding, the freeze's rows sent to a held-episodes thread as the server sends them) serving
 * `sessions` sockets that live in this process, so no byte crosses a real socket: CPU microseconds
 * a frame, every thread of the process counted, what a server of this engine costs before any read
 * or write.
 */
async function inProcessEngine(seconds: number, sessions = 64): Promise<number> {
  const agent = await Agent.load(SPEC);
  const held = await HeldEpisodes.start({
    spec: agent.spec,
    specHash: agent.hash,
    plan: { rows: DEFAULTS.rows, seed: 0, faultRate: DEFAULTS.faultRate, preferSuccess: true },
    limits: { keep: SERVE_DEFAULTS.keepEpisodes, keepBytes: SERVE_DEFAULTS.keepBytes },
    roles: { maxTurns: 1000, simulator: "offline", userModel: "offline" },
    folder: tmpdir(),
  });
  const engine = new Engine({
    limits: { maxSessions: 4096, maxFrameBytes: 1 << 20, stepRate: 1e9, idleTtl: 600 },
    newEpisode: await dealer(),
    hooks: { finished: (row) => held.addLine(rowJson(row, agent)) },
  });
  const deadline = performance.now() + seconds * 1000;
  const cpu = process.cpuUsage();
  let frames = 0;
  await new Promise<void>((resolve) => {
    let open = sessions;
    for (let i = 0; i < sessions; i++) {
      const socket = new InProcessSocket(
        deadline,
        () => frames++,
        () => {
          if (--open === 0) resolve();
        },
      );
      engine.accept(socket as never);
      socket.emit("message", frameOfTurn(0), false);
    }
  });
  const used = process.cpuUsage(cpu);
  await engine.drain(0);
  await held.close();
  return (used.user + used.system) / frames;
}

/** Integer work the CPU cannot skip: `iterations` rounds of a xorshift, its last state returned. */
function burn(iterations: number): number {
  let x = 2463534242;
  for (let i = 0; i < iterations; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
  }
  return x;
}

/** Rounds of {@link burn} a CPU microsecond holds on this machine, timed over 0.2 s of CPU. */
function burnRate(): number {
  const chunk = 100_000;
  burn(chunk);
  const cpu = process.cpuUsage();
  let rounds = 0;
  for (let used = 0; used < 200_000; ) {
    burn(chunk);
    rounds += chunk;
    const spent = process.cpuUsage(cpu);
    used = spent.user + spent.system;
    if (used >= 200_000) return rounds / used;
  }
  return rounds;
}

/**
 * A raw `ws` echo server that spends `microseconds` of CPU on each frame before it echoes it: a
 * server whose only work beyond the socket's is the engine's own. Its rate is the most any server
 * of this engine could serve on this machine, whatever its envelope and sessions cost.
 */
async function workingEcho(microseconds: number): Promise<{ url: string; close(): void }> {
  const rounds = Math.round(microseconds * burnRate());
  const server = new WebSocketServer({ port: 0, host: "127.0.0.1", perMessageDeflate: false });
  server.on("connection", (socket) =>
    socket.on("message", (data, isBinary) => {
      // A xorshift from a state not zero never reaches zero; the test keeps the work's result in use.
      if (burn(rounds) === 0) throw new Error("burn: the xorshift reached zero");
      socket.send(data, { binary: isBinary });
    }),
  );
  await new Promise((resolve) => server.once("listening", resolve));
  return {
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    close() {
      for (const socket of server.clients) socket.terminate();
      server.close();
    },
  };
}

/** One server run: the load generator's figures and the server's /metrics after it. */
interface Best {
  load: Measured;
  metrics: string;
}

/**
 * A server with `threads` engine threads (or around the episodes `createEpisode` makes), warmed by
 * a load of {@link WARM_UP_SECONDS}: each engine thread compiles its hot code anew, as a server that
 * runs for hours has long done. Sessions left by a load expire a second after it, so every load
 * finds the slots free.
 */
async function warmServer(
  freezeDir: string,
  setting: Pick<ServeOptions, "threads" | "createEpisode">,
): Promise<ServerHandle> {
  const server = await serve(SPEC, {
    port: 0,
    maxSessions: 4096,
    stepRate: 1e9,
    maxTurns: 1000,
    idleTtl: 1,
    freezeDir,
    ...setting,
  });
  await load(server.wsUrl, 64, WARM_UP_SECONDS);
  return server;
}

/**
 * An episode that plays back one recorded episode of the retail example (its reset and step results,
 * and its row), with no person, world or grading behind it: a server around it costs what the
 * envelope, sessions, outbox, held rows and sockets cost, and nothing of the episodes.
 */
async function replayingEpisodes(): Promise<NonNullable<ServeOptions["createEpisode"]>> {
  const recorded = (await dealer())();
  const results: StepResult[] = [await recorded.reset()];
  for (let turn = 1; !results[results.length - 1]?.done; turn++)
    results.push(await recorded.step(benchTurn(turn)));
  const row = recorded.row();
  class Replayed extends Episode {
    #at = 0;
    override async reset(): Promise<StepResult> {
      this.#at = 0;
      return copyData(results[0] as StepResult);
    }
    override async step(): Promise<StepResult> {
      this.#at++;
      return copyData(results[this.#at] as StepResult);
    }
    override get done(): boolean {
      return this.#at >= results.length - 1;
    }
    override row(): Row {
      return row;
    }
  }
  return ({ agent, situations }) => new Replayed({ spec: agent, situations });
}

/** One load of `sessions` on a running server, with the server's step histogram for that load alone. */
async function measureServer(server: ServerHandle, sessions: number): Promise<Best> {
  const metrics = async () => (await fetch(`${server.url}/metrics`)).text();
  const before = await metrics();
  const measured = await load(server.wsUrl, sessions);
  return { load: measured, metrics: stepHistogramSince(before, await metrics()) };
}

/** What a freeze asked in the middle of a load did to it, beside the same load without one. */
interface FreezeUnderLoad {
  rows: number;
  seconds: number;
  quiet: Measured;
  frozen: Measured;
}

/**
 * A load of 64 sessions with a freeze of every episode the server holds (up to its 10,000) asked
 * one second in, beside the same load with no freeze just before: how long the freeze took, and
 * what it did to the round trips while it ran.
 */
async function freezeUnderLoad(server: ServerHandle, name: string): Promise<FreezeUnderLoad> {
  const quiet = await load(server.wsUrl, 64);
  const loading = load(server.wsUrl, 64);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const started = performance.now();
  const response = await fetch(`${server.url}/v1/freeze`, {
    method: "POST",
    body: JSON.stringify({ name }),
  });
  const seconds = (performance.now() - started) / 1000;
  if (!response.ok) throw new Error(`the freeze failed: ${await response.text()}`);
  const { rows } = (await response.json()) as { rows: number };
  return { rows, seconds, quiet, frozen: await loading };
}

/** A load's round-trip p99 and longest, in ms. */
function tail(measured: Measured): string {
  const sorted = [...measured.latencies].sort((a, b) => a - b);
  return `${ms(quantile(sorted, 0.99))} / ${ms(sorted.at(-1) ?? Number.NaN)}`;
}

const ms = (value: number) => `${value.toFixed(2)} ms`;
const rate = (measured: Measured) => measured.steps / measured.seconds;

/**
 * Steps per second and step latency of the environment server for 1, 64 and 512 concurrent
 * sessions (offline person and world), with the episodes on the main thread and on one engine
 * thread per core, beside a raw `ws` echo server measured in the same run by the same client;
 * prints the ratio. At 64 sessions, also an echo server that first spends the engine alone's CPU
 * a step: the most any server of this engine could serve here, and the server around episodes that
 * replay a recorded one: what its envelope, sessions and sockets leave of the echo's rate. Both
 * servers run through every size, warmed first; the server-side figures (from /metrics) are each
 * load's alone.
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
  const inProcess = Math.min(await inProcessEngine(SECONDS), await inProcessEngine(SECONDS));
  console.log(
    `  the server's Engine serving 64 sockets in this process (envelope, sessions and freeze rows, no socket I/O), the better of 2 runs: ${inProcess.toFixed(0)} µs CPU a frame, the held-episodes thread's included`,
  );
  const working = await workingEcho(1e6 / bare);
  const freezeDir = await mkdtemp(join(tmpdir(), "rehearse-bench-freeze-"));
  const servers = {
    main: await warmServer(freezeDir, { threads: 0 }),
    threads: await warmServer(freezeDir, { threads: THREADS }),
    replaying: await warmServer(freezeDir, {
      threads: 0,
      createEpisode: await replayingEpisodes(),
    }),
  };
  try {
    for (const sessions of SESSIONS) {
      // Two runs of each, interleaved, the better kept: other work on the machine slows one run, not the figure.
      const best: {
        main: Best | null;
        threads: Best | null;
        echo: Measured | null;
        working: Measured | null;
        replaying: Measured | null;
      } = { main: null, threads: null, echo: null, working: null, replaying: null };
      for (let attempt = 0; attempt < TRIES; attempt++) {
        for (const key of ["main", "threads"] as const) {
          const measured = await measureServer(servers[key], sessions);
          const kept = best[key];
          if (!kept || rate(measured.load) > rate(kept.load)) best[key] = measured;
        }
        const echoed = await load(echoUrl, sessions);
        if (!best.echo || rate(echoed) > rate(best.echo)) best.echo = echoed;
        if (sessions !== 64) continue;
        const worked = await load(working.url, sessions);
        if (!best.working || rate(worked) > rate(best.working)) best.working = worked;
        const replayed = await load(servers.replaying.wsUrl, sessions);
        if (!best.replaying || rate(replayed) > rate(best.replaying)) best.replaying = replayed;
      }
      const raw = best.echo;
      if (!best.main || !best.threads || !raw) throw new Error("no run measured");
      const rawSorted = raw.latencies.sort((a, b) => a - b);
      const goals: string[] = [];
      for (const [label, measured] of [
        ["", best.main],
        [`${THREADS} engine threads`, best.threads],
      ] as const) {
        const env = measured.load;
        const envRate = rate(env);
        const ratio = envRate / rate(raw);
        const envSorted = env.latencies.sort((a, b) => a - b);
        const serverP50 = histogramQuantile(measured.metrics, 0.5) * 1000;
        const serverP99 = histogramQuantile(measured.metrics, 0.99) * 1000;
        console.log(
          `  ${(label ? "" : String(sessions)).padStart(8)} | ${envRate.toFixed(0).padStart(16)} | ${(label ? "" : rate(raw).toFixed(0)).padStart(13)} | ${ratio.toFixed(2).padStart(5)} | ${`${ms(quantile(envSorted, 0.5))} / ${ms(quantile(envSorted, 0.99))}`.padEnd(31)} | ${(label ? "" : `${ms(quantile(rawSorted, 0.5))} / ${ms(quantile(rawSorted, 0.99))}`).padEnd(17)} | ${ms(serverP50)} / ${ms(serverP99)}  (${env.resets} resets)${label ? `  ← ${label}` : ""}`,
        );
        console.log(
          `  ${" ".repeat(8)} | the server keeps ${((envRate / bare) * 100).toFixed(0)}% of the engine alone's steps/s on one core; CPU a frame, server / client: rehearse ${cpuPerFrame(env)}${label ? "" : `, echo ${cpuPerFrame(raw)}`}`,
        );
        goals.push(
          `${label || "episodes on the main thread"}: ratio ≥ ${TARGET_RATIO} ${ratio >= TARGET_RATIO ? "met" : "MISSED"}, server step p99 < ${TARGET_P99_MS} ms ${serverP99 < TARGET_P99_MS ? "met" : "MISSED"}, round-trip p99 < ${TARGET_P99_MS} ms ${quantile(envSorted, 0.99) < TARGET_P99_MS ? "met" : "MISSED"}`,
        );
      }
      if (sessions === 64 && best.working) {
        const ceiling = rate(best.working);
        console.log(
          `  ${" ".repeat(8)} | the echo server spending the engine alone's CPU a step (${(1e6 / bare).toFixed(0)} µs) before each echo: ${ceiling.toFixed(0)} frames/s, ratio ${(ceiling / rate(raw)).toFixed(2)}, the most a server of this engine reaches here; rehearse has ${((rate(best.main.load) / ceiling) * 100).toFixed(0)}% of it, ${((rate(best.threads.load) / ceiling) * 100).toFixed(0)}% with engine threads; CPU a frame, server / client ${cpuPerFrame(best.working)}`,
        );
        if (best.replaying)
          console.log(
            `  ${" ".repeat(8)} | the server around episodes that replay a recorded one (no person, world or grading): ${rate(best.replaying).toFixed(0)} steps/s, ratio ${(rate(best.replaying) / rate(raw)).toFixed(2)}, what the envelope, sessions, held rows and sockets leave of the echo's rate; CPU a frame, server / client ${cpuPerFrame(best.replaying)}`,
          );
        console.log(`  goal at 64 sessions: ${goals.join("; ")}`);
      }
    }
    for (const key of ["main", "threads"] as const) {
      const { rows, seconds, quiet, frozen } = await freezeUnderLoad(servers[key], `${key}.jsonl`);
      console.log(
        `  a freeze under a load of 64 sessions (${key === "main" ? "episodes on the main thread" : `${THREADS} engine threads`}): ${rows} held episodes written in ${seconds.toFixed(2)} s, on the thread that holds them; round trip p99 / longest ${tail(frozen)} during it, ${tail(quiet)} in the same load without a freeze`,
      );
    }
  } finally {
    await Promise.all([servers.main.close(), servers.threads.close(), servers.replaying.close()]);
    working.close();
    await rm(freezeDir, { recursive: true, force: true });
    for (const socket of echo.clients) socket.terminate();
    echo.close();
  }
}
