import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { PairwiseCounter } from "../../env/coverage.ts";
import { loadDataset } from "../../env/dataset.ts";
import { planSituations } from "../../env/plan.ts";
import { touchedSituation } from "../../env/quality.ts";
import { SimulationInterrupted, simulate } from "../../env/simulate.ts";
import { type Row, RowSchema } from "../../spec/index.ts";
import { financeSpec, helpdeskSpec, referenceSpec } from "../fixtures/reference-spec.ts";

const examples = { retail: referenceSpec, finance: financeSpec, helpdesk: helpdeskSpec };
const tmp = () => mkdtemp(join(tmpdir(), "rehearse-sim-"));

/** Every string and number a value holds. */
const leaves = (value: unknown): string[] =>
  typeof value === "string" || typeof value === "number"
    ? [String(value)]
    : value && typeof value === "object"
      ? Object.values(value).flatMap(leaves)
      : [];

/** Text the person wrote, with the details they hold (kept verbatim by design) taken out. */
const withoutDetails = (text: string, row: Row) =>
  [...leaves(row.situation.world_state), ...leaves(row.episode.goal.arguments)]
    .sort((a, b) => b.length - a.length)
    .reduce((t, v) => t.split(v).join(""), text)
    .replace(/\b[A-Z]{1,5}-?\d{4,}\b/g, "");

describe("simulate: a 64-row offline run of each example", () => {
  for (const [name, spec] of Object.entries(examples)) {
    it(name, async () => {
      const data = await simulate(spec, { rows: 64 });
      const rows = await data.rows();
      expect(rows).toHaveLength(64);
      for (const row of rows) {
        RowSchema.parse(row);
        // Every tool call is answered by the world, once, right after it.
        row.messages.forEach((m, i) => {
          if (m.role !== "assistant") return;
          (m.tool_calls ?? []).forEach((call, k) => {
            expect(row.messages[i + 1 + k]).toMatchObject({
              role: "tool",
              tool_call_id: call.id,
              name: call.function.name,
            });
          });
        });
        // The same person on every turn: their style holds in each message, their email never changes.
        const users = row.messages.filter((m) => m.role === "user").map((m) => m.content as string);
        if (row.persona.tags.includes("lowercase"))
          for (const u of users)
            expect(withoutDetails(u, row)).toBe(withoutDetails(u, row).toLowerCase());
        const emails = new Set(
          users.flatMap((u) =>
            (u.match(/[\w.+-]+@[\w-]+(\.[\w-]+)+/g) ?? []).map((e) => e.replace(/\.$/, "")),
          ),
        );
        expect(emails.size).toBeLessThanOrEqual(1);
      }
      const slipping = rows.filter((r) => r.episode.slips.length > 0).length;
      expect(slipping).toBeGreaterThan(0);
      expect(slipping).toBeLessThan(64);
      expect(new Set(rows.map((r) => r.episode.ended_by)).size).toBeGreaterThan(1);
      // The offline agent and person converge: a conversation going round in circles would hit the limit.
      expect(rows.filter((r) => r.episode.ended_by === "turn_limit")).toEqual([]);
      const counter = new PairwiseCounter(Agent.from(spec));
      const touched = new PairwiseCounter(Agent.from(spec));
      for (const row of rows) {
        counter.visit(row.situation.axes);
        if (touchedSituation(row)) touched.visit(row.situation.axes);
      }
      const { pairs_touched, touched_fraction, ...visited } = data.coverage?.pairwise ?? {};
      expect(visited).toEqual(counter.result());
      expect(visited).toEqual(planSituations(spec, { rows: 64 }).coverage.pairwise);
      // What the rows really touched is counted beside what they visited, and never more.
      expect(pairs_touched).toBe(touched.result().pairs_covered);
      expect(touched_fraction).toBe(touched.result().fraction);
      expect(pairs_touched).toBeGreaterThan(0);
      expect(pairs_touched).toBeLessThanOrEqual(counter.result().pairs_covered);
    });
  }
});

