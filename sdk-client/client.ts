import WebSocket from "ws";
import type {
  AssistantMessage,
  EpisodeDriver,
  ObservationData,
  ResetRequest,
  RewardReport,
  ServerMessage,
  SessionState,
  WireError,
} from "../spec/index.ts";
import { decodeFrame, encodeFrame, type WireEncoding } from "./codec.ts";

/** How an {@link EnvClient} connects and how long it waits. */
export interface EnvClientOptions {
  /** JSON text frames (default) or MessagePack binary frames. */
  encoding?: WireEncoding;
  /** The server's bearer token, when it has one. */
  token?: string;
  /** Milliseconds to wait for each reply (default 60,000). */
  timeoutMs?: number;
  /** Milliseconds to wait for the connection to open (default 10,000). */
  connectTimeoutMs?: number;
  /** Reconnections tried after a dropped connection, each resuming the session (default 3; 0 turns it off). */
  reconnect?: number;
  /** Milliseconds before the first reconnection, doubled for each next one (default 100). */
  reconnectDelayMs?: number;
}

/** An error reply from the server: OpenEnv's `code` and `message`, with the rest of its data. */
export class EnvServerError extends Error {
  override name = "EnvServerError";
  readonly code: WireError["code"];
  constructor(readonly data: WireError) {
    super(`${data.message} (code: ${data.code})`);
    this.code = data.code;
  }
}

/** A reply that did not come within the client's timeout. */
export class EnvTimeoutError extends Error {
  override name = "EnvTimeoutError";
}

/** Close codes after which the server will not take the connection back. */
const FINAL_CLOSES = new Set([1008, 1011, 1013, 4000]);
/** The longest `close()` waits for the server to answer its close before cutting the connection. */
const CLOSE_WAIT_MS = 5_000;

type Reply = ServerMessage;
interface Pending {
  frame: { type: string; data?: unknown; id: number };
  resolve(reply: Reply): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The socket the frame last went out on (a request goes out once a socket). */
  sentOn: WebSocket | null;
}

/**
 * A client of the environment server: `reset`, `step`, `reward`, `state`, `close` over one
 * WebSocket, JSON or MessagePack. When the connection drops it reconnects and resumes the session;
 * a step whose reply was lost is answered from the server's record of it, never run twice. It is an
 * `EpisodeDriver`, so the engine's own `rollout` drives it as it drives an in-process episode.
 *
 * @example
 * const client = new EnvClient("ws://127.0.0.1:8000/ws", { encoding: "msgpack" });
 * let result = await client.reset({ split: "train", seed: 3 });
 * while (!result.done) result = await client.step({ role: "assistant", content: "How can I help?" });
 * console.log(result.reward, await client.reward());
 * await client.close();
 */
export class EnvClient implements EpisodeDriver {
  readonly url: string;
  readonly encoding: WireEncoding;
  readonly #options: Required<Omit<EnvClientOptions, "token" | "encoding">> & { token?: string };
  #socket: WebSocket | null = null;
  /** The socket being opened, which a close while connecting cuts. */
  #dialing: WebSocket | null = null;
  #opening: Promise<WebSocket> | null = null;
  #sessionId: string | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  #closed = false;
  /** The error that ended the connection for good (capacity, factory, session), if one did. */
  #final: Error | null = null;

