import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { describePlan, MAX_LISTED_SITUATIONS, Planner, planSituations } from "../../env/plan.ts";
import { InputError } from "../../env/util/errors.ts";
import { helpdeskSpec, referenceSpec } from "../fixtures/reference-spec.ts";

const specs = { retail: referenceSpec, helpdesk: helpdeskSpec };

describe("a plan that lists no situation", () => {
  it("says what the listing plan says, for runs shorter than the grid and many passes over it", () => {
    for (const [name, spec] of Object.entries(specs)) {
      const agent = Agent.from(spec);
      const grid = new Planner(agent).grid.rows.length;
      // Past the first passes, later ones repeat and the summary counts them without walking.
      for (const rows of [grid - 1, 3 * grid + 5, 10 * grid])
        for (const preferSuccess of [true, false]) {
          const { cells, ...listed } = planSituations(agent, { rows, preferSuccess, seed: rows });
          expect(cells).toHaveLength(rows);
          expect(
            describePlan(agent, { rows, preferSuccess, seed: rows }),
            `${name} ${rows}`,
          ).toEqual(listed);
        }
    }
  });

  it("lists at most MAX_LISTED_SITUATIONS situations, naming what takes more", () => {
    expect(() => planSituations(referenceSpec, { rows: MAX_LISTED_SITUATIONS + 1 })).toThrow(
      InputError,
    );
    expect(() => planSituations(referenceSpec, { rows: MAX_LISTED_SITUATIONS + 1 })).toThrow(
      /rows: a plan that lists its situations takes at most 100000 rows, got 100001; describePlan summarises up to 10000000/,
    );
    const { passes, coverage } = describePlan(referenceSpec, { rows: 10_000_000 });
    expect(passes).toBe(10_000_000 / 64);
    expect(coverage.pairwise.fraction).toBe(1);
  });
});
