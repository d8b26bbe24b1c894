/** Names read from specs and answers, in one case so that `orderId`, `order-id` and `order_id` match. */

import { memoized } from "./memo.ts";

/** snake_case of a parameter name: `orderId` → `order_id`. */
export const snake: (name: string) => string = memoized((name) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/-/g, "_")
    .toLowerCase(),
);

/**
 * A name as it is said: underscores are spaces, and those at its edges are not said
 * (`order_id` → `order id`, `__proto__` → `proto`).
 */
export function spokenWords(name: string): string {
  return name.replace(/_+/g, " ").trim();
}
