import type { WebSocket } from "ws";
import {
  type Agent,
  Episode,
  type SituationPool,
  type SituationWriter,
  type UserSimulator,
} from "../env/index.ts";
import { Connection, type ConnectionContext } from "./connection.ts";
import { Metrics } from "./metrics.ts";
import { Outbox } from "./outbox.ts";
import type { SessionHooks } from "./session.ts";
import { type SessionEvents, SessionTable } from "./sessions.ts";

/** The limits an engine keeps, from the server's options. */
export interface EngineLimits {
  maxSessions: number;
  maxFrameBytes: number;
  stepRate: number;
  /** Seconds a silent connection stays open and a dropped session stays resumable. */
  idleTtl: number;
}

/** What an engine is made of: its limits, its episode factory and hooks, and what it shares. */
export interface EngineSetting {
  limits: EngineLimits;
  newEpisode(): Episode;
  hooks: SessionHooks;
  /** The session count shared with other engine threads, when the server runs several. */
  shared?: Int32Array;
  events?: SessionEvents;
}

/**
 * The side of the server that plays episodes: the sessions, the connections that drive them, the
 * counters, and the sweep that closes idle connections and forgets sessions left past their TTL.
 * It runs on the main thread, or once on each engine thread (`threads`), the same either way.
 */
export class Engine {
  readonly metrics = new Metrics();
  readonly table: SessionTable;
  readonly connections = new Set<Connection>();
  readonly #context: ConnectionContext;
  readonly #sweep: NodeJS.Timeout;
  #draining = false;

  constructor(setting: EngineSetting) {
    const { limits } = setting;
    this.table = new SessionTable(limits.maxSessions, {
      ...(setting.shared ? { shared: setting.shared } : {}),
      ...(setting.events ? { events: setting.events } : {}),
    });
    const engine = this;
    this.#context = {
      table: this.table,
      metrics: this.metrics,
      maxFrameBytes: limits.maxFrameBytes,
      stepRate: limits.stepRate,
      hooks: setting.hooks,
      outbox: new Outbox(),
      newEpisode: setting.newEpisode,
      get draining() {
        return engine.#draining;
      },
    };
    const idleMs = limits.idleTtl * 1000;
    this.#sweep = setInterval(
      () => {
        this.table.sweep(idleMs);
        const now = performance.now();
        for (const connection of this.connections)
          if (!connection.busy && now - connection.lastActive > idleMs)
            connection.close(1001, "idle");
      },
      Math.max(20, Math.min(idleMs / 4, 5_000)),
    );
    this.#sweep.unref();
  }

  /** Bytes of replies its connections have sent that their clients have not yet taken. */
  get backlogBytes(): number {
    let bytes = 0;
    for (const connection of this.connections) bytes += connection.backlog;
    return bytes;
  }

  /** Serves a WebSocket (or anything that speaks like one) until it closes. */
  accept(socket: WebSocket): void {
    const connection = new Connection(socket, this.#context);
    this.connections.add(connection);
    socket.on("close", () => this.connections.delete(connection));
  }

  /**
   * Shutting down: frames still come in and are answered with an error, nothing new runs; waits
   * for the work in flight (at most `ms`), then closes every connection after its last replies.
   */
  async drain(ms: number): Promise<void> {
    this.#draining = true;
    clearInterval(this.#sweep);
    await settle(Promise.all([...this.connections].map((connection) => connection.idle())), ms);
    for (const connection of this.connections) connection.close(1001, "server shutting down");
  }
}

/**
 * The episode a new session plays unless the server is given a factory: dealt from the planned
 * grid, its starting world kept, since a trainer resets its group's sessions to one task and the
 * group then copies one starting world.
 */
export function dealtEpisode(setting: {
  agent: Agent;
  situations: SituationPool;
  maxTurns: number;
  writer: SituationWriter;
  userModel: UserSimulator;
}): Episode {
  const { agent, situations, maxTurns, writer, userModel } = setting;
  return new Episode({ spec: agent, situations, maxTurns, keepStart: true, writer, userModel });
}

/** Waits for `work`, or `ms`, whichever comes first. */
export async function settle(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
