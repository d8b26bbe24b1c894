/** A JSON Schema property, as the templates write them. */
type Property = Record<string, unknown>;

/** A string parameter, with an example value the world's ids follow. */
export const id = (description: string): Property => ({ type: "string", description });
export const text = (description: string): Property => ({ type: "string", description });
export const amount = (description: string): Property => ({
  type: "number",
  exclusiveMinimum: 0,
  description,
});
export const date = (description: string): Property => ({
  type: "string",
  format: "date",
  description,
});
export const oneOf = (values: string[], description: string): Property => ({
  type: "string",
  enum: values,
  description,
});

/**
 * A tool in the MCP shape the spec accepts: its parameters, the required ones, and whether it only
 * reads (`readOnlyHint`) or changes something (`destructiveHint` when it cannot be undone).
 */
export function tool(
  name: string,
  description: string,
  properties: Record<string, Property>,
  required: string[],
  effect: "read" | "write" | "destructive",
): Record<string, unknown> {
  return {
    name,
    description,
    inputSchema: { type: "object", properties, required },
    annotations:
      effect === "read"
        ? { readOnlyHint: true }
        : { readOnlyHint: false, ...(effect === "destructive" ? { destructiveHint: true } : {}) },
  };
}
