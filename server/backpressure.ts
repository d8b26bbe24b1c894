import type { WebSocket } from "ws";

/** How often a paused socket's unsent replies are looked at again (ms). */
const RECHECK_MS = 10;

/**
 * The most bytes of replies a client may leave unread before the server stops reading its frames:
 * 4 MiB, or the frame limit when that is larger (a reply is never held back for its own size).
 */
export function backlogLimit(maxFrameBytes: number): number {
  return Math.max(4 << 20, maxFrameBytes);
}

/** What the server needs of a socket to stop and start reading it (a ws WebSocket, or a stand-in). */
export type ReadableSocket = Pick<WebSocket, "bufferedAmount" | "pause" | "resume" | "readyState">;

/** Why a socket is not being read: its client's replies pile up, or its engine thread is behind. */
type Hold = "backlog" | "relay";

const holds = new WeakMap<ReadableSocket, Set<Hold>>();

/** Stops reading `socket` for `reason`, until {@link releaseReading} with each reason it was held for. */
export function holdReading(socket: ReadableSocket, reason: Hold): void {
  let reasons = holds.get(socket);
  if (!reasons) {
    reasons = new Set();
    holds.set(socket, reasons);
  }
  if (reasons.size === 0) socket.pause();
  reasons.add(reason);
}

/** Lets go of one reason `socket` was held for; it is read again once no reason is left. */
export function releaseReading(socket: ReadableSocket, reason: Hold): void {
  const reasons = holds.get(socket);
  if (!reasons?.delete(reason) || reasons.size > 0) return;
  if (socket.readyState === 1) socket.resume();
}

/** Lets go of every reason `socket` was held for, so that a closing socket reads its client's close. */
export function releaseAll(socket: ReadableSocket): void {
  const reasons = holds.get(socket);
  if (!reasons || reasons.size === 0) return;
  reasons.clear();
  if (socket.readyState <= 2) socket.resume();
}

/** Whether `socket` is held for `reason`. */
export function isHeld(socket: ReadableSocket, reason: Hold): boolean {
  return holds.get(socket)?.has(reason) ?? false;
}

/**
 * Stops reading from a client that does not read its replies. Once more than `limit` bytes wait
 * to go out on its socket, the socket is paused: its next frames wait in the network and in the
 * client, not in this server's memory. It is read again when the backlog has fallen to half.
 * No reply is dropped. Returns whether this call paused it.
 */
export function pauseIfBacklogged(socket: ReadableSocket, limit: number): boolean {
  if (socket.bufferedAmount <= limit || isHeld(socket, "backlog")) return false;
  holdReading(socket, "backlog");
  const recheck = setInterval(() => {
    if (socket.readyState === 1 && socket.bufferedAmount > limit / 2) return;
    clearInterval(recheck);
    releaseReading(socket, "backlog");
  }, RECHECK_MS);
  recheck.unref();
  return true;
}
