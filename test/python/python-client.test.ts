import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, type ChatMessage, Episode, Planner, SituationPool } from "../../index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";

/** Debian's interpreter: its python3-websockets and python3-msgpack live there (`python3` on PATH may be another). */
const PYTHON = "/usr/bin/python3";
const SCRIPT = "test/python/openenv_client.py";
const TOKEN = "python-client-token";
const run = promisify(execFile);

let agent: Agent;
/** The server with its episodes on the main thread, and one on two engine threads. */
const servers: Record<number, ServerHandle> = {};

beforeAll(async () => {
  // No skip: without the packages the test fails and says how to get them (.ci/run installs them).
  await run(PYTHON, ["-c", "import websockets, msgpack"]).catch((error: { stderr?: string }) => {
    throw new Error(
      `${PYTHON} cannot import websockets and msgpack; install Debian's python3-websockets and python3-msgpack (apt-get install python3-websockets python3-msgpack), as .ci/run does: ${error.stderr ?? error}`,
    );
  });
  agent = await Agent.load("examples/retail-orders.json");
  for (const threads of [0, 2])
    servers[threads] = await serve(agent, { port: 0, rows: 8, token: TOKEN, maxTurns: 8, threads });
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.close())));

describe("a plain Python client speaking OpenEnv's envelope (websockets + msgpack)", () => {
  it.each([
    ["json", 0],
    ["msgpack", 0],
    ["json", 2],
    ["msgpack", 2],
  ])("runs an episode over %s frames (%i engine threads)", async (encoding, threads) => {
    const server = servers[threads] as ServerHandle;
    const { stdout } = await run(PYTHON, [SCRIPT, server.wsUrl, encoding, "17", TOKEN], {
      timeout: 60_000,
    });
    const seen = JSON.parse(stdout);
    expect(seen.bad_frame).toBe("INVALID_JSON");
    expect(seen.unknown_type).toBe("UNKNOWN_TYPE");
    expect(seen.tools).toEqual(agent.tools.map((tool) => tool.name));
    expect(seen.done).toBe(true);
    expect(seen.state).toMatchObject({ done: true, episode_id: seen.metadata.episode_id });
    expect(seen.grade_id).toBe("grade");

    // The same episode in process, fed the Python client's messages, says the same thing.
    const grid = [...new Planner(agent, { rows: 8 }).walk()];
    const episode = new Episode({
      spec: agent,
      situations: new SituationPool(agent, grid),
      maxTurns: 8,
    });
    const first = await episode.reset({ seed: 17 });
    const conversation: ChatMessage[] = [...first.observation.messages];
    let last = first;
    const sent = (seen.conversation as ChatMessage[]).filter(
      (m, i) => m.role === "assistant" && i >= first.observation.messages.length,
    );
    for (const message of sent) {
      last = await episode.step(message);
      conversation.push(message, ...last.observation.messages);
    }
    expect(seen.conversation).toEqual(JSON.parse(JSON.stringify(conversation)));
    expect(seen.reward).toBe(last.reward);
    expect(seen.truncated).toBe(last.observation.truncated);
    expect(seen.metadata).toEqual(last.observation.metadata);
    expect(seen.state.step_count).toBe(sent.length);
    const { done, ...grade } = seen.grade;
    expect(done).toBe(true);
    expect(grade).toEqual(episode.reward());
  });
});
