import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Agent,
  Episode,
  InputError,
  loadDataset,
  type ObservationData,
  OfflineAgent,
  Planner,
  type RolloutResult,
  type Row,
  rollout,
  type Situation,
  SituationPool,
  simulate,
} from "../../index.ts";
import { EnvClient, type EnvServerError } from "../../sdk-client/index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";

const SPEC = "examples/retail-orders.json";
const ROWS = 12;
const SEED = 5;

let agent: Agent;
let grid: Situation[];
let rows: Row[];

beforeAll(async () => {
  agent = await Agent.load(SPEC);
  grid = [...new Planner(agent, { rows: ROWS, seed: SEED }).walk()];
  rows = await (await simulate(agent, { rows: ROWS, seed: SEED })).rows();
});

/** The planned situation a row plays. */
const situationOf = (row: Row): Situation =>
  grid.find((situation) => situation.id === row.task_id) as Situation;

/** The offline agent simulate() plays a row's situation with (rollout 0 plays the situation's own seed). */
const policyFor = (row: Row) => new OfflineAgent().start(agent, row.situation.seed);

// Once with the episodes on the main thread, once on two engine threads the main thread relays to.
describe.each([0, 2])("an episode over the wire, %i engine threads", (threads) => {
  let server: ServerHandle;
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "rehearse-serve-"));
    server = await serve(agent, {
      port: 0,
      rows: ROWS,
      seed: SEED,
      stepRate: 1e6,
      maxSessions: 128,
      freezeDir: folder,
      threads,
    });
  });
  afterAll(async () => {
    await server.close();
    await rm(folder, { recursive: true, force: true });
  });

  it.each(["json", "msgpack"] as const)(
    "reaches the same messages and reward as simulate() and the in-process Episode (%s frames)",
    async (encoding) => {
      for (const row of rows.slice(0, 6)) {
        const client = new EnvClient(server.wsUrl, { encoding });
        const remote = await rollout(client, policyFor(row), { task_id: row.task_id });
        expect(remote.error).toBeNull();
        expect(remote.conversation).toEqual(row.messages);
        expect(remote.last.observation.metadata).toMatchObject({
          episode_id: row.id,
          task_id: row.task_id,
        });

        const local = new Episode({ spec: agent, situation: situationOf(row) });
        const inProcess = await rollout(local, policyFor(row));
        expect(remote.last.reward).toBe(inProcess.last.reward);
        const { done, ...grade } = await client.reward();
        expect(done).toBe(true);
        expect(grade).toEqual(local.reward());
        expect(grade.reward).toBe(row.episode.outcome?.reached && row.conduct.length === 0 ? 1 : 0);
        await client.close();
      }
    },
  );

  it("deals a reset's split and seed from the planned grid as the in-process pool does", async () => {
    const client = new EnvClient(server.wsUrl);
    const local = new Episode({ spec: agent, situations: new SituationPool(agent, grid) });
    for (const split of ["train", "holdout", "eval"] as const) {
      const request = { split, seed: 4 };
      const remote = await client.reset(request).catch((error: EnvServerError) => error);
      const expected = await local.reset(request).catch((error: InputError) => error);
      if (expected instanceof InputError) {
        expect((remote as EnvServerError).data.errors).toEqual(expected.issues);
        continue;
      }
      const { session_id: _, ...result } = remote as ObservationData;
      expect(result).toEqual(JSON.parse(JSON.stringify(expected)));
    }
    await client.close();
  });

  it("freezes finished episodes into a dataset loadDataset reads, with simulate's sidecar", async () => {
    const before = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "drain.jsonl" }),
    });
    expect(before.status).toBe(200);
    for (const row of rows.slice(6, 9)) {
      const client = new EnvClient(server.wsUrl);
      await rollout(client, policyFor(row), { task_id: row.task_id });
      await client.close();
    }
    const response = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "frozen.jsonl" }),
    });
    expect(response.status).toBe(200);
    const result = (await response.json()) as { path: string };
    expect(result).toMatchObject({ rows: 3, dropped: 0, path: join(folder, "frozen.jsonl") });
    const data = await loadDataset(result.path);
    const frozen = await data.rows();
    expect(frozen.map((r) => r.messages)).toEqual(rows.slice(6, 9).map((r) => r.messages));
    expect(frozen.map((r) => r.id)).toEqual(rows.slice(6, 9).map((r) => r.id));
    expect(frozen.map((r) => r.episode.outcome)).toEqual(
      rows.slice(6, 9).map((r) => r.episode.outcome),
    );
    expect(data.meta?.spec_hash).toBe(agent.hash);
    expect(data.meta?.options).toMatchObject({ rows: ROWS, seed: SEED, agent: "external" });
    expect(data.coverage?.pairwise.pairs_covered).toBeGreaterThan(0);
    expect(data.quality?.rows).toBe(3);

    const again = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "frozen.jsonl" }),
    });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toMatch(/already exists/);
    const bad = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      body: JSON.stringify({ name: "../escape.jsonl" }),
    });
    expect(bad.status).toBe(400);
  });

  it("holds 100 concurrent sessions apart: each plays its own situation and seed as it would alone", async () => {
    const plays = Array.from({ length: 100 }, (_, i) => ({
      row: rows[i % rows.length] as Row,
      seed: 1000 + i,
    }));
    const clients = plays.map(
      (_, i) => new EnvClient(server.wsUrl, { encoding: i % 2 === 0 ? "json" : "msgpack" }),
    );
    const remote = await Promise.all(
      plays.map(({ row, seed }, i) =>
        rollout(clients[i] as EnvClient, new OfflineAgent().start(agent, seed), {
          task_id: row.task_id,
          seed,
        }),
      ),
    );
    const local: RolloutResult[] = [];
    for (const { row, seed } of plays) {
      const episode = new Episode({ spec: agent, situation: situationOf(row) });
      local.push(
        await rollout(episode, new OfflineAgent().start(agent, seed), {
          task_id: row.task_id,
          seed,
        }),
      );
    }
    remote.forEach((result, i) => {
      expect(result.conversation).toEqual(local[i]?.conversation);
      expect(result.last.reward).toBe(local[i]?.last.reward);
    });
    // Different seeds give different people: the sessions did not share one.
    expect(new Set(remote.map((r) => JSON.stringify(r.conversation[1]))).size).toBeGreaterThan(50);
    await Promise.all(clients.map((client) => client.close()));
  });
});
