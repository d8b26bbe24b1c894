import type { WebSocket } from "ws";
import { type Episode, EpisodeError, InputError, messageOf } from "../env/index.ts";
import type {
  ClientMessage,
  RequestId,
  ServerMessage,
  WireError,
  WireErrorCode,
} from "../spec/index.ts";
import { backlogLimit, pauseIfBacklogged, releaseAll } from "./backpressure.ts";
import type { Metrics } from "./metrics.ts";
import type { Flushable, Outbox } from "./outbox.ts";
import { decodeFrame, type Encoding, encodeReply, wireError } from "./protocol.ts";
import { NO_SESSION_STATE, Session, type SessionHooks } from "./session.ts";
import { CapacityError, type SessionTable } from "./sessions.ts";

/** Requests one connection may have waiting; past it, a frame is answered RATE_LIMITED at once. */
export const MAX_PENDING = 64;

/** Close codes: closed by the client, a session that cannot be had, a factory or server failure, capacity (try again later), another connection resumed it. */
const CLOSE = {
  normal: 1000,
  session: 1008,
  factory: 1011,
  capacity: 1013,
  resumed: 4000,
};

/** What every connection shares: the session table, the counters, the limits and the episode factory. */
export interface ConnectionContext {
  readonly table: SessionTable;
  readonly metrics: Metrics;
  readonly maxFrameBytes: number;
  readonly stepRate: number;
  readonly hooks: SessionHooks;
  /** Where replies wait for the end of the event loop's turn. */
  readonly outbox: Outbox;
  /** Makes the episode of a new session (OpenEnv's environment factory). */
  newEpisode(): Episode;
  /** True once the server is shutting down: frames are answered, nothing new runs. */
  readonly draining: boolean;
}

/** An error that ends the connection after its reply (OpenEnv's capacity, factory and session errors). */
class Fatal extends Error {
  constructor(
    readonly error: WireError,
    readonly closeCode: number,
  ) {
    super(error.message);
  }
}

/**
 * One WebSocket connection: reads each frame (JSON text or MessagePack binary), runs it against
 * its session in order, and answers it in the frame's encoding with the request's `id`, through
 * the server's {@link Outbox}. A bad frame is answered with an error and the connection stays
 * usable; only capacity, factory and session errors close it, as in OpenEnv.
 */
export class Connection implements Flushable {
  session: Session | null = null;
  /** When a frame last came or a reply last went (ms, performance.now()). */
  lastActive = performance.now();
  readonly #socket: WebSocket;
  readonly #context: ConnectionContext;
  #queue: Promise<void> = Promise.resolve();
  #pending = 0;
  /** Encoded replies waiting for the end of the event loop's turn. */
  #unsent: (string | Buffer)[] = [];
  /**
   * Set once the connection closes: frames after a `close`, or after an error that ends the
   * connection, are not run (a reset there would open a session nobody hears of).
   */
  #closing = false;

