import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, Episode, Planner, type Situation } from "../../index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { RawSocket, type Reply } from "./harness.ts";

const SPEC = "examples/retail-orders.json";
let agent: Agent;
let server: ServerHandle;

beforeAll(async () => {
  agent = await Agent.load(SPEC);
  server = await serve(agent, { port: 0, rows: 8, maxFrameBytes: 4096, stepRate: 1e6 });
});
afterAll(() => server.close());

const say = (content: string) => ({ role: "assistant", content });

/** The connection still answers: a state request gets a state reply. */
async function stillUsable(socket: RawSocket, binary = false): Promise<void> {
  const reply = await socket.ask({ type: "state", id: "check" }, binary);
  expect(reply).toMatchObject({ type: "state", id: "check" });
}

describe("every error code, answered on the connection", () => {
  it.each([false, true])(
    "INVALID_JSON, UNKNOWN_TYPE, VALIDATION_ERROR and EXECUTION_ERROR keep the connection usable (binary %s)",
    async (binary) => {
      const socket = await RawSocket.open(server.wsUrl);
      socket.send(binary ? Buffer.from([0xc1, 0xff, 0x00]) : "{not json", binary);
      expect((await socket.next()).data.code).toBe("INVALID_JSON");
      socket.send(binary ? Buffer.from([0x93, 1, 2, 3]) : "[1,2,3]", binary);
      expect((await socket.next()).data.code).toBe("INVALID_JSON");
      await stillUsable(socket, binary);

      const unknown = await socket.ask({ type: "jump", id: 7 }, binary);
      expect(unknown).toMatchObject({ type: "error", id: 7, data: { code: "UNKNOWN_TYPE" } });
      await stillUsable(socket, binary);

      const stepFirst = await socket.ask({ type: "step", data: { message: say("hi") } }, binary);
      expect(stepFirst.data).toMatchObject({ code: "EXECUTION_ERROR" });
      expect(stepFirst.data.message).toMatch(/step before reset/);
      const rewardFirst = await socket.ask({ type: "reward" }, binary);
      expect(rewardFirst.data.code).toBe("EXECUTION_ERROR");

      const badReset = await socket.ask(
        { type: "reset", data: { seed: -1, colour: "red" }, id: "r" },
        binary,
      );
      expect(badReset).toMatchObject({
        type: "error",
        id: "r",
        data: { code: "VALIDATION_ERROR" },
      });
      expect(badReset.data.errors).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ path: "data.seed" }),
          expect.objectContaining({ message: expect.stringContaining("colour") }),
        ]),
      );
      const noTask = await socket.ask(
        { type: "reset", data: { task_id: "sit_0000000000000000" } },
        binary,
      );
      expect(noTask.data.code).toBe("VALIDATION_ERROR");
      expect(noTask.data.errors[0].path).toBe("task_id");

      const opened = await socket.ask({ type: "reset", data: { seed: 4 } }, binary);
      expect(opened.type).toBe("observation");
      const badStep = await socket.ask(
        { type: "step", data: { message: { role: "user", content: "x" } } },
        binary,
      );
      expect(badStep.data).toMatchObject({ code: "VALIDATION_ERROR" });
      expect(badStep.data.errors[0].path).toBe("role");
      const noMessage = await socket.ask({ type: "step", data: {} }, binary);
      expect(noMessage.data.code).toBe("VALIDATION_ERROR");
      const oversize = await socket.ask(
        { type: "step", data: { message: say("x".repeat(5000)) } },
        binary,
      );
      expect(oversize.data.code).toBe("VALIDATION_ERROR");
      expect(oversize.data.message).toMatch(/over the server's limit of 4096/);
      // Nothing of the refused messages ran: the episode is where the reset left it.
      const state = await socket.ask({ type: "state" }, binary);
      expect(state.data).toMatchObject({ step_count: 0, done: false });
      const step = await socket.ask(
        { type: "step", data: { message: say("How can I help?") } },
        binary,
      );
      expect(step.type).toBe("observation");
      socket.close();
    },
  );

  it("INVALID_JSON for MessagePack with msgpackr's shared references, which standard MessagePack has not", async () => {
    // One object reached by many paths: 300 bytes that would decode into 4^7 paths, or 2^24 for
    // a 500-byte frame, which the server once spent seconds decoding and checking.
    let shared: unknown = 1;
    for (let level = 0; level < 7; level++)
      shared = Object.fromEntries(["a", "b", "c", "d"].map((key) => [key, shared]));
    const sharing = new Packr({ structuredClone: true, useRecords: false });
    const socket = await RawSocket.open(server.wsUrl);
    await socket.ask({ type: "reset" }, true);
    socket.send(
      sharing.pack({
        type: "step",
        id: 1,
        data: { message: { role: "assistant", content: "hi", sampling: shared } },
      }),
      true,
    );
    const refused = await socket.next();
    expect(refused.data).toMatchObject({ code: "INVALID_JSON" });
    expect(refused.data.message).toMatch(/Structured clone extension is disabled/);
    await stillUsable(socket, true);
    socket.close();
  });

  it("EXECUTION_ERROR for a step after the episode is over", async () => {
    const socket = await RawSocket.open(server.wsUrl);
    await socket.ask({ type: "reset", data: { seed: 1 } });
    let reply: Reply;
    for (let i = 0; i < 20; i++) {
      reply = await socket.ask({ type: "step", data: { message: say(`Anything else? (${i})`) } });
      if (reply.data.done) break;
    }
    expect(reply.data.done).toBe(true);
    expect(typeof reply.data.reward).toBe("number");
    const after = await socket.ask({ type: "step", data: { message: say("still there?") } });
    expect(after.data.code).toBe("EXECUTION_ERROR");
    expect(after.data.message).toMatch(/over/);
    await stillUsable(socket);
    socket.close();
  });

  it("CAPACITY_REACHED with active_sessions and max_sessions closes the connection; a closed session frees its slot", async () => {
    const small = await serve(agent, { port: 0, rows: 4, maxSessions: 2 });
    try {
      const a = await RawSocket.open(small.wsUrl);
      const b = await RawSocket.open(small.wsUrl);
      const c = await RawSocket.open(small.wsUrl);
      expect((await a.ask({ type: "reset" })).type).toBe("observation");
      expect((await b.ask({ type: "reset" })).type).toBe("observation");
      const refused = await c.ask({ type: "reset" });
      expect(refused.data).toMatchObject({
        code: "CAPACITY_REACHED",
        active_sessions: 2,
        max_sessions: 2,
      });
      expect(await c.closed).toBe(1013);
      a.send({ type: "close" });
      expect(await a.closed).toBe(1000);
      const d = await RawSocket.open(small.wsUrl);
      expect((await d.ask({ type: "reset" })).type).toBe("observation");
      b.close();
      d.close();
    } finally {
      await small.close();
    }
  });

  it("runs no frame after one that closes the connection: a reset sent behind it opens no session", async () => {
    const small = await serve(agent, { port: 0, rows: 4, maxSessions: 2 });
    try {
      const closing = await RawSocket.open(small.wsUrl);
      expect((await closing.ask({ type: "reset" })).type).toBe("observation");
      closing.send({ type: "close" });
      closing.send({ type: "reset", id: 2 });
      expect(await closing.closed).toBe(1000);
      const refused = await RawSocket.open(small.wsUrl);
      refused.send({ type: "resume", data: { session_id: "no-such-session" } });
      refused.send({ type: "reset", id: 2 });
      expect(await refused.closed).toBe(1008);
      expect(refused.replies.map((reply: Reply) => reply.data.code)).toEqual(["SESSION_ERROR"]);
      // Both slots are free: neither reset behind a close took one.
      for (const socket of [await RawSocket.open(small.wsUrl), await RawSocket.open(small.wsUrl)]) {
        expect((await socket.ask({ type: "reset" })).type).toBe("observation");
        socket.close();
      }
    } finally {
      await small.close();
    }
  });

  it("FACTORY_ERROR when the episode cannot be made closes the connection", async () => {
    const broken = await serve(agent, {
      port: 0,
      rows: 4,
      createEpisode: () => {
        throw new Error("no GPU left");
      },
    });
    try {
      const socket = await RawSocket.open(broken.wsUrl);
      const reply = await socket.ask({ type: "reset", id: 1 });
      expect(reply).toMatchObject({ id: 1, data: { code: "FACTORY_ERROR" } });
      expect(reply.data.message).toMatch(/no GPU left/);
      expect(await socket.closed).toBe(1011);
    } finally {
      await broken.close();
    }
  });

  it("SESSION_ERROR for a session that cannot be resumed closes the connection", async () => {
    const socket = await RawSocket.open(server.wsUrl);
    const reply = await socket.ask({ type: "resume", data: { session_id: "no-such-session" } });
    expect(reply.data.code).toBe("SESSION_ERROR");
    expect(await socket.closed).toBe(1008);
    // A close reason names the id, cut to WebSocket's 123 bytes, whatever characters it holds.
    const other = await RawSocket.open(server.wsUrl);
    const long = await other.ask({ type: "resume", data: { session_id: "€".repeat(100) } });
    expect(long.data.code).toBe("SESSION_ERROR");
    expect(await other.closed).toBe(1008);
    expect(other.replies).toEqual([]);
  });

  it("RATE_LIMITED past the session's step rate, with retry_after_ms; the connection stays usable", async () => {
    const paced = await serve(agent, { port: 0, rows: 4, stepRate: 2 });
    try {
      const socket = await RawSocket.open(paced.wsUrl);
      expect((await socket.ask({ type: "reset" })).type).toBe("observation");
      const replies = [];
      for (let i = 0; i < 4; i++)
        replies.push(await socket.ask({ type: "step", data: { message: say(`Hello ${i}?`) } }));
      const limited = replies.filter((r) => r.type === "error");
      expect(limited.length).toBeGreaterThan(0);
      expect(limited[0].data).toMatchObject({ code: "RATE_LIMITED" });
      expect(limited[0].data.retry_after_ms).toBeGreaterThan(0);
      await stillUsable(socket);
      socket.close();
    } finally {
      await paced.close();
    }
  });

  it("a frame far past the limit is cut by the WebSocket layer (1009), the server keeps serving", async () => {
    const socket = await RawSocket.open(server.wsUrl);
    socket.send("x".repeat(200_000));
    expect(await socket.closed).toBe(1009);
    const next = await RawSocket.open(server.wsUrl);
    await stillUsable(next);
    next.close();
  });

  it("counts errors by code in /metrics", async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    for (const code of [
      "INVALID_JSON",
      "UNKNOWN_TYPE",
      "VALIDATION_ERROR",
      "EXECUTION_ERROR",
      "SESSION_ERROR",
    ])
      expect(text).toMatch(new RegExp(`rehearse_errors_total\\{code="${code}"\\} [1-9]`));
    expect(text).toMatch(/rehearse_step_seconds_count [1-9]/);
    expect(text).toMatch(/rehearse_step_seconds_bucket\{le="\+Inf"\} [1-9]/);
  });
});

