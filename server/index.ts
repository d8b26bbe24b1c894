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
import { resolve } from "node:path";
import { createAdaptorServer } from "@hono/node-server";
import { type WebSocket, WebSocketServer } from "ws";
import {
  Agent,
  type Episode,
  type Grader,
  graderFrom,
  InputError,
  issuesOf,
  OfflineWriter,
  offlineUser,
  Planner,
  rowJson,
  SituationPool,
  type SituationWriter,
  type UserSimulator,
} from "../env/index.ts";
import {
  DEFAULTS,
  SERVE_DEFAULTS,
  type ServeOptionsPlain,
  ServeOptionsSchema,
} from "../spec/index.ts";
import { createApp } from "./app.ts";
import { dealtEpisode, Engine, settle } from "./engine.ts";
import { HeldEpisodes } from "./held-episodes.ts";
import { Metrics } from "./metrics.ts";
import { encodeReply, wireError } from "./protocol.ts";
import { EngineThreads } from "./threads.ts";

/** How long shutdown waits for steps in flight, then for clients to answer the close. */
const DRAIN_MS = 10_000;
const CLOSE_GRACE_MS = 1_000;

/** The server's options: the plain ones (checked by `ServeOptionsSchema`) and the roles and grader. */
export interface ServeOptions extends ServeOptionsPlain {
  /**
   * Grades each finished episode; its reward becomes the episode's final reward. A grader
   * module's path (what `rehearse serve --grader` takes) is loaded here and, with engine threads, in
   * every thread; a function runs on the main thread only.
   */
  grader?: Grader | string;
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
  const { grader: given, writer, userModel, createEpisode, ...plain } = options;
  const parsed = ServeOptionsSchema.safeParse(plain);
  if (!parsed.success) throw new InputError("serve options", issuesOf(parsed.error, plain));
  const o = { ...SERVE_DEFAULTS, ...parsed.data };
  // A module is loaded here even for threads, which load it again: a broken one is named at once.
  const graderModule = typeof given === "string" ? resolve(given) : undefined;
  const grader: Grader | undefined = graderModule
    ? await graderFrom(graderModule, "grader")
    : (given as Grader | undefined);
  const agent = typeof spec === "string" ? await Agent.load(spec) : Agent.from(spec);
  const plan = new Planner(agent, { rows: o.rows ?? DEFAULTS.rows, seed: o.seed });
  const situations = new SituationPool(agent, [...plan.walk()]);
  const maxTurns = o.maxTurns ?? DEFAULTS.maxTurns;
  const roles = { writer: writer ?? new OfflineWriter(), userModel: userModel ?? offlineUser };
  const newEpisode =
    createEpisode ?? (() => dealtEpisode({ agent, situations, maxTurns, ...roles }));

  const limits = {
    maxSessions: o.maxSessions,
    maxFrameBytes: o.maxFrameBytes,
    stepRate: o.stepRate,
    idleTtl: o.idleTtl,
  };
  const roleNames = { maxTurns, simulator: roles.writer.name, userModel: roles.userModel.name };
  const held = await HeldEpisodes.start({
    spec: agent.spec,
    specHash: agent.hash,
    plan: {
      rows: plan.rows,
      seed: plan.seed,
      faultRate: plan.faultRate,
      preferSuccess: plan.preferSuccess,
    },
    limits: { keep: o.keepEpisodes, keepBytes: o.keepBytes },
    roles: roleNames,
    folder: o.freezeDir ?? process.cwd(),
  });
  // What the main thread answers itself (capacity at the door); each engine counts its own.
  const metrics = new Metrics();
  const sessions = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
  let engine: Engine | null = null;
  let threads: EngineThreads | null = null;
  // Nothing may outlive a server that failed to start: the held-episodes thread is stopped too.
  try {
    if (o.threads > 0) {
      const functions = {
        grader: graderModule ? undefined : grader,
        writer,
        userModel,
        createEpisode,
      };
      const custom = Object.entries(functions).find(([, role]) => role !== undefined);
      if (custom)
        throw new InputError("serve options", [
          {
            path: custom[0],
            message: `engine threads play with the offline writer and person, and grade with a grader module given by its path; a ${custom[0]} given as a function runs on the main thread only: serve with threads 0 (no --threads)`,
          },
        ]);
      threads = await EngineThreads.start(
        o.threads,
        {
          spec: agent.spec,
          specHash: agent.hash,
          rows: o.rows ?? DEFAULTS.rows,
          seed: o.seed,
          maxTurns,
          ...(graderModule ? { grader: graderModule } : {}),
          ...limits,
          sessions: sessions.buffer as SharedArrayBuffer,
        },
        (line) => held.addLine(line),
      );
    } else {
      engine = new Engine({
        limits,
        newEpisode: () => newEpisode({ agent, situations, maxTurns }),
        hooks: {
          ...(grader ? { grader } : {}),
          finished: (row) => held.addLine(rowJson(row, agent)),
        },
        shared: sessions,
      });
    }
  } catch (error) {
    await held.close();
    throw error;
  }
  const connectionCount = () => threads?.connections ?? engine?.connections.size ?? 0;

