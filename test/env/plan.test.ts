import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { PairwiseCounter } from "../../env/coverage.ts";
import { planSituations, situationId } from "../../env/plan.ts";
import type { AgentSpec, Coordinate } from "../../spec/index.ts";
import { financeSpec, referenceSpec } from "../fixtures/reference-spec.ts";

const AXES = ["tool", "rule", "stance", "world", "condition", "history"] as const;

/** Pairs of named values held by the coordinates, counted independently of the planner. */
function pairsOf(cells: Coordinate[]): Set<string> {
  const out = new Set<string>();
  for (const c of cells) {
    for (let i = 0; i < AXES.length; i++) {
      for (let j = i + 1; j < AXES.length; j++)
        out.add(
          `${AXES[i]}=${c[AXES[i] as (typeof AXES)[number]]}|${AXES[j]}=${c[AXES[j] as (typeof AXES)[number]]}`,
        );
    }
  }
  return out;
}

describe("planSituations on the reference grid (8,8,7,3,3,2)", () => {
  it("plans 381 pairs and covers all of them in 64 rows with preferSuccess: false", () => {
    const plan = planSituations(referenceSpec, { rows: 64, preferSuccess: false });
    expect(plan.grid.pairs_planned).toBe(381);
    expect(plan.grid.rows).toBe(64);
    expect(plan.coverage.pairwise).toEqual({ pairs_planned: 381, pairs_covered: 381, fraction: 1 });
    expect(pairsOf(plan.cells.map((c) => c.axes)).size).toBe(381);
    expect(plan.flip.flipped).toBe(0);
    expect(plan.cells.every((c) => c.flipped_from === undefined)).toBe(true);
  });

  it("flips nine in ten fault cells on a cold start and reports the coverage it really has", () => {
    const plan = planSituations(referenceSpec, { rows: 64 });
    const faults = plan.grid.cells.filter((c) => c.condition !== "ok").length;
    expect(plan.flip.fault_cells).toBe(faults);
    expect(plan.flip.kept).toBe(Math.max(2, Math.round(0.1 * faults)));
    expect(plan.flip.flipped).toBe(faults - plan.flip.kept);
    const flipped = plan.cells.filter((c) => c.flipped_from !== undefined);
    expect(flipped).toHaveLength(plan.flip.flipped);
    for (const cell of flipped) {
      expect(cell.axes.condition).toBe("ok");
      expect(plan.grid.cells[cell.cell]?.condition).toBe(cell.flipped_from);
    }
    const covered = pairsOf(plan.cells.map((c) => c.axes)).size;
    expect(plan.coverage.pairwise).toEqual({
      pairs_planned: 381,
      pairs_covered: covered,
      fraction: covered / 381,
    });
    expect(covered).toBeLessThan(381);
  });

  it("keeps at least one cell of every fault kind, even at fault rate 0", () => {
    const plan = planSituations(referenceSpec, { rows: 64, faultRate: 0 });
    expect(plan.flip.kinds_kept).toEqual(["timeout", "server_error"]);
    expect(plan.flip.kept).toBe(2);
    const kinds = new Set(plan.cells.map((c) => c.axes.condition));
    expect(kinds).toEqual(new Set(["ok", "timeout", "server_error"]));
  });

  it("keeps the fault cell of each kind that carries the most otherwise-lost pairs", () => {
    const plan = planSituations(referenceSpec, { rows: 64, faultRate: 0 });
    const keptCells = plan.cells.filter((c) => c.axes.condition !== "ok");
    const oursCovered = pairsOf(plan.cells.map((c) => c.axes)).size;
    // Try every other choice of one kept cell per kind: none covers more pairs than ours.
    const byKind = (kind: string) =>
      plan.grid.cells.flatMap((c, n) => (c.condition === kind ? [n] : []));
    let best = 0;
    for (const t of byKind("timeout")) {
      for (const s of byKind("server_error")) {
        const cells = plan.grid.cells.map((c, n) =>
          n === t || n === s || c.condition === "ok" ? c : { ...c, condition: "ok" as const },
        );
        best = Math.max(best, pairsOf(cells).size);
      }
    }
    expect(keptCells).toHaveLength(2);
    expect(oursCovered).toBe(best);
  });

  it("keeps the share faultRate asks for, and every fault cell at faultRate 1", () => {
    const half = planSituations(referenceSpec, { rows: 64, faultRate: 0.5 });
    expect(half.flip.kept).toBe(Math.round(0.5 * half.flip.fault_cells));
    const all = planSituations(referenceSpec, { rows: 64, faultRate: 1 });
    expect(all.flip.flipped).toBe(0);
    expect(all.coverage.pairwise.fraction).toBe(1);
  });

  it("takes the world dials from the spec when no option overrides them", () => {
    const spec: AgentSpec = { ...referenceSpec, world: { prefer_success: false, seed: 11 } };
    const plan = planSituations(spec, { rows: 64 });
    expect(plan.seed).toBe(11);
    expect(plan.flip.prefer_success).toBe(false);
    expect(planSituations(spec, { rows: 64, preferSuccess: true }).flip.prefer_success).toBe(true);
  });
});