  constructor(url: string, options: EnvClientOptions = {}) {
    this.url = url;
    this.encoding = options.encoding ?? "json";
    this.#options = {
      timeoutMs: options.timeoutMs ?? 60_000,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      reconnect: options.reconnect ?? 3,
      reconnectDelayMs: options.reconnectDelayMs ?? 100,
      ...(options.token ? { token: options.token } : {}),
    };
  }

  /** The session the server holds for this client (known after the first reset). */
  get sessionId(): string | null {
    return this.#sessionId;
  }

  /** Opens an episode (OpenEnv's reset); the request may name `task_id`, `seed`, `split`, `episode_id`. */
  async reset(request: ResetRequest = {}): Promise<ObservationData> {
    const reply = await this.#request("reset", request);
    const data = expect(reply, "observation");
    if (data.session_id) this.#sessionId = data.session_id;
    return data;
  }

  /** Sends the agent's message; the result holds the tool answers or the person's reply. */
  async step(message: AssistantMessage): Promise<ObservationData> {
    return expect(await this.#request("step", { message }), "observation");
  }

  /** The full grade of the episode so far: outcome, conduct checks, and the grader's once it is done. */
  async reward(): Promise<RewardReport> {
    return expect(await this.#request("reward"), "reward");
  }

  /** The session's state: OpenEnv's `episode_id` and `step_count`, with the episode's coordinates. */
  async state(): Promise<SessionState> {
    return expect(await this.#request("state"), "state");
  }

  /**
   * Ends the session on the server and closes the connection, waiting for the server's close at
   * most the reply timeout or 5 s, whichever is shorter; a connection still opening is cut.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#dialing?.terminate();
    const socket = this.#socket;
    if (socket && socket.readyState === WebSocket.OPEN) {
      socket.send(encodeFrame({ type: "close" }, this.encoding));
      await new Promise<void>((resolve) => {
        const cut = setTimeout(
          () => socket.terminate(),
          Math.min(this.#options.timeoutMs, CLOSE_WAIT_MS),
        );
        socket.once("close", () => {
          clearTimeout(cut);
          resolve();
        });
        socket.close(1000);
      });
    } else socket?.terminate();
    this.#failAll(new Error("the client was closed"));
  }

  async #request(type: string, data?: unknown): Promise<Reply> {
    if (this.#closed) throw new Error("the client is closed");
    if (this.#final) throw this.#final;
    const id = this.#nextId++;
    const frame = data === undefined ? { type, id } : { type, data, id };
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new EnvTimeoutError(`no reply to ${type} within ${this.#options.timeoutMs} ms`));
      }, this.#options.timeoutMs);
      this.#pending.set(id, { frame, resolve, reject, timer, sentOn: null });
      this.#connected().then(
        (socket) => {
          const pending = this.#pending.get(id);
          if (pending) this.#send(pending, socket);
        },
        (error: Error) => this.#settle(id, error),
      );
    });
    if (reply.type === "error") throw new EnvServerError(reply.data);
    return reply;
  }

  /** The open socket: the current one, or a new one that resumes the session when there is one. */
  async #connected(): Promise<WebSocket> {
    if (this.#socket && this.#socket.readyState === WebSocket.OPEN) return this.#socket;
    this.#opening ??= this.#open().finally(() => {
      this.#opening = null;
    });
    return this.#opening;
  }

  async #open(): Promise<WebSocket> {
    let delay = this.#options.reconnectDelayMs;
    for (let attempt = 0; ; attempt++) {
      try {
        const socket = await this.#dial();
        try {
          if (this.#closed) throw new Error("the client was closed");
          if (this.#sessionId) await this.#resume(socket, this.#sessionId);
          // No session yet (the first reset was cut off): what went out on the lost socket goes again.
          else
            for (const pending of this.#pending.values())
              if (pending.sentOn !== null) this.#send(pending, socket);
          // Closed while the session was being resumed: the new socket goes too.
          if (this.#closed) throw new Error("the client was closed");
        } catch (error) {
          socket.terminate();
          throw error;
        }
        this.#socket = socket;
        return socket;
      } catch (error) {
        // Closed while dialling: no other dial follows.
        if (this.#closed) throw new Error("the client was closed");
        if (this.#final || attempt >= this.#options.reconnect || !(error instanceof Dropped))
          throw error instanceof Dropped ? new Error(error.message) : error;
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay *= 2;
      }
    }
  }

  /** Sends a request's frame on `socket`, unless it already went out there. */
  #send(pending: Pending, socket: WebSocket): void {
    if (pending.sentOn === socket) return;
    pending.sentOn = socket;
    socket.send(encodeFrame(pending.frame, this.encoding));
  }

  /** A new socket, open, with its frames routed to the requests waiting for them. */
  #dial(): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, {
        handshakeTimeout: this.#options.connectTimeoutMs,
        perMessageDeflate: false,
        ...(this.#options.token
          ? { headers: { authorization: `Bearer ${this.#options.token}` } }
          : {}),
      });
      this.#dialing = socket;
      socket.once("open", () => {
        this.#dialing = null;
        socket.off("error", refuse);
        socket.on("error", () => {});
        resolve(socket);
      });
      const refuse = (error: Error) =>
        reject(new Dropped(`cannot connect to ${this.url}: ${error.message}`));
      socket.once("error", refuse);
      socket.once("close", () => {
        if (this.#dialing === socket) this.#dialing = null;
        reject(new Dropped(`the connection to ${this.url} closed before it opened`));
      });
      socket.once("unexpected-response", (_request, response) => {
        socket.off("error", refuse);
        socket.on("error", () => {});
        const refused = new Error(
          `the server refused the connection: HTTP ${response.statusCode}${response.statusCode === 401 ? " (missing or wrong token)" : ""}`,
        );
        this.#final = refused;
        reject(refused);
        socket.terminate();
      });
      socket.on("message", (data, isBinary) => this.#receive(socket, data as Buffer, isBinary));
      socket.on("close", (code) => this.#lost(socket, code));
    });
  }

  /**
   * Reattaches the session on a new socket; a reset or step sent before the drop is answered from
   * the server's record when the server had taken it, and sent again when it had not.
   */
  async #resume(socket: WebSocket, sessionId: string): Promise<void> {
    const id = this.#nextId++;
    const frame = { type: "resume", data: { session_id: sessionId }, id };
    const reply = await new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.#settle(id, new Dropped(`no reply to resume within ${this.#options.timeoutMs} ms`)),
        this.#options.timeoutMs,
      );
      const resuming: Pending = { frame, timer, resolve, reject, sentOn: null };
      this.#pending.set(id, resuming);
      socket.once("close", () =>
        this.#settle(id, new Dropped("the connection dropped during resume")),
      );
      this.#send(resuming, socket);
    });
    // A session that cannot be resumed ends the client: #receive recorded it as final.
    if (reply.type === "error") throw new EnvServerError(reply.data);
    const state = expect(reply, "state");
    for (const [pendingId, pending] of [...this.#pending]) {
      if (pendingId === id) continue;
      const { frame } = pending;
      if (
        state.last_id === frame.id &&
        state.last &&
        (frame.type === "reset" || frame.type === "step")
      )
        this.#settle(pendingId, { type: "observation", data: state.last, id: frame.id });
      else this.#send(pending, socket);
    }
  }

  #receive(socket: WebSocket, data: Buffer, isBinary: boolean): void {
    if (socket !== this.#socket && this.#opening === null) return;
    let reply: Reply;
    try {
      reply = decodeFrame(data, isBinary);
    } catch (error) {
      this.#failAll(error as Error);
      return;
    }
    // A reply without an id (an error about the connection itself) answers the oldest request; one
    // with an id nobody waits for (a request that timed out) answers none.
    const target =
      reply.id === undefined || reply.id === null ? this.#pending.keys().next().value : reply.id;
    if (typeof target !== "number" || !this.#pending.has(target)) return;
    if (
      reply.type === "error" &&
      ["CAPACITY_REACHED", "FACTORY_ERROR", "SESSION_ERROR"].includes(reply.data.code)
    )
      this.#final = new EnvServerError(reply.data);
    this.#settle(target, reply);
  }

  #lost(socket: WebSocket, code: number): void {
    if (socket !== this.#socket) return;
    this.#socket = null;
    if (this.#closed) return;
    if (FINAL_CLOSES.has(code)) {
      this.#final ??= new Error(`the server closed the connection (code ${code})`);
      this.#failAll(this.#final);
      return;
    }
    if (this.#options.reconnect === 0) {
      this.#failAll(new Error(`the connection dropped (code ${code}) and reconnect is off`));
      return;
    }
    // Requests in flight are sent again, or answered from the session's record, once the new socket resumes.
    if (this.#pending.size > 0) this.#connected().catch((error: Error) => this.#failAll(error));
  }

  #settle(id: number, outcome: Reply | Error): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    clearTimeout(pending.timer);
    if (outcome instanceof Error) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  #failAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.#settle(id, error);
  }
}

/** A connection that failed in a way a retry may mend (refused, reset, dropped). */
class Dropped extends Error {}

/** The data of a reply of the expected type. */
function expect<T extends Reply["type"]>(reply: Reply, type: T): ReplyData<T> {
  if (reply.type !== type)
    throw new Error(`expected a ${type} reply from the server, got ${reply.type}`);
  return reply.data as ReplyData<T>;
}
type ReplyData<T extends Reply["type"]> = Extract<Reply, { type: T }>["data"];
