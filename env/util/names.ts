/** Names read from specs and answers, in one case so that `orderId`, `order-id` and `order_id` match. */

/** snake_case of a parameter name: `orderId` → `order_id`. */
export function snake(name: string): string {
  let snaked = SNAKED.get(name);
  if (snaked === undefined) {
    snaked = name
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .replace(/-/g, "_")
      .toLowerCase();
    // Names come from specs and answers: a bounded memo, as the same few names are read again and again.
    if (SNAKED.size >= 10_000) SNAKED.clear();
    SNAKED.set(name, snaked);
  }
  return snaked;
}

const SNAKED = new Map<string, string>();

/**
 * A name as it is said: underscores are spaces, and those at its edges are not said
 * (`order_id` → `order id`, `__proto__` → `proto`).
 */
export function spokenWords(name: string): string {
  return name.replace(/_+/g, " ").trim();
}
