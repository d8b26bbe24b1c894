import { expect, it } from "vitest";
import { planSituations } from "../../env/plan.ts";
import { specOf } from "../support/specs.ts";

it("a tool outside every rule's scope is still planned, with the rule none", () => {
  const spec = specOf(
    [
      ["get_order", { order_id: { type: "string" } }, ["order_id"]],
      [
        "refund_order",
        { order_id: { type: "string" }, amount: { type: "number" } },
        ["order_id", "amount"],
      ],
    ],
    {
      policy: [
        { id: "confirm_refunds", text: "Confirm before any refund.", tools: ["refund_order"] },
      ],
    },
  );
  const plan = planSituations(spec, { rows: 100 });
  expect(new Set(plan.cells.map((c) => c.axes.tool))).toEqual(
    new Set(["get_order", "refund_order"]),
  );
  expect(
    plan.cells.filter((c) => c.axes.tool === "get_order").every((c) => c.axes.rule === "none"),
  ).toBe(true);
});
