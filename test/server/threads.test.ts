import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, Episode, InputError, OfflineAgent, rollout } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { RawSocket } from "./harness.ts";

const SPEC = "examples/retail-orders.json";
const THREADS = 2;

let agent: Agent;
let server: ServerHandle;

beforeAll(async () => {
  agent = await Agent.load(SPEC);
  server = await serve(agent, {
    port: 0,
    rows: 12,
    stepRate: 1e6,
    maxSessions: 128,
    threads: THREADS,
  });
});
afterAll(() => server.close());

const say = (content: string) => ({ role: "assistant", content });

/** A counter's value in /metrics text. */
function metric(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

// What the episodes themselves do over engine threads is tested with episode.test.ts and the fuzz
// suite, which run on both; here is what only threads have to get right.
describe("a server on engine threads", () => {
  it("sums every thread's counters in /metrics", async () => {
    const before = await (await fetch(`${server.url}/metrics`)).text();
    const clients = Array.from({ length: 20 }, () => new EnvClient(server.wsUrl));
    await Promise.all(
      clients.map((client, i) =>
        rollout(client, new OfflineAgent().start(agent, 3000 + i), { seed: 3000 + i }),
      ),
    );
    const states = await Promise.all(clients.map((client) => client.state()));
    const steps = states.reduce((sum, state) => sum + state.step_count, 0);
    const during = await (await fetch(`${server.url}/metrics`)).text();
    expect(metric(during, "rehearse_sessions")).toBe(20);
    expect(metric(during, "rehearse_connections")).toBe(20);
    const grew = (name: string) => metric(during, name) - metric(before, name);
    expect(grew("rehearse_step_seconds_count")).toBe(steps);
    expect(grew("rehearse_resets_total")).toBe(20);
    expect(grew("rehearse_episodes_finished_total")).toBe(20);
    await Promise.all(clients.map((client) => client.close()));
  });

  it("resumes a session on whichever thread holds it, and takes it from a connection still open", async () => {
    // Four sessions opened side by side sit on both threads; each is resumed from a fresh socket.
    const firsts = await Promise.all(Array.from({ length: 4 }, () => RawSocket.open(server.wsUrl)));
    const resets = await Promise.all(
      firsts.map((socket, i) => socket.ask({ type: "reset", data: { seed: 30 + i } })),
    );
    const steps = await Promise.all(
      firsts.map((socket, i) =>
        socket.ask({ type: "step", data: { message: say("How can I help?") }, id: i }),
      ),
    );
    for (const [i, reset] of resets.entries()) {
      const second = await RawSocket.open(server.wsUrl);
      const resumed = await second.ask(
        { type: "resume", data: { session_id: reset.data.session_id }, id: "r" },
        i % 2 === 1,
      );
      expect(resumed).toMatchObject({
        type: "state",
        id: "r",
        data: { session_id: reset.data.session_id, step_count: 1, last_id: i },
      });
      expect(resumed.data.last).toEqual(steps[i]?.data);
      expect(await firsts[i]?.closed).toBe(4000);
      const next = await second.ask({ type: "step", data: { message: say("Your order id?") } });
      expect(next.data.observation.turn).toBe(2);
      second.close();
    }
    // JSON may spell the type with escapes: the frame is read whole, not searched for the word.
    const [c, d] = await Promise.all([RawSocket.open(server.wsUrl), RawSocket.open(server.wsUrl)]);
    const escaped = await Promise.all(
      [c, d].map((socket) => (socket as RawSocket).ask({ type: "reset" })),
    );
    for (const reset of escaped) {
      const again = await RawSocket.open(server.wsUrl);
      const resumed = await again.ask(
        `{"type":"\\u0072esume","data":{"session_id":"${reset.data.session_id}"}}`,
      );
      expect(resumed.data.session_id).toBe(reset.data.session_id);
      again.close();
    }
    c?.close();
    d?.close();

    // An id no thread holds, of characters whose close reason passes 123 bytes uncut.
    const unknown = await RawSocket.open(server.wsUrl);
    const refused = await unknown.ask({ type: "resume", data: { session_id: "€".repeat(100) } });
    expect(refused.data.code).toBe("SESSION_ERROR");
    expect(await unknown.closed).toBe(1008);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it("answers every frame sent before a resume, and moves only a connection whose first frame it is", async () => {
    // Two sessions opened side by side sit on different threads; a fresh connection lands on the first.
    const [a, b] = await Promise.all([RawSocket.open(server.wsUrl), RawSocket.open(server.wsUrl)]);
    const [onFirst, onSecond] = await Promise.all([
      (a as RawSocket).ask({ type: "reset" }),
      (b as RawSocket).ask({ type: "reset" }),
    ]);
    for (const reset of [onFirst, onSecond]) {
      const late = await RawSocket.open(server.wsUrl);
      late.send({ type: "state", id: 1 });
      late.send({ type: "resume", data: { session_id: reset.data.session_id }, id: 2 });
      const first = await late.next();
      const second = await late.next();
      expect([first.type, first.id]).toEqual(["state", 1]);
      expect(second.id).toBe(2);
      // Not the first frame: the resume finds the session only on the connection's own thread.
      expect(["state", "error"]).toContain(second.type);
      late.close();
    }
    a?.close();
    b?.close();
  });
});

describe("engine threads share the server's limits and shut down cleanly", () => {
  it("counts sessions against max_sessions on every thread together", async () => {
    const small = await serve(agent, { port: 0, rows: 4, maxSessions: 3, threads: THREADS });
    try {
      const sockets = await Promise.all(
        Array.from({ length: 4 }, () => RawSocket.open(small.wsUrl)),
      );
      for (const socket of sockets.slice(0, 3))
        expect((await socket.ask({ type: "reset" })).type).toBe("observation");
      const refused = await sockets[3]?.ask({ type: "reset" });
      expect(refused.data).toMatchObject({
        code: "CAPACITY_REACHED",
        active_sessions: 3,
        max_sessions: 3,
      });
      expect(await sockets[3]?.closed).toBe(1013);
      sockets[0]?.send({ type: "close" });
      expect(await sockets[0]?.closed).toBe(1000);
      const again = await RawSocket.open(small.wsUrl);
      expect((await again.ask({ type: "reset" })).type).toBe("observation");
      again.close();
      for (const socket of sockets) socket.close();
    } finally {
      await small.close();
    }
  });

  it("finishes the steps in flight before it closes every socket (1001)", async () => {
    const closing = await serve(agent, { port: 0, rows: 4, threads: THREADS });
    const sockets = await Promise.all(
      Array.from({ length: 4 }, () => RawSocket.open(closing.wsUrl)),
    );
    await Promise.all(sockets.map((socket) => socket.ask({ type: "reset" })));
    for (const socket of sockets)
      for (let i = 0; i < 3; i++)
        socket.send({ type: "step", data: { message: say(`Hello? (${i})`) }, id: i });
    // Once each socket's first reply is back, its frames have all reached the server.
    const firsts = await Promise.all(sockets.map((socket) => socket.next()));
    const shutdown = closing.close();
    for (const [s, socket] of sockets.entries()) {
      const replies = [firsts[s], await socket.next(), await socket.next()];
      expect(replies.map((r) => [r.type, r.id])).toEqual([
        ["observation", 0],
        ["observation", 1],
        ["observation", 2],
      ]);
    }
    await shutdown;
    for (const socket of sockets) expect(await socket.closed).toBe(1001);
  });

  it("refuses a grader, roles or an episode factory given as functions, naming the option", async () => {
    await expect(
      serve(agent, { port: 0, threads: 2, grader: () => ({ reward: 1, reason: "ok" }) }),
    ).rejects.toThrow(InputError);
    await expect(
      serve(agent, { port: 0, threads: 2, createEpisode: () => new Episode({ spec: agent }) }),
    ).rejects.toThrow(/createEpisode/);
    await expect(serve(agent, { port: 0, threads: -1 })).rejects.toThrow(/threads/);
  });
});

describe("an engine thread that stops", () => {
  it("closes its connections (1011) and warns; the others serve on, and /health says when none is left", async () => {
    // The threads are caught as they are sent their first batch, to be broken from outside.
    const workers: Worker[] = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (
      this: Worker,
      ...args: Parameters<Worker["postMessage"]>
    ) {
      if (Array.isArray(args[0]) && !workers.includes(this)) workers.push(this);
      return post.apply(this, args);
    };
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(warning.message);
    process.on("warning", warned);
    const small = await serve(agent, { port: 0, rows: 4, maxSessions: 8, threads: THREADS });
    try {
      const [a, b] = await Promise.all([RawSocket.open(small.wsUrl), RawSocket.open(small.wsUrl)]);
      await Promise.all([a, b].map((socket) => (socket as RawSocket).ask({ type: "reset" })));
      expect(workers).toHaveLength(2);
      // A batch no main thread sends: the thread throws on it and stops.
      const broken = workers[0] as Worker;
      const survivor = workers[1] as Worker;
      broken.postMessage(["frame", 0, 42, "frame", 1, 42]);
      const closes = await Promise.race([
        Promise.any([a, b].map((socket) => (socket as RawSocket).closed)),
        new Promise((resolve) => setTimeout(() => resolve("none"), 5_000)),
      ]);
      expect(closes).toBe(1011);
      const open = [a, b].find((socket) => socket?.closeCode === null) as RawSocket;
      expect((await open.ask({ type: "state" })).data.step_count).toBe(0);
      const metrics = await (await fetch(`${small.url}/metrics`)).text();
      expect(metric(metrics, "rehearse_sessions")).toBe(1);
      const fresh = await RawSocket.open(small.wsUrl);
      expect((await fresh.ask({ type: "reset" })).type).toBe("observation");
      expect((await fetch(`${small.url}/health`)).status).toBe(200);
      expect(warnings.some((w) => /engine thread \d stopped/.test(w))).toBe(true);

      survivor.postMessage(["frame", 0, 42, "frame", 1, 42, "frame", 2, 42]);
      await Promise.all([open.closed, fresh.closed]);
      const health = await fetch(`${small.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: "unhealthy" });
    } finally {
      Worker.prototype.postMessage = post;
      process.off("warning", warned);
      await small.close();
    }
  });
});
