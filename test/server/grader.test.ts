import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import grade from "../../examples/grader.ts";
import { Agent, OfflineAgent, type Row, rollout } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";

let agent: Agent;
const servers: ServerHandle[] = [];

beforeAll(async () => {
  agent = await Agent.load("examples/retail-orders.json");
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

async function started(grader: (row: Row) => unknown): Promise<ServerHandle> {
  const server = await serve(agent, { port: 0, rows: 6, grader: grader as never });
  servers.push(server);
  return server;
}

describe("a configured grader", () => {
  it("gives each finished episode its reward, and the reward reply carries its verdict beside the checks", async () => {
    const graded: Row[] = [];
    const server = await started((row) => {
      graded.push(row);
      return grade(row);
    });
    for (let seed = 0; seed < 4; seed++) {
      const client = new EnvClient(server.wsUrl);
      const early = await client.reset({ seed });
      expect((await client.reward()).done).toBe(false);
      const { last } = await rollout(
        client,
        new OfflineAgent({ slipRate: 0.5 }).start(agent, seed),
        { episode_id: early.observation.metadata.episode_id },
      );
      const row = graded.at(-1) as Row;
      const verdict = grade(row);
      expect(last.reward).toBe(verdict.reward);
      const report = await client.reward();
      expect(report).toMatchObject({ done: true, reward: verdict.reward, reason: verdict.reason });
      expect(report.grader).toEqual(verdict);
      expect(report.checks.map((check) => check.name)).toContain("conduct");
      await client.close();
    }
    // Asked once per episode, however often the reward is asked for.
    expect(graded).toHaveLength(4);
  });

  it("that fails, or answers outside the grade's shape, leaves the episode's own reward with grade_error", async () => {
    for (const grader of [
      () => {
        throw new Error("the rubric service is down");
      },
      () => ({ reward: 7, reason: "too good" }),
    ]) {
      const server = await started(grader);
      const client = new EnvClient(server.wsUrl);
      const { last } = await rollout(client, new OfflineAgent().start(agent, 2), { seed: 2 });
      const report = await client.reward();
      expect(report.grade_error).toMatch(/^grader: /);
      expect(report.grader).toBeUndefined();
      expect(last.reward).toBe(report.reward);
      expect(report.reward).toBe(report.checks.every((check) => check.passed) ? 1 : 0);
      await client.close();
    }
  });
});

describe("a grader module given by its path", () => {
  it("grades on engine threads as the same grader does on the main thread", async () => {
    const onThreads = await serve(agent, {
      port: 0,
      rows: 6,
      threads: 2,
      grader: "examples/grader.ts",
    });
    servers.push(onThreads);
    const onMain = await started(grade);
    const rewards = new Set<number>();
    for (let seed = 0; seed < 6; seed++) {
      const [threaded, single] = await Promise.all(
        [onThreads, onMain].map(async (server) => {
          const client = new EnvClient(server.wsUrl);
          await rollout(client, new OfflineAgent({ slipRate: 0.5 }).start(agent, seed), { seed });
          const report = await client.reward();
          await client.close();
          return report;
        }),
      );
      expect(threaded?.grader).toBeDefined();
      expect(threaded).toEqual(single);
      rewards.add(threaded?.reward as number);
    }
    // Both verdicts turn up, so the grader decided and the checks alone did not.
    expect([...rewards].sort()).toEqual([0, 1]);
  });

  it("that an engine thread cannot load fails the start with the thread's reason, and no warning", async () => {
    const folder = await mkdtemp(join(tmpdir(), "rehearse-grader-"));
    const module = join(folder, "main-thread-only.mjs");
    await writeFile(
      module,
      [
        'import { isMainThread } from "node:worker_threads";',
        'if (!isMainThread) throw new Error("this grader loads on the main thread only");',
        'export default () => ({ reward: 1, reason: "ok" });',
      ].join("\n"),
    );
    const warnings: string[] = [];
    const warned = (warning: Error) => warnings.push(warning.message);
    process.on("warning", warned);
    try {
      await expect(serve(agent, { port: 0, threads: 2, grader: module })).rejects.toThrow(
        /engine thread \d: grader.*loads on the main thread only/s,
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", warned);
      await rm(folder, { recursive: true, force: true });
    }
  });

  it("that cannot be loaded is refused before the server listens, naming the option", async () => {
    for (const threads of [0, 2])
      await expect(
        serve(agent, { port: 0, threads, grader: "examples/no-such-grader.ts" }),
      ).rejects.toThrow(/grader.*cannot load the module/s);
  });
});