describe("planSituations determinism and walks", () => {
  it("gives an identical plan for the same seed and a different one for another seed", () => {
    const a = planSituations(referenceSpec, { rows: 100, seed: 3 });
    expect(planSituations(referenceSpec, { rows: 100, seed: 3 })).toEqual(a);
    const b = planSituations(referenceSpec, { rows: 100, seed: 4 });
    expect(b.grid.cells).not.toEqual(a.grid.cells);
    expect(b.cells.map((c) => c.id)).not.toEqual(a.cells.map((c) => c.id));
  });

  it("walks the grid again with fresh seeds when asked for more rows, and keeps other fault cells", () => {
    const plan = planSituations(referenceSpec, { rows: 200 });
    expect(plan.passes).toBe(4);
    expect(plan.cells).toHaveLength(200);
    expect(new Set(plan.cells.map((c) => c.id)).size).toBe(200);
    expect(new Set(plan.cells.map((c) => c.seed)).size).toBe(200);
    const firstPass = planSituations(referenceSpec, { rows: 64 });
    expect(plan.coverage.pairwise.pairs_covered).toBeGreaterThan(
      firstPass.coverage.pairwise.pairs_covered,
    );
    const keptIn = (pass: number) =>
      new Set(
        plan.cells.filter((c) => c.pass === pass && c.axes.condition !== "ok").map((c) => c.cell),
      );
    expect(keptIn(1)).not.toEqual(keptIn(0));
  });

  it("orders the walk so that a short run covers as much as it can", () => {
    let previous = 0;
    for (const rows of [1, 2, 4, 8, 16, 32, 64]) {
      const covered = planSituations(referenceSpec, { rows, preferSuccess: false }).coverage
        .pairwise.pairs_covered;
      expect(covered).toBeGreaterThan(previous);
      previous = covered;
    }
    expect(planSituations(referenceSpec, { rows: 1 }).coverage.pairwise.pairs_covered).toBe(15);
  });

  it("derives a situation's id from spec, coordinate and seed alone", () => {
    const plan = planSituations(referenceSpec, { rows: 5 });
    for (const cell of plan.cells)
      expect(cell.id).toBe(situationId(plan.spec_hash, cell.axes, cell.seed));
    expect(planSituations({ ...referenceSpec, name: "other" }, { rows: 5 }).cells[0]?.id).not.toBe(
      plan.cells[0]?.id,
    );
  });

  it("refuses bad options, naming each", () => {
    expect(() => planSituations(referenceSpec, { rows: 0, faultRate: 2 })).toThrow(
      /rows: expected at least 1 row[\s\S]*faultRate: expected a share between 0 and 1/,
    );
  });
});

