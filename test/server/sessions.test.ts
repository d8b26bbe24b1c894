import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, offlineUser, type UserSimulator } from "../../index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { RawSocket } from "./harness.ts";

const SPEC = "examples/retail-orders.json";
const TOKEN = "s3cret-token-for-tests";
let agent: Agent;
let server: ServerHandle;

beforeAll(async () => {
  agent = await Agent.load(SPEC);
  server = await serve(agent, { port: 0, rows: 8, token: TOKEN, idleTtl: 0.4 });
});
afterAll(() => server.close());

const bearer = { authorization: `Bearer ${TOKEN}` };
const say = (content: string) => ({ role: "assistant", content });

describe("the bearer token", () => {
  it("refuses a socket without it or with a wrong one (HTTP 401), takes it as Bearer or as the URL's password", async () => {
    await expect(RawSocket.open(server.wsUrl)).rejects.toThrow("HTTP 401");
    await expect(
      RawSocket.open(server.wsUrl, { authorization: `Bearer ${TOKEN}x` }),
    ).rejects.toThrow("HTTP 401");
    await expect(RawSocket.open(server.wsUrl, { authorization: "Bearer " })).rejects.toThrow(
      "HTTP 401",
    );
    await expect(RawSocket.open(`${server.wsUrl}?token=${TOKEN}`)).rejects.toThrow("HTTP 401");
    const withBearer = await RawSocket.open(server.wsUrl, bearer);
    expect((await withBearer.ask({ type: "reset" })).type).toBe("observation");
    withBearer.close();
    const inUrl = await RawSocket.open(server.wsUrl.replace("ws://", `ws://rehearse:${TOKEN}@`));
    expect((await inUrl.ask({ type: "state" })).type).toBe("state");
    inUrl.close();
  });

  it("guards every HTTP route but /health", async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    for (const route of ["/metadata", "/schema", "/metrics"]) {
      expect((await fetch(`${server.url}${route}`)).status).toBe(401);
      expect((await fetch(`${server.url}${route}`, { headers: bearer })).status).toBe(200);
    }
    const freeze = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "x.jsonl" }),
    });
    expect(freeze.status).toBe(401);
  });
});

describe("resume after a dropped connection", () => {
  it("reattaches the session on a new socket with its state, last result and the request it answered", async () => {
    const first = await RawSocket.open(server.wsUrl, bearer);
    const reset = await first.ask({ type: "reset", data: { seed: 11 }, id: 1 });
    const sessionId = reset.data.session_id;
    const step = await first.ask({
      type: "step",
      data: { message: say("How can I help?") },
      id: 2,
    });
    first.close();
    await first.closed;

    const second = await RawSocket.open(server.wsUrl, bearer);
    const resumed = await second.ask(
      { type: "resume", data: { session_id: sessionId }, id: "r" },
      true,
    );
    expect(resumed).toMatchObject({
      type: "state",
      id: "r",
      data: {
        session_id: sessionId,
        step_count: 1,
        episode_id: reset.data.observation.metadata.episode_id,
        last_id: 2,
      },
    });
    expect(resumed.data.last).toEqual(step.data);
    const next = await second.ask({
      type: "step",
      data: { message: say("Could you tell me your order id?") },
    });
    expect(next.data.observation.turn).toBe(2);
    const state = await second.ask({ type: "state" });
    expect(state.data.step_count).toBe(2);
    second.close();
  });

  it("takes the session from a connection still open, which is closed (4000)", async () => {
    const first = await RawSocket.open(server.wsUrl, bearer);
    const reset = await first.ask({ type: "reset" });
    const second = await RawSocket.open(server.wsUrl, bearer);
    const resumed = await second.ask({
      type: "resume",
      data: { session_id: reset.data.session_id },
    });
    expect(resumed.type).toBe("state");
    expect(await first.closed).toBe(4000);
    second.close();
  });

  it("forgets a dropped session after its idle TTL, and closes a silent connection", async () => {
    const first = await RawSocket.open(server.wsUrl, bearer);
    const reset = await first.ask({ type: "reset" });
    first.close();
    await new Promise((resolve) => setTimeout(resolve, 900));
    const late = await RawSocket.open(server.wsUrl, bearer);
    const refused = await late.ask({ type: "resume", data: { session_id: reset.data.session_id } });
    expect(refused.data.code).toBe("SESSION_ERROR");
    const silent = await RawSocket.open(server.wsUrl, bearer);
    expect(await silent.closed).toBe(1001);
  });
});

describe("a slow step", () => {
  it("keeps its connection open past the idle TTL while the person takes their time", async () => {
    const slowUser: UserSimulator = {
      name: "slow offline",
      start(setup) {
        const session = offlineUser.start(setup);
        return {
          reply: async (conversation) => {
            await new Promise((resolve) => setTimeout(resolve, 700));
            return session.reply(conversation);
          },
        };
      },
    };
    const slow = await serve(agent, { port: 0, rows: 4, idleTtl: 0.2, userModel: slowUser });
    try {
      const socket = await RawSocket.open(slow.wsUrl);
      await socket.ask({ type: "reset" });
      const reply = await socket.ask({ type: "step", data: { message: say("How can I help?") } });
      expect(reply.type).toBe("observation");
      expect(reply.data.observation.messages[0]?.role).toBe("user");
      expect(socket.closeCode).toBeNull();
      expect(await socket.closed).toBe(1001);
    } finally {
      await slow.close();
    }
  });
});

describe("graceful shutdown", () => {
  it("finishes the steps in flight, answers them, then closes every socket", async () => {
    const local = await serve(agent, { port: 0, rows: 4, stepRate: 1e6 });
    const socket = await RawSocket.open(local.wsUrl);
    await socket.ask({ type: "reset" });
    for (let i = 0; i < 5; i++)
      socket.send({
        type: "step",
        data: {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: `c${i}`,
                type: "function",
                function: { name: "get_order", arguments: '{"order_id":"W0000000"}' },
              },
            ],
          },
        },
        id: i,
      });
    // Once the first reply is back, every frame has reached the server: the rest are in flight.
    const replies = [await socket.next()];
    const closing = local.close();
    for (let i = 1; i < 5; i++) replies.push(await socket.next());
    await closing;
    expect(replies.map((r) => r.id)).toEqual([0, 1, 2, 3, 4]);
    expect(replies.every((r) => r.type === "observation")).toBe(true);
    expect(await socket.closed).toBe(1001);
    await expect(fetch(`${local.url}/health`)).rejects.toThrow();
  });
});
