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

/** A code of lower-case words joined by underscores (`pending_move_in`): never an id, which holds a digit. */
const CODE = /^[a-z]+(?:_[a-z]+)+$/;

/** Codes standing alone in text: not part of an email, a path or a longer token (`jane_doe.smith@x.com`). */
export const CODES_IN_TEXT = /(?<![\w@./-])[a-z]+(?:_[a-z]+)+(?![\w@/-]|\.\w)/g;

/** A field that names a record, said as written: `flight_number`, `item_id`, `plan_code`, `username`. */
export const REFERENCE_FIELD =
  /(^|_)(id|ids|code|codes|number|numbers|ref|reference|sku|key|token|username|login|handle|slug)$|(Id|Number|Code)$/;

/** A code as a person hears it (`pending_move_in` → `pending move in`); any other value as written. */
export function codeInWords(value: string): string {
  return CODE.test(value) ? value.replace(/_/g, " ") : value;
}

/** Whether lower-case text says a value: as written, or a code in words ("waiting on insurance"). */
export function saysValue(text: string, value: string): boolean {
  const wanted = value.toLowerCase();
  return text.includes(wanted) || (CODE.test(wanted) && text.includes(wanted.replace(/_/g, " ")));
}
