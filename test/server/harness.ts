import { createConnection, createServer, type Server, type Socket } from "node:net";
import { Packr } from "msgpackr";
import WebSocket from "ws";
import { type Agent, OfflineAgent, rollout } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";

const packr = new Packr({ useRecords: false, encodeUndefinedAsNil: true });

/**
 * A reply as a test reads it: any message the server sent, good or bad, whose fields the assertions
 * reach by path (a fuzzed frame can earn any of them, so no narrower type fits).
 */
// biome-ignore lint/suspicious/noExplicitAny: replies are checked by the assertions, field by field.
export type Reply = any;

/** A raw WebSocket to the server that reads replies one at a time, for tests that send any bytes. */
export class RawSocket {
  readonly socket: WebSocket;
  readonly replies: unknown[] = [];
  readonly #waiting: ((reply: unknown) => void)[] = [];
  closeCode: number | null = null;
  readonly closed: Promise<number>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on("message", (data, isBinary) => {
      const reply = isBinary ? packr.unpack(data as Buffer) : JSON.parse(String(data));
      const waiter = this.#waiting.shift();
      if (waiter) waiter(reply);
      else this.replies.push(reply);
    });
    this.closed = new Promise((resolve) =>
      socket.on("close", (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  /** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
  static open(url: string, headers: Record<string, string> = {}): Promise<RawSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, { headers, perMessageDeflate: false });
      socket.once("open", () => resolve(new RawSocket(socket)));
      socket.once("unexpected-response", (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
      socket.once("error", reject);
    });
  }

  /** The next reply (waits for it). */
  next(timeoutMs = 10_000): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no reply in time")), timeoutMs);
      this.#waiting.push((reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
  }

  /** Sends a message as JSON text, or as MessagePack when `binary`; a string or Buffer goes as it is. */
  send(message: unknown, binary = false): void {
    if (typeof message === "string" || Buffer.isBuffer(message))
      this.socket.send(message, { binary });
    else this.socket.send(binary ? packr.pack(message) : JSON.stringify(message), { binary });
  }

  /** Sends and waits for the reply. */
  async ask(message: unknown, binary = false): Promise<Reply> {
    this.send(message, binary);
    return this.next();
  }

  close(): void {
    this.socket.terminate();
  }
}

/**
 * A TCP proxy in front of the server whose connections a test can cut: at once, or when the
 * server's next bytes arrive (so a request reaches the server and its reply is lost).
 */
export class CuttableProxy {
  readonly #server: Server;
  readonly #pairs = new Set<[Socket, Socket]>();
  #cutOnReply = false;
  port = 0;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(target: number): Promise<CuttableProxy> {
    let proxy: CuttableProxy | null = null;
    const server = createServer((client) => {
      const self = proxy as CuttableProxy;
      const upstream = createConnection(target, "127.0.0.1");
      const pair: [Socket, Socket] = [client, upstream];
      self.#pairs.add(pair);
      client.on("data", (chunk) => upstream.write(chunk));
      upstream.on("data", (chunk) => {
        if (self.#cutOnReply) {
          self.#cutOnReply = false;
          self.cut();
          return;
        }
        client.write(chunk);
      });
      const end = () => {
        client.destroy();
        upstream.destroy();
        self.#pairs.delete(pair);
      };
      client.on("close", end);
      upstream.on("close", end);
      client.on("error", end);
      upstream.on("error", end);
    });
    proxy = new CuttableProxy(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    proxy.port = (server.address() as { port: number }).port;
    return proxy;
  }

  /** Cuts every connection now, as a network failure would (no close frame). */
  cut(): void {
    for (const [client, upstream] of this.#pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.#pairs.clear();
  }

  /** Cuts the connections when the server's next bytes arrive, dropping them. */
  cutOnNextReply(): void {
    this.#cutOnReply = true;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** Plays `count` offline episodes (seeds 0 to count − 1) on `wsUrl`, eight clients at a time. */
export async function playEpisodes(agent: Agent, wsUrl: string, count: number): Promise<void> {
  const lanes = 8;
  const played = async (lane: number) => {
    const client = new EnvClient(wsUrl);
    try {
      for (let seed = lane; seed < count; seed += lanes)
        await rollout(client, new OfflineAgent().start(agent, seed), { seed });
    } finally {
      await client.close();
    }
  };
  await Promise.all(Array.from({ length: lanes }, (_, lane) => played(lane)));
}
