import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gradeRows, InputError, loadDataset, replayRow, simulate } from "../../env/index.ts";
import type { Row } from "../../spec/index.ts";
import { completion, OpenAICompatibleServer } from "../support/openai-compatible-server.ts";

const ROOT = join(import.meta.dirname, "../..");
const EXAMPLES = ["retail-orders", "it-helpdesk", "personal-finance"];
const dirs: string[] = [];
let server: OpenAICompatibleServer;

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
});
afterAll(async () => {
  await server.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A run of an example written to disk, its rows and their lines as the file holds them. */
async function written(example: string, rows: number) {
  const dir = await mkdtemp(join(tmpdir(), "rehearse-replay-"));
  dirs.push(dir);
  const out = join(dir, "data.jsonl");
  await simulate(join(ROOT, `examples/${example}.json`), { rows, seed: 11, rollouts: 2, out });
  const data = await loadDataset(out);
  const lines = (await readFile(out, "utf8")).split("\n").filter((line) => line !== "");
  return { data, lines, rows: await data.rows() };
}

/** Up to `n` line numbers of the rows that match. */
const some = (rows: Row[], n: number, keep: (row: Row, i: number) => boolean) =>
  rows.flatMap((row, i) => (keep(row, i) ? [i] : [])).slice(0, n);

describe("replayRow reproduces rows of each example byte for byte", () => {
  for (const example of EXAMPLES)
    it(`${example}: rows with slips, faults, history turns and a second rollout`, async () => {
      const { data, lines, rows } = await written(example, 40);
      const kinds = {
        slips: some(rows, 3, (row) => row.episode.slips.length > 0),
        faults: some(rows, 3, (row) => row.situation.faults.length > 0),
        history: some(rows, 3, (row) => row.episode.history_turns > 0),
        // Rows come in pairs of rollouts: odd lines are each situation's second rollout.
        rollout: some(rows, 3, (_row, i) => i % 2 === 1),
        plain: some(rows, 3, (row) => row.situation.axes.condition === "ok"),
      };
      for (const [kind, picked] of Object.entries(kinds))
        expect(picked.length, `${example} has rows with ${kind}`).toBeGreaterThan(0);
      for (const i of new Set(Object.values(kinds).flat())) {
        const replay = await replayRow(lines[i] as string, {
          meta: data.meta,
        });
        expect(replay, `${example} line ${i + 1}`).toMatchObject({
          row: rows[i]?.id,
          mode: "reproduce",
          reproduced: true,
          difference: null,
          rollout: i % 2,
        });
        expect(JSON.stringify(replay.replayed)).toBe(lines[i]);
      }
    });
});

describe("replayRow says where a row stopped reproducing", () => {
  it("names the first message that differs in a tampered row, and a differing fact outside messages", async () => {
    const { data, rows, lines } = await written("retail-orders", 6);
    const meta = data.meta;
    const row = rows[0] as Row;
    const at = row.episode.history_turns + 1;
    const tampered = structuredClone(row);
    (tampered.messages[at] as { content: string }).content = "I would like a refund, please.";
    const replay = await replayRow(tampered, { meta });
    expect(replay.reproduced).toBe(false);
    expect(replay.difference).toEqual({ path: `messages[${at}].content`, message: at });
    expect(replay.replayed.messages[at]).toEqual(row.messages[at]);

    // A line is held to its bytes: the same fields in another order do not reproduce it.
    const { id, task_id, ...rest } = JSON.parse(lines[0] as string);
    const reordered = await replayRow(JSON.stringify({ task_id, id, ...rest }), { meta });
    expect(reordered).toMatchObject({ reproduced: false, difference: { path: "(whole row)" } });

    const counted = { ...structuredClone(row), episode: { ...row.episode, turns: 99 } };
    expect((await replayRow(counted, { meta })).difference).toEqual({
      path: "episode.turns",
      message: null,
    });
  });

  it("leaves the grade out of the comparison, comparing the rest as written", async () => {
    const { data, rows } = await written("it-helpdesk", 24);
    await gradeRows(rows, { grader: () => ({ reward: 1, reason: "fine" }), judge: "mine" });
    // Rows with slips: the row as written keeps a slip's keys in the order the engine wrote them.
    const slipped = rows.filter((row) => row.episode.slips.length > 0);
    expect(slipped.length).toBeGreaterThan(0);
    // A graded file is written from rows read through the schema: its lines hold the schema's key order.
    const saved = await data.save(join(dirs.at(-1) as string, "graded.jsonl"));
    const lines = (await readFile(saved.path as string, "utf8")).split("\n");
    const slippedLines = lines.filter((line) => line.includes('"slips":[{'));
    expect(slippedLines).toHaveLength(slipped.length);
    for (const row of [rows[1] as Row, ...slipped, ...slippedLines]) {
      const replay = await replayRow(row, { meta: data.meta });
      expect(replay.reproduced, replay.row).toBe(true);
      expect(replay.not_compared).toEqual(["reward", "reason", "judge_meta"]);
    }
  });

  it("refuses a row without its sidecar, with another run's spec, or not of its rollouts", async () => {
    const retail = await written("retail-orders", 2);
    const finance = await written("personal-finance", 2);
    const row = retail.rows[0] as Row;
    await expect(replayRow(row, {} as never)).rejects.toThrow(/meta: expected the run's sidecar/);
    await expect(replayRow(row, { meta: finance.data.meta })).rejects.toThrow(
      /situation\.id: sit_[0-9a-f]+ is not a situation of this sidecar's spec/,
    );
    const renamed = { ...row, id: "row_0000000000000000" };
    await expect(replayRow(renamed, { meta: retail.data.meta })).rejects.toThrow(
      /is not the id of rollout 0 to 1 of sit_/,
    );
    await expect(replayRow("{not json", { meta: retail.data.meta as never })).rejects.toThrow(
      InputError,
    );
  });
});

describe("replayRow with a model", () => {
  const model = () => `test-model@${server.url}`;

  it("plays the same situation with another agent and returns both rows", async () => {
    server.reset();
    server.otherwise(completion({ content: "I am sorry, I cannot help with that today." }));
    const { data, rows } = await written("retail-orders", 4);
    const row = rows[2] as Row;
    const replay = await replayRow(row, {
      meta: data.meta,
      agent: model(),
    });
    expect(replay.mode).toBe("compare");
    expect(replay.reproduced).toBeNull();
    expect(replay.agents).toEqual({ original: "offline", replayed: replay.replayed.models.agent });
    expect(replay.replayed.models.agent).toContain("test-model");
    expect(replay.original).toEqual(row);
    // The same situation, world and person; the agents part at the first agent turn.
    expect(replay.replayed.situation).toEqual(row.situation);
    const firstTurn = row.messages.findIndex(
      (m, i) => m.role === "assistant" && i > row.episode.history_turns,
    );
    expect(replay.difference?.message).toBe(firstTurn);
    expect(replay.replayed.messages[firstTurn]).toMatchObject({
      role: "assistant",
      content: "I am sorry, I cannot help with that today.",
    });
  });

  it("refuses to replay a model's row without its backend, and replays it with one", async () => {
    server.reset();
    server.otherwise(completion({ content: "Let me hand you to a colleague." }));
    const dir = await mkdtemp(join(tmpdir(), "rehearse-replay-model-"));
    dirs.push(dir);
    const data = await simulate(join(ROOT, "examples/retail-orders.json"), {
      rows: 2,
      seed: 4,
      agent: model(),
    });
    const meta = data.meta;
    const [row] = await data.rows();
    await expect(replayRow(row as Row, { meta })).rejects.toThrow(
      /agent: the row's agent was test-model@.* a model: pass its backend/,
    );
    const replay = await replayRow(row as Row, { meta, agent: model() });
    expect(replay).toMatchObject({ mode: "reproduce", reproduced: true });
  });
});
