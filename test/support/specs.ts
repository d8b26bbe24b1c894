import { simulate } from "../../env/simulate.ts";
import type { AgentSpec, Row } from "../../spec/index.ts";

/** A spec of OpenAI tools, each `[name, properties, required]`. */
export function specOf(
  tools: [string, Record<string, unknown>, string[]][],
  extra: Partial<AgentSpec> = {},
): AgentSpec {
  return {
    name: "t",
    system_prompt: "You help.",
    policy: [],
    tools: tools.map(([name, properties, required]) => ({
      type: "function" as const,
      function: {
        name,
        description: name.replace(/_/g, " "),
        parameters: { type: "object" as const, properties, required },
      },
    })),
    ...extra,
  };
}

/** Offline rows of a spec with no deliberate slips and every fault cell kept. */
export async function offlineRows(spec: AgentSpec, rows = 40): Promise<Row[]> {
  return (await simulate(spec, { rows, slipRate: 0, preferSuccess: false })).rows();
}

/**
 * A tool as MCP lists it: `name`, the `description` the world reads fields and meaning from, and
 * its parameters (all required unless `required` names them); `output` is its output schema's properties.
 */
export function mcpTool(
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[] = Object.keys(properties),
  output?: Record<string, unknown>,
) {
  return {
    name,
    description,
    inputSchema: { type: "object", properties, required },
    ...(output ? { outputSchema: { type: "object", properties: output } } : {}),
  };
}

/** The calls the agent made in a row, in order, each with its parsed arguments. */
export function callsOf(row: Row): { name: string; args: Record<string, unknown> }[] {
  return row.messages.flatMap((m) =>
    m.role === "assistant"
      ? (m.tool_calls ?? []).map((c) => ({
          name: c.function.name,
          args: JSON.parse(c.function.arguments) as Record<string, unknown>,
        }))
      : [],
  );
}