describe("forbidden pairs", () => {
  const scoped: AgentSpec = {
    ...referenceSpec,
    policy: [
      { id: "confirm_refund", text: "Confirm before refunding.", tools: ["refund_order"] },
      { id: "report_failures", text: "Report tool failures plainly." },
    ],
    axes: { ...referenceSpec.axes, forbid: [{ tool: "get_order", condition: "server_error" }] },
  };

  it("never plans a scoped rule with another tool, nor a forbidden fault", () => {
    const plan = planSituations(scoped, { preferSuccess: false });
    for (const cell of plan.grid.cells) {
      if (cell.rule === "confirm_refund") expect(cell.tool).toBe("refund_order");
      expect(cell.tool === "get_order" && cell.condition === "server_error").toBe(false);
    }
    expect(plan.grid.pairs_forbidden).toBe(7 + 1);
    expect(plan.coverage.pairwise.fraction).toBe(1);
  });
});

describe("PairwiseCounter", () => {
  const tiny: AgentSpec = {
    name: "tiny",
    system_prompt: "You help.",
    tools: [
      { name: "get_a", inputSchema: { type: "object" } },
      { name: "get_b", inputSchema: { type: "object" } },
    ],
    policy: [],
    axes: {
      stances: ["cooperative"],
      worlds: ["normal"],
      conditions: ["ok", "timeout"],
      histories: ["fresh"],
    },
  };
  const at = (tool: string, condition: "ok" | "timeout"): Coordinate => ({
    tool,
    rule: "none",
    stance: "cooperative",
    world: "normal",
    condition,
    history: "fresh",
  });

  it("counts hand-checked cases", () => {
    // Levels (2,1,1,1,2,1): tool×condition 4 pairs, tool×(4 single axes) 8, condition×(4 single axes) 8,
    // the four single axes among themselves 6: 26 pairs.
    const counter = new PairwiseCounter(Agent.from(tiny));
    expect(counter.result()).toEqual({ pairs_planned: 26, pairs_covered: 0, fraction: 0 });
    counter.visit(at("get_a", "ok")); // 15 pairs, all new
    expect(counter.result()).toEqual({ pairs_planned: 26, pairs_covered: 15, fraction: 15 / 26 });
    counter.visit(at("get_a", "ok")); // nothing new
    expect(counter.result().pairs_covered).toBe(15);
    counter.visit(at("get_b", "timeout")); // tool=b ×5, condition=timeout ×4 more: 9 new
    expect(counter.result().pairs_covered).toBe(24);
    counter.visit(at("get_a", "timeout")); // (a, timeout)
    counter.visit(at("get_b", "ok")); // (b, ok)
    expect(counter.result()).toEqual({ pairs_planned: 26, pairs_covered: 26, fraction: 1 });
  });

  it("leaves forbidden pairs out of what is planned", () => {
    const counter = new PairwiseCounter(
      Agent.from({
        ...tiny,
        axes: { ...tiny.axes, forbid: [{ tool: "get_b", condition: "timeout" }] },
      }),
    );
    expect(counter.result().pairs_planned).toBe(25);
    expect(() => counter.visit({ ...at("get_a", "ok"), stance: "grumpy" })).toThrow(
      /"grumpy" is not a stance/,
    );
  });
});

describe("the cold-start flip on short runs", () => {
  it("spreads the kept fault cells through the walk, so a short run keeps the fault share it asked for", () => {
    for (const rows of [4, 8, 16, 32]) {
      const plan = planSituations(financeSpec, { rows });
      const faults = plan.cells.filter((c) => c.axes.condition !== "ok").length;
      const kept = planSituations(financeSpec).flip.kept;
      expect(faults, `${rows} rows`).toBeLessThanOrEqual(Math.ceil((kept * rows) / plan.grid.rows));
    }
  });
});