  constructor(socket: WebSocket, context: ConnectionContext) {
    this.#socket = socket;
    this.#context = context;
    socket.on("message", (data, isBinary) =>
      this.#receive(data as Buffer, isBinary ? "msgpack" : "json"),
    );
    socket.on("close", () => this.#dropped());
  }

  /** Whether a request is waiting or running: such a connection is not idle, however long its step takes. */
  get busy(): boolean {
    return this.#pending > 0;
  }

  /** Resolves once every frame received so far is answered. */
  idle(): Promise<void> {
    return this.#queue;
  }

  /** Sends the replies waiting, then closes the socket (a reason of at most 123 bytes, as WebSocket allows). */
  close(code: number, reason: string): void {
    this.#closing = true;
    this.flush();
    // A socket not being read would not read its client's answer to the close either.
    releaseAll(this.#socket);
    if (this.#socket.readyState <= 1) this.#socket.close(code, closeReason(reason));
  }

  /** Bytes of replies sent but not yet taken by the client. */
  get backlog(): number {
    return this.#socket.bufferedAmount;
  }

  /**
   * Sends the replies waiting, in order. A socket that cannot take them is dropped, as a broken
   * connection is: its session stays resumable, and nothing reaches the other connections. A
   * client that leaves too many unread is not read from until they have gone ({@link pauseIfBacklogged}).
   */
  flush(): void {
    const replies = this.#unsent;
    if (replies.length === 0) return;
    this.#unsent = [];
    if (this.#socket.readyState !== 1) return;
    try {
      for (const reply of replies) this.#socket.send(reply);
    } catch {
      this.#socket.terminate();
      return;
    }
    if (pauseIfBacklogged(this.#socket, backlogLimit(this.#context.maxFrameBytes)))
      this.#context.metrics.backlogPauses++;
  }

  /** Another connection resumed this one's session: this one lets it go and closes. */
  takeOver(): void {
    this.session = null;
    this.close(CLOSE.resumed, "session resumed on another connection");
  }

  #receive(frame: Buffer | string, encoding: Encoding): void {
    if (this.#closing) return;
    this.lastActive = performance.now();
    const { maxFrameBytes } = this.#context;
    // A text relayed from the main thread is measured in bytes only when it could be over: UTF-8 takes at most 3 a character.
    const size =
      typeof frame === "string" && frame.length * 3 > maxFrameBytes
        ? Buffer.byteLength(frame)
        : frame.length;
    if (size > maxFrameBytes) {
      this.#fail(
        wireError(
          "VALIDATION_ERROR",
          `frame of ${size} bytes is over the server's limit of ${maxFrameBytes}`,
        ),
        encoding,
      );
      return;
    }
    if (this.#pending >= MAX_PENDING) {
      this.#fail(
        wireError(
          "RATE_LIMITED",
          `${MAX_PENDING} requests are already waiting on this connection: await replies before sending more`,
        ),
        encoding,
      );
      return;
    }
    this.#pending++;
    const started = performance.now();
    this.#queue = this.#queue.then(async () => {
      try {
        await this.#handle(frame, encoding, started);
      } catch (error) {
        // Nothing a frame does may take the server down: what escaped the handler is the session's
        // error, and as in OpenEnv it ends the connection (the session stays resumable).
        this.#fail(wireError("SESSION_ERROR", messageOf(error)), encoding);
        this.close(CLOSE.factory, "server error");
      } finally {
        this.#pending--;
      }
    });
  }

  async #handle(frame: Buffer | string, encoding: Encoding, started: number): Promise<void> {
    // A frame read before the connection closed but reached after it.
    if (this.#closing) return;
    const decoded = decodeFrame(frame, encoding);
    if (!decoded.ok) {
      this.#fail(decoded.error, encoding, decoded.id);
      return;
    }
    const message = decoded.message;
    const id = message.id ?? null;
    if (this.#context.draining && message.type !== "close" && message.type !== "state") {
      this.#fail(wireError("EXECUTION_ERROR", "the server is shutting down"), encoding, id);
      return;
    }
    try {
      const reply = await this.#answer(message, id);
      if (reply) this.#send(reply, encoding, id);
      if (message.type === "step") this.#context.metrics.step((performance.now() - started) / 1000);
    } catch (error) {
      if (error instanceof Fatal) {
        this.#fail(error.error, encoding, id);
        this.close(error.closeCode, error.error.message);
        return;
      }
      this.#fail(errorOf(error), encoding, id);
    }
  }

  /** The reply to one well-formed message (none for `close`, which closes the connection). */
  async #answer(message: ClientMessage, id: RequestId | null): Promise<ServerMessage | null> {
    const { metrics } = this.#context;
    switch (message.type) {
      case "reset": {
        const session = this.session ?? this.#open();
        this.#pace(session);
        const data = await session.run(() => session.reset(message.data ?? {}, id));
        metrics.resets++;
        return { type: "observation", data };
      }
      case "step": {
        const session = this.session;
        if (!session) throw new EpisodeError("step before reset: send a reset message first");
        this.#pace(session);
        const data = await session.run(() => session.step(message.data.message, id));
        if (data.done) metrics.episodesFinished++;
        return { type: "observation", data };
      }
      case "state":
        return { type: "state", data: this.session?.state() ?? NO_SESSION_STATE };
      case "reward": {
        const session = this.session;
        if (!session) throw new EpisodeError("no episode yet: send a reset message first");
        return { type: "reward", data: await session.run(() => session.reward()) };
      }
      case "resume":
        return { type: "state", data: await this.#resume(message.data.session_id) };
      case "close":
        if (this.session) this.#context.table.remove(this.session);
        this.session = null;
        this.close(CLOSE.normal, "closed by the client");
        return null;
    }
  }

  /** A new session for this connection, or the error that ends the connection. */
  #open(): Session {
    const { table, stepRate, hooks } = this.#context;
    try {
      const session = table.add(() => {
        let episode: Episode;
        try {
          episode = this.#context.newEpisode();
        } catch (error) {
          throw new Fatal(
            wireError("FACTORY_ERROR", `the episode could not be made: ${messageOf(error)}`),
            CLOSE.factory,
          );
        }
        return new Session(episode, stepRate, hooks);
      });
      session.connection = this;
      this.session = session;
      return session;
    } catch (error) {
      if (!(error instanceof CapacityError)) throw error;
      throw new Fatal(
        {
          ...wireError("CAPACITY_REACHED", error.message),
          active_sessions: error.active,
          max_sessions: error.max,
        },
        CLOSE.capacity,
      );
    }
  }

  /** Attaches a dropped connection's session to this one, once its work in flight is done. */
  async #resume(sessionId: string) {
    if (this.session && this.session.id !== sessionId)
      throw new InputError("resume", [
        {
          path: "data.session_id",
          message: `this connection already holds session ${this.session.id}; resume on a new connection`,
        },
      ]);
    const session = this.#context.table.get(sessionId);
    if (!session)
      throw new Fatal(
        wireError(
          "SESSION_ERROR",
          `no session ${JSON.stringify(sessionId.slice(0, 64))}: it was closed, or its idle TTL passed`,
        ),
        CLOSE.session,
      );
    if (session.connection && session.connection !== this) session.connection.takeOver();
    session.connection = this;
    this.session = session;
    await session.settled();
    session.lastActive = performance.now();
    return session.state(true);
  }

