import { randomBytes } from "node:crypto";
import { createConnection, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { backlogLimit } from "../../server/backpressure.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { SERVE_DEFAULTS } from "../../spec/index.ts";

const SPEC = "examples/retail-orders.json";
/** State requests the stalled client sends: their replies (about 300 bytes each) come to several times the limit. */
const REQUESTS = 60_000;

/**
 * A WebSocket client written on a bare TCP socket, so that a test can stop reading it (as a
 * trainer stuck in a long update does) while it keeps writing frames.
 */
class StalledClient {
  readonly #socket: Socket;
  #bytes: Buffer = Buffer.alloc(0);
  #frames = 0;
  readonly #texts: string[] = [];

  private constructor(socket: Socket) {
    this.#socket = socket;
  }

  static async open(port: number): Promise<StalledClient> {
    const socket = createConnection(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    socket.write(
      [
        "GET /ws HTTP/1.1",
        `Host: 127.0.0.1:${port}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        "",
        "",
      ].join("\r\n"),
    );
    const client = new StalledClient(socket);
    let head = "";
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        head += chunk.toString("latin1");
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        socket.off("data", onData);
        if (!head.startsWith("HTTP/1.1 101")) reject(new Error(head.split("\r\n")[0]));
        client.#take(Buffer.from(head.slice(end + 4), "latin1"));
        socket.on("data", (more: Buffer) => client.#take(more));
        resolve();
      };
      socket.on("data", onData);
    });
    return client;
  }

  /** Queues a text frame (masked, as a client's must be; a zero mask leaves the bytes as they are). */
  send(text: string): void {
    const payload = Buffer.from(text);
    if (payload.length >= 126) throw new RangeError("short frames only");
    this.#socket.write(
      Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, 0, 0, 0, 0]), payload]),
    );
  }

  /** Stops reading: replies pile up in the network, then in the server. */
  stall(): void {
    this.#socket.pause();
  }

  /** Reads again. */
  read(): void {
    this.#socket.resume();
  }

  /** Frames read so far. */
  get frames(): number {
    return this.#frames;
  }

  /** The text frames read so far. */
  get texts(): readonly string[] {
    return this.#texts;
  }

  close(): void {
    this.#socket.destroy();
  }

  /** Splits the server's bytes into frames (unmasked; lengths of 7, 16 or 64 bits). */
  #take(chunk: Buffer): void {
    this.#bytes = this.#bytes.length === 0 ? chunk : Buffer.concat([this.#bytes, chunk]);
    for (;;) {
      if (this.#bytes.length < 2) return;
      const short = (this.#bytes[1] as number) & 0x7f;
      const head = short === 126 ? 4 : short === 127 ? 10 : 2;
      if (this.#bytes.length < head) return;
      const length =
        short === 126
          ? this.#bytes.readUInt16BE(2)
          : short === 127
            ? Number(this.#bytes.readBigUInt64BE(2))
            : short;
      if (this.#bytes.length < head + length) return;
      if (((this.#bytes[0] as number) & 0x0f) === 1)
        this.#texts.push(this.#bytes.subarray(head, head + length).toString());
      this.#frames++;
      this.#bytes = this.#bytes.subarray(head + length);
    }
  }
}

/** A counter's or gauge's value in /metrics text. */
async function metric(server: ServerHandle, name: string): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
}

async function until(done: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each([
  ["on the main thread", 0],
  ["on engine threads", 2],
])("a client that stops reading its replies, episodes %s", (_label, threads) => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await serve(SPEC, { port: 0, rows: 4, stepRate: 1e9, threads });
  });
  afterAll(() => server.close());

  it("is no longer read once its unread replies pass the limit, and loses none of them", async () => {
    const limit = backlogLimit(SERVE_DEFAULTS.maxFrameBytes);
    const client = await StalledClient.open(server.port);
    try {
      client.stall();
      // An id is echoed in its reply, so each reply is a few hundred bytes.
      const id = "i".repeat(96);
      for (let n = 0; n < REQUESTS; n++) client.send(`{"type":"state","id":"${id}"}`);

      await until(
        async () => (await metric(server, 'rehearse_read_pauses_total{reason="backlog"}')) >= 1,
        20_000,
        "the server to stop reading",
      );
      // Replies to frames read before the pause still go out; then the backlog stays put.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const held = await metric(server, "rehearse_backlog_bytes");
      expect(held).toBeGreaterThan(limit / 2);
      expect(held).toBeLessThan(limit + (1 << 20));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await metric(server, "rehearse_backlog_bytes")).toBeLessThanOrEqual(held);

      client.read();
      await until(() => client.frames >= REQUESTS, 60_000, "every reply");
      expect(client.frames).toBe(REQUESTS);
      const kinds = new Set(client.texts.map((text) => JSON.parse(text).type));
      // Past 64 requests waiting on a connection, a frame is answered RATE_LIMITED at once.
      for (const kind of kinds) expect(["state", "error"]).toContain(kind);
      expect(kinds.has("state")).toBe(true);
      await until(
        async () => (await metric(server, "rehearse_backlog_bytes")) === 0,
        10_000,
        "the backlog to clear",
      );

      client.send('{"type":"state","id":1}');
      await until(() => client.frames === REQUESTS + 1, 10_000, "the last reply");
      expect(JSON.parse(client.texts.at(-1) as string)).toMatchObject({ type: "state", id: 1 });
    } finally {
      client.close();
    }
  }, 120_000);
});

describe("a client that sends faster than its engine thread answers", () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await serve(SPEC, { port: 0, rows: 4, stepRate: 1e9, threads: 1 });
  });
  afterAll(() => server.close());

  it("is not read while its thread has too many of its frames unanswered, and every frame is answered", async () => {
    const socket = new WebSocket(server.wsUrl, { perMessageDeflate: false });
    await new Promise((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    const frames = 20_000;
    let replies = 0;
    const kinds = new Set<string>();
    const answered = new Promise<void>((resolve) =>
      socket.on("message", (data) => {
        const reply = JSON.parse(String(data));
        kinds.add(reply.type === "error" ? reply.data.code : reply.type);
        if (++replies === frames) resolve();
      }),
    );
    // Sent at once, the frames reach the main thread far faster than one engine thread answers them.
    for (let n = 0; n < frames; n++) socket.send(`{"type":"state","id":${n}}`);
    await answered;
    expect(replies).toBe(frames);
    expect([...kinds].sort()).toEqual(expect.arrayContaining(["state"]));
    for (const kind of kinds) expect(["state", "RATE_LIMITED"]).toContain(kind);
    expect(await metric(server, 'rehearse_read_pauses_total{reason="relay"}')).toBeGreaterThan(0);
    socket.terminate();
  }, 60_000);
});