describe("HTTP routes", () => {
  it("serves health, metadata and OpenEnv's three schemas from spec/", async () => {
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: "healthy" });
    const metadata = (await (await fetch(`${server.url}/metadata`)).json()) as object;
    expect(metadata).toMatchObject({
      name: `rehearse: ${agent.name}`,
      description: agent.system_prompt,
    });
    const schema = (await (await fetch(`${server.url}/schema`)).json()) as Record<string, Reply>;
    expect(Object.keys(schema).sort()).toEqual(["action", "observation", "state"]);
    expect(schema.action.required).toEqual(["message"]);
    expect(schema.observation.required).toEqual(
      expect.arrayContaining(["messages", "turn", "truncated", "metadata"]),
    );
    expect(schema.state.properties).toHaveProperty("step_count");
  });

  it("refuses options it cannot honour before listening, naming each", async () => {
    await expect(serve(agent, { port: 70_000, maxSessions: 0 })).rejects.toThrow(
      /port[\s\S]*maxSessions|maxSessions[\s\S]*port/,
    );
    await expect(serve(agent, { token: "short" })).rejects.toThrow(/token/);
  });

  it("a reset names its session and offers the tools the in-process Episode offers", async () => {
    const socket = await RawSocket.open(server.wsUrl);
    const remote = await socket.ask({ type: "reset", data: { seed: 9 } }, true);
    const [situation] = new Planner(agent, { rows: 8 }).walk();
    const local = await new Episode({ spec: agent, situation: situation as Situation }).reset();
    expect(remote.data.observation.tools).toEqual(local.observation.tools);
    expect(remote.data.session_id).toMatch(/^[0-9a-f-]{36}$/);
    socket.close();
  });
});