  /** Refuses a reset or step past the session's rate with how long to wait. */
  #pace(session: Session): void {
    const wait = session.bucket.take();
    if (wait > 0) throw new RateLimited(this.#context.stepRate, wait);
  }

  #dropped(): void {
    const session = this.session;
    if (session && session.connection === this) {
      session.connection = null;
      session.lastActive = performance.now();
    }
  }

  #fail(error: WireError, encoding: Encoding, id?: RequestId | null): void {
    this.#context.metrics.error(error.code);
    this.#send({ type: "error", data: error }, encoding, id ?? null);
  }

  #send(reply: ServerMessage, encoding: Encoding, id: RequestId | null): void {
    if (this.#socket.readyState !== 1) return;
    this.lastActive = performance.now();
    this.#unsent.push(encodeReply(id === null ? reply : { ...reply, id }, encoding));
    if (this.#unsent.length === 1) this.#context.outbox.add(this);
  }
}

/** The longest close reason WebSocket allows, in UTF-8 bytes. */
const MAX_REASON_BYTES = 123;

/** A close reason cut to whole characters within {@link MAX_REASON_BYTES} (a session id may be any text). */
export function closeReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_REASON_BYTES) return reason;
  let cut = "";
  for (const character of reason) {
    if (Buffer.byteLength(cut + character) > MAX_REASON_BYTES) break;
    cut += character;
  }
  return cut;
}

/** A step or reset over the session's rate. */
class RateLimited extends Error {
  constructor(
    readonly rate: number,
    readonly waitMs: number,
  ) {
    super(`over this session's rate of ${rate} resets and steps a second; retry in ${waitMs} ms`);
  }
}

/** The error reply for what a message's handling threw. */
function errorOf(error: unknown): WireError {
  if (error instanceof InputError)
    return {
      ...wireError("VALIDATION_ERROR", error.message),
      errors: error.issues.map(({ path, message }) => ({ path, message })),
    };
  if (error instanceof RateLimited)
    return { ...wireError("RATE_LIMITED", error.message), retry_after_ms: error.waitMs };
  const code: WireErrorCode = "EXECUTION_ERROR";
  return wireError(code, messageOf(error));
}