  const accept = (socket: WebSocket) => {
    // Sockets without a session hold no slot; this bounds them, so idle sockets cannot pile up.
    const open = connectionCount();
    if (open >= 2 * o.maxSessions) {
      metrics.error("CAPACITY_REACHED");
      socket.send(
        encodeReply(
          {
            type: "error",
            data: {
              ...wireError("CAPACITY_REACHED", `Server at capacity: ${open} connections open`),
              active_sessions: Atomics.load(sessions, 0),
              max_sessions: o.maxSessions,
            },
          },
          "json",
        ),
      );
      socket.close(1013, "server at capacity");
      return;
    }
    if (threads) threads.accept(socket);
    else engine?.accept(socket);
  };

  const metricsText = async () => {
    const whole = new Metrics();
    whole.add(metrics.counts());
    let detached = engine?.table.detached ?? 0;
    if (engine) whole.add(engine.metrics.counts());
    if (threads) {
      const counted = await threads.counts();
      for (const counts of counted.metrics) whole.add(counts);
      detached += counted.detached;
      whole.backlogPauses += threads.backlogPauses;
      whole.relayPauses += threads.relayPauses;
    }
    return whole.render({
      sessions: Atomics.load(sessions, 0),
      detached,
      connections: connectionCount(),
      backlogBytes: threads?.backlogBytes ?? engine?.backlogBytes ?? 0,
    });
  };

  const app = createApp({
    ...(o.token ? { token: o.token } : {}),
    agent,
    metricsText,
    freeze: (request) => held.freeze(request),
    report: (conversations) => held.report(conversations),
    accept,
    unhealthy: () =>
      threads && !threads.running
        ? "every engine thread has stopped: restart the server"
        : held.unhealthy,
  });
  // Frames a little over the limit are read and answered VALIDATION_ERROR; far over it, ws closes with 1009.
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: Math.max(4 * o.maxFrameBytes, o.maxFrameBytes + 65_536),
    perMessageDeflate: false,
  });
  // Plain HTTP/1.1 (createAdaptorServer's default): the WebSocket upgrade lives there.
  const http = createAdaptorServer({ fetch: app.fetch, websocket: { server: wss } }) as Server;
  try {
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject);
      http.listen(o.port, o.host, () => {
        http.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    await (threads ? threads.close() : engine?.drain(0));
    await held.close();
    throw error;
  }

  const { port } = http.address() as AddressInfo;
  const host = o.host.includes(":") ? `[${o.host}]` : o.host;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}/ws`,
    port,
    close: () => {
      closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
        await (threads ? threads.drain(DRAIN_MS) : engine?.drain(DRAIN_MS));
        await settle(Promise.all([...wss.clients].map((client) => closed(client))), CLOSE_GRACE_MS);
        for (const client of wss.clients) client.terminate();
        wss.close();
        // A freeze under way finishes, and its reply goes out before the connections are cut.
        await held.settle();
        http.closeIdleConnections();
        await settle(stopped, CLOSE_GRACE_MS);
        http.closeAllConnections();
        await threads?.close();
        await held.close();
        await stopped;
      })();
      return closing;
    },
  };
}

function closed(socket: WebSocket): Promise<void> {
  return socket.readyState === 3
    ? Promise.resolve()
    : new Promise((resolve) => socket.once("close", () => resolve()));
}
