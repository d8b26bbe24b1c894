import { specOf } from "../support/specs.ts";

/** A spec with an enum value its own pattern refuses: it works, but no call can use that value. */
export const WARNED = specOf([
  [
    "get_order",
    {
      order_id: { type: "string" },
      carrier: { type: "string", pattern: "^[A-Z]+$", enum: ["UPS", "dhl"] },
    },
    ["order_id"],
  ],
]);

/** A spec whose ids no shape the world makes passes: two tools want different ids for orders. */
export const UNWORKABLE = specOf([
  ["get_order", { order_id: { type: "string", enum: ["A1", "A2", "A3"] } }, ["order_id"]],
  [
    "cancel_order",
    { order_id: { type: "string", format: "ipv6" }, reason: { type: "string" } },
    ["order_id", "reason"],
  ],
]);
