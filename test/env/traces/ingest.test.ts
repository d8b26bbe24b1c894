import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, ingestTraces, simulate, tracePicture } from "../../../env/index.ts";
import grade from "../../../examples/grader.ts";
import { scriptedOtlp, versionConversations } from "../../support/otel-traces.ts";

let folder: string;
let agent: Agent;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-traces-"));
  agent = await Agent.load("examples/retail-orders.json");
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const TIMEOUT = [{ tool: "get_order", error: "timeout" }];
const MISSING = [{ tool: "cancel_order", result: '{"error":"order W999 not found"}' }];
const PLAIN = [{ tool: "track_shipment", result: '{"status":"in transit"}' }];
const RATE = [{ tool: "refund_order", error: "429 Too Many Requests" }];

describe("ingestTraces on OTLP/JSON from the OpenTelemetry SDK", () => {
  it("places each conversation on the spec's axes with its model and grade", async () => {
    const file = join(folder, "otlp.json");
    await writeFile(
      file,
      scriptedOtlp(
        versionConversations("agent-v1", 1_780_000_000_000, {
          timeout: { calls: TIMEOUT, n: 3, failing: 2 },
          missing: { calls: MISSING, n: 2, failing: 0 },
          plain: { calls: PLAIN, n: 2, failing: 0 },
        }),
      ),
    );
    const { traces, problems } = await ingestTraces([file], { agent });
    expect(problems).toEqual([]);
    expect(traces).toHaveLength(7);
    const byId = new Map(traces.map((trace) => [trace.id, trace]));
    expect(byId.get("agent-v1-timeout-0")).toMatchObject({
      model: "agent-v1",
      coordinate: { tool: "get_order", condition: "timeout", world: "normal" },
      grade: { reward: 0, by: "evaluation" },
      calls: [{ tool: "get_order", error: "timeout: timeout", result: null }],
    });
    expect(byId.get("agent-v1-missing-1")?.coordinate).toEqual({
      tool: "cancel_order",
      condition: "ok",
      world: "record_missing",
    });
    expect(byId.get("agent-v1-plain-0")?.coordinate).toEqual({
      tool: "track_shipment",
      condition: "ok",
      world: "normal",
    });
    expect(byId.get("agent-v1-plain-0")?.grade?.reward).toBe(1);
  });

  it("marks new failures and fixed ones between two model versions", async () => {
    const file = join(folder, "two-versions.jsonl");
    const v1 = scriptedOtlp(
      versionConversations("agent-v1", 1_780_000_000_000, {
        timeout: { calls: TIMEOUT, n: 6, failing: 4 },
        rate: { calls: RATE, n: 4, failing: 3 },
        plain: { calls: PLAIN, n: 5, failing: 0 },
      }),
    );
    const v2 = scriptedOtlp(
      versionConversations("agent-v2", 1_780_000_900_000, {
        timeout: { calls: TIMEOUT, n: 6, failing: 0 },
        rate: { calls: RATE, n: 4, failing: 2 },
        missing: { calls: MISSING, n: 5, failing: 4 },
        plain: { calls: PLAIN, n: 5, failing: 0 },
      }),
    );
    // One export request per line, as the OTLP file exporter writes them.
    await writeFile(file, `${v1}\n${v2}\n`);
    const { traces, problems } = await ingestTraces([file], { agent });
    const picture = tracePicture(traces, problems);
    expect(picture.versions).toEqual({ current: "agent-v2", previous: "agent-v1" });
    const status = Object.fromEntries(
      picture.cells.map((cell) => [
        `${cell.coordinate.tool}/${cell.coordinate.condition}/${cell.coordinate.world}`,
        cell.status,
      ]),
    );
    expect(status).toEqual({
      "cancel_order/ok/record_missing": "new_failure",
      "refund_order/rate_limited/normal": "still_failing",
      "get_order/timeout/normal": "stopped_failing",
      "track_shipment/ok/normal": "fine",
    });
    const missing = picture.cells[0];
    expect(missing?.current).toMatchObject({
      count: 5,
      failures: 4,
      failure_rate: 0.8,
      failing: true,
    });
    expect(missing?.current.interval?.[0]).toBeCloseTo(0.3755, 3);
    expect(missing?.current.interval?.[1]).toBeCloseTo(0.9638, 3);
    expect(missing?.previous).toMatchObject({ count: 0, failure_rate: null, failing: false });
    // The versions can be named the other way round.
    const reversed = tracePicture(traces, problems, { current: "agent-v1", previous: "agent-v2" });
    expect(reversed.cells.find((cell) => cell.coordinate.tool === "get_order")?.status).toBe(
      "new_failure",
    );
    expect(() => tracePicture(traces, problems, { current: "agent-v9" })).toThrow(
      /current: no trace was made by agent-v9 \(found agent-v2, agent-v1\)/,
    );
  });
});