describe("simulate: files", () => {
  it("writes byte-identical JSONL and sidecar for the same seed, and different ones for another seed", async () => {
    const dir = await tmp();
    const paths = ["a", "b", "c"].map((n) => join(dir, `${n}.jsonl`));
    await simulate(referenceSpec, { rows: 40, seed: 5, out: paths[0] });
    await simulate(referenceSpec, { rows: 40, seed: 5, out: paths[1], concurrency: 7 });
    await simulate(referenceSpec, { rows: 40, seed: 6, out: paths[2] });
    const [a, b, c] = await Promise.all(paths.map((p) => readFile(p as string)));
    expect(b?.equals(a as Buffer)).toBe(true);
    expect(c?.equals(a as Buffer)).toBe(false);
    expect(await readFile(`${paths[1]}.meta.json`, "utf8")).toBe(
      await readFile(`${paths[0]}.meta.json`, "utf8"),
    );
    expect((a as Buffer).toString().trim().split("\n")).toHaveLength(40);
  });

  it("keeps the finished rows when interrupted, and resume completes the file without duplicates", async () => {
    const dir = await tmp();
    const full = join(dir, "full.jsonl");
    const cut = join(dir, "cut.jsonl");
    await simulate(financeSpec, { rows: 60, out: full });
    const controller = new AbortController();
    await expect(
      simulate(financeSpec, {
        rows: 60,
        out: cut,
        signal: controller.signal,
        onProgress: (done) => done === 25 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    const partial = (await readFile(`${cut}.partial`, "utf8")).trim().split("\n");
    expect(partial.length).toBeGreaterThanOrEqual(25);
    expect(partial.length).toBeLessThan(60);
    const kept = await loadDataset(`${cut}.partial`);
    expect((await kept.rows()).map((r) => r.id)).toEqual(partial.map((l) => JSON.parse(l).id));
    // A torn last line, as a killed process leaves it, is dropped on resume.
    await writeFile(`${cut}.partial`, `${partial.join("\n")}\n{"id":"row_torn","task_`);
    const resumed = await simulate(financeSpec, { rows: 60, out: cut, resume: true });
    expect(resumed.size).toBe(60);
    expect(await readFile(cut, "utf8")).toBe(await readFile(full, "utf8"));
    const ids = (await resumed.rows()).map((r) => r.id);
    expect(new Set(ids).size).toBe(60);
  });

  it("refuses to resume a partial file made with other options", async () => {
    const dir = await tmp();
    const out = join(dir, "x.jsonl");
    const controller = new AbortController();
    await expect(
      simulate(retailOf(), {
        rows: 30,
        out,
        signal: controller.signal,
        onProgress: (d) => d === 5 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    await expect(simulate(retailOf(), { rows: 30, out, resume: true, seed: 9 })).rejects.toThrow(
      /options\.seed: the partial file was made with 0, not 9/,
    );
  });

  it("leaves a complete earlier file whole when a new run is interrupted", async () => {
    const dir = await tmp();
    const out = join(dir, "keep.jsonl");
    await simulate(referenceSpec, { rows: 10, out });
    const before = await readFile(out, "utf8");
    const controller = new AbortController();
    await expect(
      simulate(referenceSpec, {
        rows: 30,
        seed: 3,
        out,
        overwrite: true,
        signal: controller.signal,
        onProgress: (d) => d === 3 && controller.abort(),
      }),
    ).rejects.toThrow(SimulationInterrupted);
    expect(await readFile(out, "utf8")).toBe(before);
  });

  it("loads a dataset back with its sidecar, and names the line and field of a bad row", async () => {
    const dir = await tmp();
    const out = join(dir, "d.jsonl");
    await simulate(helpdeskSpec, { rows: 12, out });
    const data = await loadDataset(out);
    expect(data.size).toBe(12);
    expect(data.meta?.spec_hash).toBe(Agent.from(helpdeskSpec).hash);
    expect(data.coverage?.pairwise.pairs_planned).toBeGreaterThan(0);
    const lines = (await readFile(out, "utf8")).split("\n");
    const broken = JSON.parse(lines[2] as string);
    broken.messages[0].role = "robot";
    lines[2] = JSON.stringify(broken);
    await writeFile(out, lines.join("\n"));
    await expect((await loadDataset(out)).rows()).rejects.toThrow(
      new RegExp(`${out}:3 is invalid[\\s\\S]*messages\\[0\\]`),
    );
  });

  it("refuses bad options and a target that is neither a spec nor a spec file", async () => {
    await expect(simulate(referenceSpec, { rows: 0, concurrency: 0 })).rejects.toThrow(
      /rows: expected at least 1 row[\s\S]*concurrency: expected at least 1/,
    );
    await expect(
      simulate("a personal finance assistant that confirms before it moves money"),
    ).rejects.toThrow(
      /not a spec file: expected a spec object or a path to a JSON spec; to start from a sentence, draft a spec with draftAgent/,
    );
  });
});

function retailOf() {
  return referenceSpec;
}

describe("simulate: rollouts", () => {
  it("plays each situation k times: same situation, world and person, fresh choices; pass^k follows", async () => {
    const data = await simulate(referenceSpec, { rows: 12, rollouts: 4, slipRate: 0.5, seed: 1 });
    const rows = await data.rows();
    expect(rows).toHaveLength(48);
    expect(new Set(rows.map((r) => r.id)).size).toBe(48);
    const groups = new Map<string, Row[]>();
    for (const row of rows) groups.set(row.task_id, [...(groups.get(row.task_id) ?? []), row]);
    expect(groups.size).toBe(12);
    for (const group of groups.values()) {
      expect(group).toHaveLength(4);
      // The same situation and initial world; only which faults fired, and when, depends on the play.
      expect(
        new Set(
          group.map((r) =>
            JSON.stringify({ ...r.situation, faults: r.situation.faults.map((f) => f.kind) }),
          ),
        ).size,
      ).toBe(1);
      expect(new Set(group.map((r) => JSON.stringify(r.persona.holds))).size).toBe(1);
    }
    expect(
      new Set([...groups.values()].map((g) => g.map((r) => r.episode.slips.length > 0).join()))
        .size,
    ).toBeGreaterThan(1);
    const report = await data.grade({
      grader: (r) => ({ reward: r.conduct.length === 0 ? 1 : 0, reason: "conduct" }),
      judge: "conduct",
      version: "1",
    });
    expect(Object.keys(report.pass_hat_k)).toEqual(["1", "2", "3", "4"]);
    // Over the same situations pass^k never rises with k.
    const k = Object.values(report.pass_hat_k);
    const support = Object.values(report.pass_hat_k_situations);
    for (let i = 1; i < k.length; i++)
      if (support[i] === support[i - 1]) expect(k[i]).toBeLessThanOrEqual(k[i - 1] as number);
  });
});
