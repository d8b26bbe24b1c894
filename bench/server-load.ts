import WebSocket from "ws";
import { endsEpisode, RESET_FRAME, stepFrame } from "./server-turns.ts";

/**
 * The load generator of `bench/server.ts`, run as its own process so it has its own core: `sessions`
 * sockets each send a reset, then steps (a lookup, then a question, in turn) and a new reset after
 * every episode that ends, each frame after the last reply, for `seconds`. A raw echo server gets
 * the same frames back, so it measures the same client doing the same work.
 */
interface Load {
  url: string;
  sessions: number;
  seconds: number;
}

const { url, sessions, seconds } = JSON.parse(process.argv[2] ?? "{}") as Load;

async function session(
  deadline: number,
  latencies: number[],
): Promise<{ steps: number; resets: number }> {
  const socket = new WebSocket(url, { perMessageDeflate: false });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let steps = 0;
  let resets = 0;
  let turn = 0;
  let sentAt = 0;
  let stepping = false;
  const send = (frame: string, isStep: boolean) => {
    stepping = isStep;
    sentAt = performance.now();
    socket.send(frame);
  };
  await new Promise<void>((resolve) => {
    socket.on("message", (data) => {
      const now = performance.now();
      const text = String(data);
      if (stepping) {
        steps++;
        latencies.push(now - sentAt);
      } else resets++;
      if (now >= deadline) {
        socket.close();
        resolve();
        return;
      }
      if (text.startsWith('{"type":"error"'))
        throw new Error(`the server refused a frame: ${text}`);
      if (endsEpisode(text)) {
        turn = 0;
        send(RESET_FRAME, false);
        return;
      }
      turn++;
      send(stepFrame(turn), true);
    });
    send(RESET_FRAME, false);
  });
  return { steps, resets };
}

const latencies: number[] = [];
const cpuStart = process.cpuUsage();
const started = performance.now();
const deadline = started + seconds * 1000;
const counts = await Promise.all(
  Array.from({ length: sessions }, () => session(deadline, latencies)),
);
const elapsed = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(
  JSON.stringify({
    steps: counts.reduce((sum, c) => sum + c.steps, 0),
    resets: counts.reduce((sum, c) => sum + c.resets, 0),
    seconds: elapsed,
    clientCpuSeconds: (cpu.user + cpu.system) / 1e6,
    latencies,
  }),
);
