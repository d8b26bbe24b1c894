import { createServer } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { Packr } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import { Agent } from "../../index.ts";
import {
  chatModel,
  EnvClient,
  EnvServerError,
  EnvTimeoutError,
  rollout,
} from "../../sdk-client/index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { NO_SESSION_STATE } from "../../server/session.ts";
import { CuttableProxy } from "../server/harness.ts";
import {
  apiError,
  completion,
  OpenAICompatibleServer,
} from "../support/openai-compatible-server.ts";

const SPEC = "examples/retail-orders.json";
let agent: Agent;
let server: ServerHandle;
let proxy: CuttableProxy;

beforeAll(async () => {
  agent = await Agent.load(SPEC);
  server = await serve(agent, { port: 0, rows: 8, stepRate: 1e6 });
  proxy = await CuttableProxy.start(server.port);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

const say = (content: string) => ({ role: "assistant" as const, content });

/** An observation reply of the wire's shape, for servers written in a test. */
const observation = (id: unknown, text: string) =>
  JSON.stringify({
    type: "observation",
    id,
    data: {
      observation: {
        messages: [{ role: "user", content: text }],
        turn: 0,
        truncated: false,
        metadata: { episode_id: "e", task_id: "t", seed: 0 },
      },
      reward: null,
      done: false,
      session_id: "s1",
    },
  });

/** A WebSocket server written in a test, answering each connection as `serve` says. */
async function scriptedServer(
  serve: (socket: WebSocket, connection: number) => void,
): Promise<{ url: string; open(): number; close(): void }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise((resolve) => wss.once("listening", resolve));
  let connections = 0;
  wss.on("connection", (socket) => serve(socket, ++connections));
  return {
    url: `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`,
    open: () => [...wss.clients].filter((socket) => socket.readyState === 1).length,
    close: () => {
      for (const socket of wss.clients) socket.terminate();
      wss.close();
    },
  };
}
const lookup = (id: string) => ({
  role: "assistant" as const,
  content: null,
  tool_calls: [
    {
      id,
      type: "function" as const,
      function: { name: "get_order", arguments: '{"order_id":"W0000000"}' },
    },
  ],
});

describe("EnvClient", () => {
  it.each(["json", "msgpack"] as const)(
    "reconnects through a dropped connection and resumes the session (%s)",
    async (encoding) => {
      const client = new EnvClient(`ws://127.0.0.1:${proxy.port}/ws`, {
        encoding,
        reconnectDelayMs: 10,
      });
      const reset = await client.reset({ seed: 21 });
      await client.step(lookup("a1"));
      proxy.cut();
      const after = await client.step(lookup("a2"));
      expect(after.observation.turn).toBe(2);
      const state = await client.state();
      expect(state).toMatchObject({ session_id: client.sessionId, step_count: 2 });
      expect(state.episode_id).toBe(reset.observation.metadata.episode_id);
      await client.close();
    },
  );

  it("answers a step whose reply was lost from the server's record, without running it twice", async () => {
    const client = new EnvClient(`ws://127.0.0.1:${proxy.port}/ws`, { reconnectDelayMs: 10 });
    await client.reset({ seed: 22 });
    await client.step(lookup("b1"));
    proxy.cutOnNextReply();
    const lost = await client.step(lookup("b2"));
    expect(lost.observation.turn).toBe(2);
    expect(lost.observation.messages).toEqual([
      expect.objectContaining({ role: "tool", tool_call_id: "b2" }),
    ]);
    expect((await client.state()).step_count).toBe(2);
    // Sent again, the same id would have been refused as reused: the step ran once.
    const next = await client.step(lookup("b3"));
    expect(next.observation.turn).toBe(3);
    await client.close();
  });

  it("times out a request the server never answers", async () => {
    const silent = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    await new Promise((resolve) => silent.once("listening", resolve));
    try {
      const port = (silent.address() as { port: number }).port;
      const client = new EnvClient(`ws://127.0.0.1:${port}/ws`, { timeoutMs: 150 });
      await expect(client.reset()).rejects.toBeInstanceOf(EnvTimeoutError);
      await client.close();
    } finally {
      silent.close();
      for (const socket of silent.clients) socket.terminate();
    }
  });

  it("gives a reply that comes after its request timed out to no other request", async () => {
    const late = await scriptedServer((socket) => {
      let steps = 0;
      socket.on("message", (data) => {
        const message = JSON.parse(String(data));
        if (message.type === "reset") socket.send(observation(message.id, "opening"));
        // The first step is answered after the client gave up on it, the second later still.
        else if (message.type === "step")
          setTimeout(
            () => socket.send(observation(message.id, `to ${message.data.message.content}`)),
            ++steps === 1 ? 250 : 400,
          );
      });
    });
    try {
      const client = new EnvClient(late.url, { timeoutMs: 150 });
      await client.reset();
      await expect(client.step(say("first"))).rejects.toBeInstanceOf(EnvTimeoutError);
      const second = await client.step(say("second")).catch((error: unknown) => error);
      // Its own reply came after 400 ms, past the timeout: the first step's late one did not stand in for it.
      expect(second).toBeInstanceOf(EnvTimeoutError);
      await client.close();
    } finally {
      late.close();
    }
  });

  it("sends the first reset again when the connection drops before it is answered", async () => {
    const restarting = await scriptedServer((socket, connection) =>
      socket.on("message", (data) => {
        const message = JSON.parse(String(data));
        if (connection === 1) socket.close(1001, "restarting");
        else socket.send(observation(message.id, "opening"));
      }),
    );
    try {
      const client = new EnvClient(restarting.url, { timeoutMs: 5_000, reconnectDelayMs: 10 });
      const reset = await client.reset();
      expect(reset.observation.messages[0]?.content).toBe("opening");
      expect(client.sessionId).toBe("s1");
      await client.close();
    } finally {
      restarting.close();
    }
  });

  it("cuts a connection still opening when closed, and waits for a stuck server's close at most its timeout", async () => {
    const opening = new EnvClient(server.wsUrl);
    const reset = opening.reset().catch((error: Error) => error.message);
    await opening.close();
    expect(await reset).toMatch(/closed/);
    const metric = async () =>
      Number(
        (await (await fetch(`${server.url}/metrics`)).text())
          .split("\n")
          .find((line) => line.startsWith("rehearse_connections "))
          ?.split(" ")[1],
      );
    for (let tries = 0; (await metric()) > 0; tries++) {
      expect(tries).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // A server that answers the reset and then reads nothing, not even the close.
    const stuck = await scriptedServer((socket) =>
      socket.once("message", (data) => {
        socket.send(observation(JSON.parse(String(data)).id, "opening"));
        socket.pause();
      }),
    );
    try {
      const client = new EnvClient(stuck.url, { timeoutMs: 200 });
      await client.reset();
      // ws waits 30 s for a close the server never sends; this test's own limit is 10 s.
      await client.close();
    } finally {
      stuck.close();
    }
  }, 10_000);

  it("dials no more once closed, whether it was dialling or resuming", async () => {
    // A server that takes TCP connections and never answers the upgrade.
    const dials: Socket[] = [];
    const mute = createTcpServer((socket) => dials.push(socket));
    await new Promise<void>((resolve) => mute.listen(0, "127.0.0.1", resolve));
    const port = (mute.address() as { port: number }).port;
    try {
      const client = new EnvClient(`ws://127.0.0.1:${port}/ws`, {
        connectTimeoutMs: 200,
        reconnectDelayMs: 10,
      });
      const reset = client.reset().catch((error: Error) => error.message);
      while (dials.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await client.close();
      expect(await reset).toMatch(/closed/);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(dials).toHaveLength(1);
    } finally {
      for (const socket of dials) socket.destroy();
      await new Promise((resolve) => mute.close(resolve));
    }
    // A server whose second connection never answers the resume.
    const resuming = await scriptedServer((socket, connection) =>
      socket.on("message", (data) => {
        const message = JSON.parse(String(data));
        if (connection === 1 && message.type === "reset") {
          socket.send(observation(message.id, "opening"));
          setTimeout(() => socket.terminate(), 20);
        }
      }),
    );
    try {
      const client = new EnvClient(resuming.url, { reconnectDelayMs: 10, timeoutMs: 5_000 });
      await client.reset();
      const step = client.step(say("hello")).catch((error: Error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.close();
      expect(await step).toMatch(/closed/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(resuming.open()).toBe(0);
    } finally {
      resuming.close();
    }
  });

  it("refuses MessagePack with msgpackr's shared references from a server", async () => {
    let shared: unknown = 1;
    for (let level = 0; level < 6; level++) shared = { a: shared, b: shared, c: shared };
    const sharing = new Packr({ structuredClone: true, useRecords: false });
    const odd = await scriptedServer((socket) =>
      socket.on("message", (data) =>
        socket.send(
          sharing.pack({
            type: "state",
            id: JSON.parse(String(data)).id,
            data: { ...NO_SESSION_STATE, extra: shared },
          }),
        ),
      ),
    );
    try {
      const client = new EnvClient(odd.url, { timeoutMs: 2_000 });
      await expect(client.state()).rejects.toThrow(/Structured clone extension is disabled/);
      await client.close();
    } finally {
      odd.close();
    }
  });

  it("raises the server's errors with their code, and refuses to connect without the token", async () => {
    const guarded = await serve(agent, {
      port: 0,
      rows: 4,
      token: "token-for-the-client",
      maxSessions: 1,
    });
    try {
      const open = new EnvClient(guarded.wsUrl);
      await expect(open.reset()).rejects.toThrow(/HTTP 401/);
      const first = new EnvClient(guarded.wsUrl, { token: "token-for-the-client" });
      await first.reset();
      await expect(first.step(say(""))).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
      expect((await first.step(say("How can I help?"))).observation.turn).toBe(1);
      const second = new EnvClient(guarded.wsUrl, { token: "token-for-the-client" });
      const refused = await second.reset().catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(EnvServerError);
      expect((refused as EnvServerError).data).toMatchObject({
        code: "CAPACITY_REACHED",
        active_sessions: 1,
        max_sessions: 1,
      });
      await expect(second.state()).rejects.toThrow(/capacity/);
      await first.close();
      await second.close();
    } finally {
      await guarded.close();
    }
  });
});

describe("chatModel against a hostile model server", () => {
  it("refuses a reply that is not an assistant message, naming the field, instead of mending it", async () => {
    const replies: Record<string, unknown>[] = [
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_order" } }],
      },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "get_order", arguments: { order_id: "W1" } },
          },
        ],
      },
      { role: "assistant", content: 42 },
    ];
    const odd = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ choices: [{ message: replies.shift() }] }));
    });
    await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
    const model = chatModel({
      baseUrl: `http://127.0.0.1:${(odd.address() as { port: number }).port}`,
      model: "m",
    });
    const turn = { conversation: [{ role: "user" as const, content: "hi" }], tools: [] };
    try {
      for (const field of [
        "tool_calls.0.function.arguments",
        "tool_calls.0.function.arguments",
        "content",
      ])
        await expect(Promise.resolve(model(turn as never))).rejects.toThrow(
          `m: the reply is not an assistant message: ${field}:`,
        );
    } finally {
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  it("refuses a reply over 64 MiB as it comes (a gzip bomb counts as inflated), and blanks its key out of an error", async () => {
    const bomb = gzipSync(Buffer.alloc(80 << 20));
    const hostile = createServer((request, response) => {
      if (request.url === "/bomb/chat/completions") {
        response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        response.end(bomb);
      } else {
        response.writeHead(401, { "content-type": "application/json" });
        response.end(JSON.stringify({ error: `bad key ${request.headers.authorization}` }));
      }
    });
    await new Promise<void>((resolve) => hostile.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`;
    const turn = { conversation: [{ role: "user" as const, content: "hi" }], tools: [] };
    try {
      const big = chatModel({ baseUrl: `${base}/bomb`, model: "m" });
      await expect(big(turn as never)).rejects.toThrow(
        `m: the completion is over ${64 << 20} bytes: refused unread`,
      );
      const echo = chatModel({ baseUrl: `${base}/echo`, model: "m", apiKey: "sk-CLIENT-SECRET" });
      const error = await Promise.resolve(echo(turn as never)).catch((e: Error) => e);
      expect(String(error)).toMatch(/HTTP 401 .*bad key Bearer \[redacted\]/);
      expect(String(error)).not.toContain("sk-CLIENT-SECRET");
    } finally {
      hostile.closeAllConnections();
      await new Promise((resolve) => hostile.close(resolve));
    }
  });
});

describe("rollout with an OpenAI-compatible model", () => {
  it("asks the model each turn with the episode's tools, and gives reused tool-call ids fresh ones", async () => {
    const model = await OpenAICompatibleServer.start();
    const short = await serve(agent, { port: 0, rows: 4, maxTurns: 3 });
    try {
      model.script(
        completion({
          toolCalls: [{ id: "call_1", name: "get_order", arguments: { order_id: "W1" } }],
        }),
        completion({ content: "I could not find that order. Could you check the id?" }),
        completion({
          toolCalls: [{ id: "call_1", name: "get_order", arguments: { order_id: "W2" } }],
        }),
      );
      const client = new EnvClient(short.wsUrl, { encoding: "msgpack" });
      const result = await rollout(
        client,
        chatModel({ baseUrl: model.url, model: "test-model", apiKey: "k" }),
        { seed: 5 },
      );
      expect(result.steps).toBe(3);
      expect(result.last).toMatchObject({ done: true, observation: { truncated: true } });
      expect(typeof result.last.reward).toBe("number");
      expect(result.reward.done).toBe(true);
      expect(model.requests).toHaveLength(3);
      const offered = model.requests[0]?.tools as { function: { name: string } }[];
      expect(offered.map((tool) => tool.function.name)).toEqual(
        agent.tools.map((tool) => tool.name),
      );
      const calls = result.conversation.flatMap((m) =>
        m.role === "assistant" ? (m.tool_calls ?? []) : [],
      );
      expect(calls.map((c) => c.id)).toEqual(["call_1", "call_2"]);
      // The model saw the tool's answer to its first call before its second turn.
      expect(model.requests[1]?.messages.at(-1)).toMatchObject({
        role: "tool",
        tool_call_id: "call_1",
      });
      await client.close();
    } finally {
      await short.close();
      await model.close();
    }
  });

  it("fails loudly on a model that errs or answers no assistant message, naming the model", async () => {
    const model = await OpenAICompatibleServer.start();
    try {
      const policy = chatModel({ baseUrl: `${model.url}/`, model: "test-model" });
      const client = new EnvClient(server.wsUrl);
      model.script(apiError(500, "the GPU fell over"));
      await expect(rollout(client, policy)).rejects.toThrow(/test-model: HTTP 500 .*GPU fell over/);
      model.script({ body: { choices: [] } });
      await expect(rollout(client, policy)).rejects.toThrow(
        /test-model: the completion holds no message/,
      );
      model.script(completion({ content: "" }));
      await expect(rollout(client, policy)).rejects.toThrow(
        /test-model: the reply is not an assistant message/,
      );
      expect(model.requests.map((r) => r.model)).toEqual([
        "test-model",
        "test-model",
        "test-model",
      ]);
      await client.close();
    } finally {
      await model.close();
    }
  });
});
