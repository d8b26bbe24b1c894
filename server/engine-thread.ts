import { EventEmitter } from "node:events";
import { workerData } from "node:worker_threads";
import type { WebSocket } from "ws";
import {
  graderFrom,
  OfflineWriter,
  offlineUser,
  Planner,
  rowJson,
  SituationPool,
} from "../env/index.ts";
import { dealtEpisode, Engine } from "./engine.ts";
import {
  append,
  type Batch,
  type EngineThreadSetup,
  type FromThread,
  type ThreadAnswer,
  type ThreadRequest,
  type ToThread,
} from "./thread-protocol.ts";
import { threadStart } from "./thread-start.ts";

/**
 * An engine thread of `rehearse serve --threads N`: it plans the same grid as the main thread
 * and runs an {@link Engine} (sessions, connections, episodes, the same code as a server on one
 * thread) for the connections pinned to it. Their sockets stay on the main thread, which relays
 * their frames here and sends the replies this thread batches back.
 */
const setup = workerData as EngineThreadSetup;
const { port, agent } = threadStart(setup, "engine thread");
const situations = new SituationPool(agent, [
  ...new Planner(agent, { rows: setup.rows, seed: setup.seed }).walk(),
]);

let outbound: Batch<FromThread> = [];
/** Every reply and report of one turn goes out in one message, after the outbox has flushed. */
function report(item: FromThread): void {
  if (outbound.length === 0) queueMicrotask(sendOutbound);
  append(outbound, item);
}
function sendOutbound(): void {
  if (outbound.length === 0) return;
  port.postMessage(outbound);
  outbound = [];
}

/** A connection's socket as this thread sees it: what it sends goes to the main thread, which holds the real one. */
class RelayedSocket extends EventEmitter {
  /** WebSocket's states: 1 open, 2 closing, 3 closed. */
  readyState = 1;
  /** Nothing waits here: the main thread, which holds the real socket, watches its backlog. */
  readonly bufferedAmount = 0;
  constructor(readonly id: number) {
    super();
  }
  send(data: string | Buffer): void {
    // A binary reply's own bytes, copied out of a buffer it may share (a clone would copy it whole).
    report(["send", this.id, typeof data === "string" ? data : new Uint8Array(data)]);
  }
  close(code: number, reason: string): void {
    if (this.readyState > 1) return;
    this.readyState = 2;
    report(["close", this.id, [code, reason]]);
  }
  terminate(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    report(["terminate", this.id, null]);
  }
}

const roles = { writer: new OfflineWriter(), userModel: offlineUser };
const grader = setup.grader ? await graderFrom(setup.grader, "grader") : undefined;
const engine = new Engine({
  limits: setup,
  newEpisode: () => dealtEpisode({ agent, situations, maxTurns: setup.maxTurns, ...roles }),
  hooks: {
    ...(grader ? { grader } : {}),
    finished: (row) => report(["finished", rowJson(row, agent), null]),
  },
  shared: new Int32Array(setup.sessions),
  events: {
    added: (id) => report(["added", id, null]),
    removed: (id) => report(["removed", id, null]),
  },
});

const sockets = new Map<number, RelayedSocket>();

port.on("message", async (message: Batch<ToThread> | ThreadRequest) => {
  if (Array.isArray(message)) {
    for (let at = 0; at < message.length; at += 3)
      relayed([message[at], message[at + 1], message[at + 2]] as unknown as ToThread);
    return;
  }
  const request = message as ThreadRequest;
  if (request.kind === "counts") {
    answer({
      kind: "counts",
      ask: request.ask,
      metrics: engine.metrics.counts(),
      detached: engine.table.detached,
    });
    return;
  }
  await engine.drain(request.ms);
  sendOutbound();
  answer({ kind: "drained", ask: request.ask });
});

function relayed(item: ToThread): void {
  const id = item[1];
  if (item[0] === "open") {
    const socket = new RelayedSocket(id);
    sockets.set(id, socket);
    engine.accept(socket as unknown as WebSocket);
    return;
  }
  const socket = sockets.get(id);
  if (!socket) return;
  if (item[0] === "frame") {
    const frame = item[2];
    if (typeof frame === "string") socket.emit("message", frame, false);
    else
      socket.emit("message", Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength), true);
    return;
  }
  sockets.delete(id);
  socket.readyState = 3;
  socket.emit("close");
}

function answer(message: ThreadAnswer): void {
  port.postMessage(message);
}

answer({ kind: "ready" });
