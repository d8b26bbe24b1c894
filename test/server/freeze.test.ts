import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Agent, InputError, loadDataset, OfflineAgent, rollout, simulate } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { FinishedEpisodes } from "../../server/freeze.ts";
import { HeldEpisodes } from "../../server/held-episodes.ts";
import type { HeldThreadSetup } from "../../server/held-protocol.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { playEpisodes } from "./harness.ts";

let agent: Agent;
let folder: string;
let server: ServerHandle;

beforeAll(async () => {
  agent = await Agent.load("examples/retail-orders.json");
  folder = await mkdtemp(join(tmpdir(), "rehearse-freeze-"));
  server = await serve(agent, { port: 0, rows: 6, keepEpisodes: 2, freezeDir: folder });
});
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

describe("finished episodes kept for a freeze", () => {
  it("keeps at most `keep`, newest last, and counts those that gave way", async () => {
    const rows = await (await simulate(agent, { rows: 20, seed: 3 })).rows();
    const kept = new FinishedEpisodes(8, 1 << 30);
    for (const row of rows) kept.addLine(JSON.stringify(row));
    expect(kept.size).toBeLessThanOrEqual(8);
    const taken = kept.take();
    expect(taken.rows.length + taken.dropped).toBe(20);
    expect(taken.rows.map((line) => JSON.parse(line).id)).toEqual(
      rows.slice(20 - taken.rows.length).map((row) => row.id),
    );
    expect(kept.size).toBe(0);
    kept.restore(taken);
    expect(kept.take()).toEqual(taken);
  });

  it("keeps at most `keepBytes` of JSON lines however few the rows, newest last, and counts those that gave way", () => {
    const budget = 1 << 20;
    const kept = new FinishedEpisodes(10_000, budget);
    // Rows the size an episode at the message limit makes: four fit in the budget, not five.
    const id = (n: number) => `row_${String(n).padStart(2, "0")}`;
    const line = (n: number) => JSON.stringify({ id: id(n), text: "é".repeat(120_000) });
    const size = Buffer.byteLength(line(0));
    for (let n = 0; n < 40; n++) {
      kept.addLine(line(n));
      expect(kept.bytes).toBeLessThanOrEqual(budget);
    }
    expect(kept.bytes).toBe(kept.size * size);
    const taken = kept.take();
    expect(taken.rows.length).toBeGreaterThan(0);
    expect(taken.rows.length + taken.dropped).toBe(40);
    expect(taken.rows.map((l) => JSON.parse(l).id)).toEqual(
      Array.from({ length: taken.rows.length }, (_, i) => id(40 - taken.rows.length + i)),
    );
    expect(kept.bytes).toBe(0);
    kept.restore(taken);
    expect(kept.bytes).toBe(taken.rows.length * size);
    // A row larger than the whole budget is not kept, and is counted.
    kept.addLine(JSON.stringify({ id: "huge", text: "x".repeat(budget) }));
    expect(kept.peek().rows.map((l) => JSON.parse(l).id)).not.toContain("huge");
    expect(kept.take().dropped).toBe(taken.dropped + taken.rows.length + 1);
  });

  it("says in the sidecar's warnings and the reply how many gave way", async () => {
    for (let seed = 0; seed < 5; seed++) {
      const client = new EnvClient(server.wsUrl);
      await rollout(client, new OfflineAgent().start(agent, seed), { seed });
      await client.close();
    }
    const response = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "kept.jsonl" }),
    });
    const result = (await response.json()) as { rows: number; dropped: number; path: string };
    expect(result.rows + result.dropped).toBe(5);
    expect(result.dropped).toBeGreaterThan(0);
    const data = await loadDataset(result.path);
    expect(data.size).toBe(result.rows);
    expect(data.warnings.join("\n")).toMatch(
      new RegExp(`${result.dropped} finished episodes were not kept`),
    );
    const empty = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "empty.jsonl" }),
    });
    expect(((await empty.json()) as { rows: number }).rows).toBe(0);
  });

  it("runs freezes one at a time: of four at once for one name, one writes the rows, three are refused", async () => {
    for (let seed = 0; seed < 2; seed++) {
      const client = new EnvClient(server.wsUrl);
      await rollout(client, new OfflineAgent().start(agent, seed), { seed });
      await client.close();
    }
    const responses = await Promise.all(
      Array.from({ length: 4 }, () =>
        fetch(`${server.url}/v1/freeze`, {
          method: "POST",
          body: JSON.stringify({ name: "race.jsonl" }),
        }),
      ),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409]);
    const written = responses.find((response) => response.status === 200) as Response;
    const result = (await written.json()) as { rows: number; path: string };
    expect(result.rows).toBe(2);
    expect((await loadDataset(result.path)).size).toBe(2);
  });

  it("is written off the main thread: steps keep being answered while many held episodes are frozen", async () => {
    const busy = await serve(agent, { port: 0, rows: 6, stepRate: 1e6, freezeDir: folder });
    try {
      await playEpisodes(agent, busy.wsUrl, 1200);
      const client = new EnvClient(busy.wsUrl);
      await client.reset({ seed: 1 });
      let written = false;
      const frozen = fetch(`${busy.url}/v1/freeze`, {
        method: "POST",
        body: JSON.stringify({ name: "busy.jsonl" }),
      }).then(async (response) => {
        written = true;
        return (await response.json()) as { rows: number };
      });
      let answered = 0;
      while (!written) {
        const result = await client.step({ role: "assistant", content: "Could you tell me more?" });
        if (result.done) await client.reset({ seed: answered });
        answered++;
      }
      expect((await frozen).rows).toBeGreaterThanOrEqual(1200);
      // Written on the main thread, a freeze of 1,200 episodes let 26 and 27 steps through in two runs; here 731–955.
      expect(answered).toBeGreaterThan(200);
      await client.close();
    } finally {
      await busy.close();
    }
  }, 120_000);
});