describe("ingestTraces on our own graded rows", () => {
  it("reads each row with its own situation, agent model and reward", async () => {
    const data = await simulate(agent, { rows: 20, seed: 4, out: join(folder, "rows.jsonl") });
    await data.grade({ grader: grade });
    await data.save(join(folder, "rows.graded.jsonl"));
    const rows = await data.rows();
    const { traces, problems } = await ingestTraces([join(folder, "rows.graded.jsonl")], { agent });
    expect(problems).toEqual([]);
    expect(traces.map((trace) => trace.id)).toEqual(rows.map((row) => row.id));
    for (const [n, trace] of traces.entries()) {
      const row = rows[n];
      expect(trace.coordinate).toEqual({
        tool: row?.situation.axes.tool,
        condition: row?.situation.axes.condition,
        world: row?.situation.axes.world,
      });
      expect(trace.grade?.reward).toBe(row?.reward);
      expect(trace.model).toBe("offline");
      expect(trace.source).toMatch(new RegExp(`rows\\.graded\\.jsonl:${n + 1}$`));
    }
  });
});

describe("ingestTraces on a broken file", () => {
  it("counts and names every line it cannot read, and keeps the rest", async () => {
    const file = join(folder, "broken.jsonl");
    const good = scriptedOtlp([{ id: "ok-1", model: "agent-v1", calls: PLAIN, score: 1 }]);
    const stranger = scriptedOtlp([
      {
        id: "odd-1",
        model: "agent-v1",
        calls: [{ tool: "launch_rocket", result: "{}" }, ...PLAIN],
        score: 0,
      },
    ]);
    const ungraded = scriptedOtlp([{ id: "nograde-1", model: "agent-v1", calls: TIMEOUT }]);
    await writeFile(
      file,
      [good, "{not json", '{"hello": "world"}', "", stranger, ungraded, "[1,2"].join("\n"),
    );
    const labels = join(folder, "labels.jsonl");
    await writeFile(
      labels,
      [
        '{"conversation_id": "nograde-1", "reward": 0, "failure_class": "gave_up"}',
        '{"conversation_id": "ghost", "reward": 1}',
        '{"reward": 2}',
      ].join("\n"),
    );

    const { traces, problems } = await ingestTraces([file], { agent });
    expect(traces.map((trace) => trace.id).sort()).toEqual(["nograde-1", "odd-1", "ok-1"]);
    const where = problems.map(
      (problem) => `${problem.kind} ${problem.source.replace(/^.*broken\.jsonl/, "broken.jsonl")}`,
    );
    expect(where).toHaveLength(5);
    expect(where).toEqual(
      expect.arrayContaining([
        "broken_json broken.jsonl:2",
        "not_a_trace broken.jsonl:3",
        "broken_json broken.jsonl:7",
        expect.stringMatching(/^unknown_tool broken\.jsonl:5 span /),
        expect.stringMatching(/^no_grade broken\.jsonl:6 span /),
      ]),
    );
    expect(
      problems
        .filter((problem) => problem.kind === "unknown_tool")
        .map((problem) => problem.detail),
    ).toEqual(["launch_rocket is not a tool of retail orders"]);
    expect(
      problems.filter((problem) => problem.kind === "no_grade").map((problem) => problem.detail),
    ).toEqual(["conversation nograde-1 carries no grade"]);
    expect(traces.find((trace) => trace.id === "odd-1")?.coordinate.tool).toBe("track_shipment");

    const labelled = await ingestTraces([file], { agent, labels });
    expect(labelled.traces.find((trace) => trace.id === "nograde-1")?.grade).toEqual({
      reward: 0,
      failure_class: "gave_up",
      by: "label",
    });
    expect(labelled.problems.filter((problem) => problem.kind === "no_grade")).toEqual([]);
    expect(
      labelled.problems
        .filter((problem) => problem.kind === "no_conversation")
        .map((problem) => problem.detail),
    ).toEqual(["no trace has the conversation id ghost"]);
    expect(
      labelled.problems.filter((problem) => problem.source.endsWith("labels.jsonl:3")),
    ).toHaveLength(1);

    const picture = tracePicture(labelled.traces, labelled.problems);
    expect(picture.problem_counts).toEqual({
      broken_json: 2,
      not_a_trace: 2,
      unknown_tool: 1,
      no_conversation: 1,
    });
    expect(picture.unknown_tools).toEqual({ launch_rocket: 1 });
  });

  it("refuses a file it cannot read, by name", async () => {
    await expect(ingestTraces([join(folder, "nowhere.jsonl")], { agent })).rejects.toThrow(
      /nowhere\.jsonl: cannot read it: ENOENT/,
    );
    await expect(ingestTraces([folder], { agent })).rejects.toThrow(/cannot read it: EISDIR/);
  });
});
