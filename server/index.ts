/**
 * The environment server: a thin shell around the same `Episode` `simulate()` runs, one per
 * session, speaking OpenEnv's WebSocket envelope on `/ws` (JSON text frames, MessagePack binary
 * frames) with HTTP routes beside it.
 *
 * @example
 * import { serve } from "./server/index.ts";
 * const server = await serve("examples/retail-orders.json", { port: 0, maxSessions: 64 });
 * console.log(server.url); // http://127.0.0.1:<port>; WebSocket at ws://127.0.0.1:<port>/ws
 * await server.close();
 *
 * @module
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { type WebSocket, WebSocketServer } from "ws";
import {
  Agent,
  Episode,
  type Grader,
  InputError,
  issuesOf,
  OfflineWriter,
  offlineUser,
  Planner,
  SituationPool,
  type SituationWriter,
  type UserSimulator,
} from "../env/index.ts";
import { renderReport } from "../exporters/index.ts";
import {
  DEFAULTS,
  SERVE_DEFAULTS,
  type ServeOptionsPlain,
  ServeOptionsSchema,
} from "../spec/index.ts";
import { createApp } from "./app.ts";
import { Connection, type ConnectionContext } from "./connection.ts";
import { FinishedEpisodes, freeze, heldDataset } from "./freeze.ts";
import { Metrics } from "./metrics.ts";
import { Outbox } from "./outbox.ts";
import { encodeReply, wireError } from "./protocol.ts";
import { SessionTable } from "./sessions.ts";

/** How long shutdown waits for steps in flight, then for clients to answer the close. */
const DRAIN_MS = 10_000;
const CLOSE_GRACE_MS = 1_000;

/** The server's options: the plain ones (checked by `ServeOptionsSchema`) and the roles and grader. */
export interface ServeOptions extends ServeOptionsPlain {
  /** Grades each finished episode; its reward becomes the episode's final reward. */
  grader?: Grader;
  writer?: SituationWriter;
  userModel?: UserSimulator;
  /**
   * Makes each session's episode (OpenEnv's environment factory); by default an {@link Episode}
   * dealing from the planned grid with the writer, person and turn limit given here.
   */
  createEpisode?: (setting: {
    agent: Agent;
    situations: SituationPool;
    maxTurns: number;
  }) => Episode;
}

/** A running server. */
export interface ServerHandle {
  /** `http://host:port`; the WebSocket is at `${url}/ws` with ws:// in front. */
  readonly url: string;
  readonly wsUrl: string;
  readonly port: number;
  /** Stops taking connections, finishes the steps in flight, closes every socket, and resolves. */
  close(): Promise<void>;
}

/**
 * Starts the environment server for an agent spec (an object, an `Agent`, or a JSON file's path):
 * plans the grid resets deal from, and listens. Options are checked first, every problem named.
 */
export async function serve(spec: unknown, options: ServeOptions = {}): Promise<ServerHandle> {
  const { grader, writer, userModel, createEpisode, ...plain } = options;
  const parsed = ServeOptionsSchema.safeParse(plain);
  if (!parsed.success) throw new InputError("serve options", issuesOf(parsed.error, plain));
  const o = { ...SERVE_DEFAULTS, ...parsed.data };
  const agent = typeof spec === "string" ? await Agent.load(spec) : Agent.from(spec);
  const plan = new Planner(agent, { rows: o.rows ?? DEFAULTS.rows, seed: o.seed });
  const situations = new SituationPool(agent, [...plan.walk()]);
  const maxTurns = o.maxTurns ?? DEFAULTS.maxTurns;
  const roles = { writer: writer ?? new OfflineWriter(), userModel: userModel ?? offlineUser };
  const newEpisode =
    createEpisode ??
    // A trainer resets its group's sessions to one task: the group copies one starting world.
    (() => new Episode({ spec: agent, situations, maxTurns, keepStart: true, ...roles }));

  const metrics = new Metrics();
  const table = new SessionTable(o.maxSessions);
  const finished = new FinishedEpisodes(o.keepEpisodes);
  const connections = new Set<Connection>();
  const idleMs = o.idleTtl * 1000;
  let draining = false;
  const context: ConnectionContext = {
    table,
    metrics,
    maxFrameBytes: o.maxFrameBytes,
    stepRate: o.stepRate,
    hooks: { ...(grader ? { grader } : {}), finished: (row) => finished.add(row) },
    outbox: new Outbox(),
    newEpisode: () => newEpisode({ agent, situations, maxTurns }),
    get draining() {
      return draining;
    },
  };

  const accept = (socket: WebSocket) => {
    // Sockets without a session hold no slot; this bounds them, so idle sockets cannot pile up.
    if (connections.size >= 2 * o.maxSessions) {
      metrics.error("CAPACITY_REACHED");
      socket.send(
        encodeReply(
          {
            type: "error",
            data: {
              ...wireError(
                "CAPACITY_REACHED",
                `Server at capacity: ${connections.size} connections open`,
              ),
              active_sessions: table.size,
              max_sessions: o.maxSessions,
            },
          },
          "json",
        ),
      );
      socket.close(1013, "server at capacity");
      return;
    }
    const connection = new Connection(socket, context);
    connections.add(connection);
    socket.on("close", () => connections.delete(connection));
  };

  const freezeSetting = {
    agent,
    plan,
    roles: { maxTurns, simulator: roles.writer.name, userModel: roles.userModel.name },
  };
  const app = createApp({
    ...(o.token ? { token: o.token } : {}),
    agent,
    metricsText: () =>
      metrics.render({
        sessions: table.size,
        detached: table.detached,
        connections: connections.size,
      }),
    freeze: (request) =>
      freeze(finished, request, { folder: o.freezeDir ?? process.cwd(), ...freezeSetting }),
    report: () => renderReport(heldDataset(finished, freezeSetting), "episodes held for freeze"),
    accept,
  });
  // Frames a little over the limit are read and answered VALIDATION_ERROR; far over it, ws closes with 1009.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(4 * o.maxFrameBytes, o.maxFrameBytes + 65_536),
    perMessageDeflate: false,
  });
  // Plain HTTP/1.1 (createAdaptorServer's default): the WebSocket upgrade lives there.
  const http = createAdaptorServer({ fetch: app.fetch, websocket: { server: wss } }) as Server;
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(o.port, o.host, () => {
      http.off("error", reject);
      resolve();
    });
  });

  const sweep = setInterval(
    () => {
      table.sweep(idleMs);
      const now = performance.now();
      for (const connection of connections)
        if (!connection.busy && now - connection.lastActive > idleMs)
          connection.close(1001, "idle");
    },
    Math.max(20, Math.min(idleMs / 4, 5_000)),
  );
  sweep.unref();

  const { port } = http.address() as AddressInfo;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}/ws`,
    port,
    close: () => {
      closing ??= (async () => {
        draining = true;
        clearInterval(sweep);
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await settle(
          Promise.all([...connections].map((connection) => connection.idle())),
          DRAIN_MS,
        );
        for (const connection of connections) connection.close(1001, "server shutting down");
        await settle(Promise.all([...wss.clients].map((client) => closed(client))), CLOSE_GRACE_MS);
        for (const client of wss.clients) client.terminate();
        wss.close();
        http.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

/** Waits for `work`, or `ms`, whichever comes first. */
async function settle(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function closed(socket: WebSocket): Promise<void> {
  return socket.readyState === 3
    ? Promise.resolve()
    : new Promise((resolve) => socket.once("close", () => resolve()));
}