/** A held-episodes thread's setup for the retail example, with `changes` over it. */
function setupOf(changes: Partial<HeldThreadSetup>): HeldThreadSetup {
  return {
    spec: agent.spec,
    specHash: agent.hash,
    plan: { rows: 6, seed: 0, faultRate: 0.1, preferSuccess: true },
    limits: { keep: 10, keepBytes: 1 << 20 },
    roles: { maxTurns: 30, simulator: "offline", userModel: "offline" },
    folder,
    ...changes,
  };
}

describe("the held-episodes thread", () => {
  it("that cannot start fails the start with its reason", async () => {
    await expect(HeldEpisodes.start(setupOf({ specHash: "not the spec's hash" }))).rejects.toThrow(
      /^the held-episodes thread could not start: held-episodes thread: the spec hashes to \w+, not not the spec's hash$/,
    );
  });

  it("that stops fails what it owed at once, warns, and says how many episodes it could not keep", async () => {
    const warned = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const held = await HeldEpisodes.start(setupOf({}));
    try {
      // Only JSON lines are ever sent: anything else stops the thread, as a crash would. The rows
      // waiting go before the freeze, so the thread stops on them with the freeze owed.
      held.addLine(42 as unknown as string);
      const owed = held.freeze({ name: "lost.jsonl" });
      await expect(owed).rejects.toThrow(/the held-episodes thread stopped/);
      // Nothing is under way any more: a closing server does not wait out its grace for it.
      await held.settle(60_000);
      held.addLine('{"id":"row_1"}');
      held.addLine('{"id":"row_2"}');
      expect(held.unhealthy).toMatch(
        /^the held-episodes thread stopped \(.*\): the episodes it held are lost, and 2 finished since were not kept; restart the server$/,
      );
      await expect(held.report()).rejects.toThrow(/the held-episodes thread stopped/);
      expect(warned).toHaveBeenCalledWith(
        expect.stringMatching(/^the held-episodes thread stopped/),
        expect.objectContaining({ code: "REHEARSE_HELD_THREAD" }),
      );
    } finally {
      warned.mockRestore();
      await held.close();
    }
  }, 20_000);

  it("answers a page it cannot make with the reason, and goes on holding episodes", async () => {
    const held = await HeldEpisodes.start(setupOf({}));
    try {
      held.addLine('{"id":"row_without_a_situation"}');
      await expect(held.report()).rejects.toThrow(/reading 'axes'/);
      expect(held.unhealthy).toBeNull();
      // Refused before anything is taken: a name in use, answered as the input error it is (409).
      await writeFile(join(folder, "in-use.jsonl"), "");
      await expect(held.freeze({ name: "in-use.jsonl" })).rejects.toThrow(InputError);
    } finally {
      await held.close();
    }
  });

  it("a server closing sends the reply of a freeze under way before it cuts the connection", async () => {
    const closing = await serve(agent, { port: 0, rows: 6, stepRate: 1e6, freezeDir: folder });
    await playEpisodes(agent, closing.wsUrl, 600);
    const reply = fetch(`${closing.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "while-closing.jsonl" }),
    });
    // The request is in; the thread is still reading 600 episodes when the close begins.
    await new Promise((resolve) => setTimeout(resolve, 30));
    await closing.close();
    const response = await reply;
    expect(response.status).toBe(200);
    expect(((await response.json()) as { rows: number }).rows).toBe(600);
  }, 120_000);

  it("closing past its grace, cuts what is under way and warns that it did", async () => {
    const warned = vi.spyOn(process, "emitWarning").mockImplementation(() => {});
    const held = await HeldEpisodes.start(setupOf({}));
    try {
      const owed = held.report().catch((error: Error) => error.message);
      await held.close(0);
      expect(await owed).toBe("the held-episodes thread stopped (the server is closing)");
      expect(warned).toHaveBeenCalledWith(
        expect.stringMatching(
          /^the server closed with 1 freeze or report requests still under way after 0 ms/,
        ),
        expect.objectContaining({ code: "REHEARSE_HELD_THREAD" }),
      );
    } finally {
      warned.mockRestore();
    }
  });

  it("closing, lets a freeze under way finish writing before it stops", async () => {
    const rows = await (await simulate(agent, { rows: 300, seed: 4 })).rows();
    const held = await HeldEpisodes.start(setupOf({ limits: { keep: 1000, keepBytes: 1 << 30 } }));
    for (const row of rows) held.addLine(JSON.stringify(row));
    const frozen = held.freeze({ name: "closing.jsonl" });
    await held.close();
    expect((await frozen).rows).toBe(300);
    expect((await loadDataset(join(folder, "closing.jsonl"))).size).toBe(300);
  });
});
