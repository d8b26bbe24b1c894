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

/** What {@link pauseIfBacklogged} needs of a socket (a ws WebSocket, or an engine thread's stand-in). */
export type BackloggedSocket = Pick<
  WebSocket,
  "bufferedAmount" | "isPaused" | "pause" | "resume" | "readyState"
>;

/**
 * Stops reading from a client that does not read its replies. Once more than `limit` bytes wait
 * to go out on its socket, the socket is paused: its next frames wait in the network and in the
 * client, not in this server's memory. It is read again when the backlog has fallen to half.
 * No reply is dropped. Returns whether this call paused it.
 */
export function pauseIfBacklogged(socket: BackloggedSocket, limit: number): boolean {
  if (socket.isPaused || socket.bufferedAmount <= limit) return false;
  socket.pause();
  const recheck = setInterval(() => {
    const open = socket.readyState === 1;
    if (open && socket.bufferedAmount > limit / 2) return;
    clearInterval(recheck);
    if (open) socket.resume();
  }, RECHECK_MS);
  recheck.unref();
  return true;
}
