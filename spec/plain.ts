/** What the plain readers beside the schemas (`plainStepMessage`, `plainAssistantMessage`) check a value's shape with. */

/** Whether a value is an object as JSON reads one: a plain `{}`, not an array or a class's instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype
  );
}

/** Whether every own key of `value` is one of `allowed`. */
export function keysWithin(value: object, allowed: ReadonlySet<string>): boolean {
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}
