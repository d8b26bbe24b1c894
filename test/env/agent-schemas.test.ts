import { expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { specOf } from "../support/specs.ts";

it("refuses schemas that do not compile or require what they do not declare, before anything runs", () => {
  expect(() =>
    Agent.from(specOf([["get_order", { order_id: { type: "strng" } }, ["order_id"]]])),
  ).toThrow(/tools\[0\]\.function\.parameters: not a valid JSON Schema/);
  expect(() =>
    Agent.from(
      specOf([
        ["get_order", { order_id: { type: "string", pattern: "^ORD\\-[0-9]{6}$" } }, ["order_id"]],
      ]),
    ),
  ).toThrow(/not a valid JSON Schema/);
  expect(() =>
    Agent.from(specOf([["get_order", { order_id: { type: "string" } }, ["order_id", "orderId"]]])),
  ).toThrow(
    /tools\[0\]\.function\.parameters\.required\[1\]: "orderId" is required but not among the properties \(order_id\)/,
  );
});
