import { z } from "zod";
import { AxesOverrideSchema } from "./axes.ts";
import { specObject } from "./strict.ts";

const toolName = z
  .string()
  .regex(/^[a-zA-Z0-9_-]{1,64}$/, "expected 1-64 characters of a-z, A-Z, 0-9, _ or -");

/** A JSON Schema object describing a tool's arguments or result. */
export const JsonSchemaObjectSchema = z.looseObject({
  type: z.literal("object", { error: 'expected "object"' }).optional(),
  properties: z.record(z.string(), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
});
export type JsonSchemaObject = z.infer<typeof JsonSchemaObjectSchema>;

/** A tool in OpenAI's Chat Completions function format. */
export const OpenAIToolSchema = specObject({
  type: z.literal("function"),
  function: specObject({
    name: toolName,
    description: z.string().optional(),
    parameters: JsonSchemaObjectSchema.optional(),
    strict: z.boolean().nullable().optional(),
  }),
});

/** A tool in OpenAI's Responses API format: the function's fields at the top level. */
export const OpenAIResponsesToolSchema = specObject({
  type: z.literal("function"),
  name: toolName,
  description: z.string().nullable().optional(),
  parameters: JsonSchemaObjectSchema.nullable().optional(),
  strict: z.boolean().nullable().optional(),
});

/** MCP tool annotations (behaviour hints from the server); a misspelt hint would misclass the tool, so it is refused. */
export const McpAnnotationsSchema = specObject({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** A tool as an MCP server lists it in `tools/list` (`icons`, `execution` and `_meta` are kept, not read). */
export const McpToolSchema = specObject({
  name: toolName,
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonSchemaObjectSchema,
  outputSchema: JsonSchemaObjectSchema.optional(),
  annotations: McpAnnotationsSchema.optional(),
  icons: z.array(z.unknown()).optional(),
  execution: z.record(z.string(), z.unknown()).optional(),
  _meta: z.record(z.string(), z.unknown()).optional(),
});

/** Any accepted tool format; all are normalised to {@link ToolDefinitionSchema}. */
export const ToolSchema = z.union([OpenAIToolSchema, OpenAIResponsesToolSchema, McpToolSchema]);
export type ToolInput = z.infer<typeof ToolSchema>;

/** An id as people write them: `confirm_before_transfer`, `verify-identity`, `billing.confirm-payment`. */
export const RuleIdSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    "expected 1-64 letters, digits, `_`, `-` or `.`, such as `verify-identity`",
  );

/** One policy rule; `tools` limits the situations it is tested in to those tools. */
export const RuleSchema = specObject({
  id: RuleIdSchema,
  text: z.string().min(1, "expected the rule's text"),
  tools: z.array(toolName).min(1).optional(),
  /** The heading a rule sits under in a markdown policy ("Refunds › Delivered orders"), as context. */
  section: z.string().optional(),
});
export type Rule = z.infer<typeof RuleSchema>;

/** The policy: a list of rules, or markdown split into one rule per bullet or sentence. */
export const PolicySchema = z.union([z.array(RuleSchema), z.string()], {
  error: "expected a list of rules {id, text, tools?} or a markdown string",
});

/** World dials: how often faults stay in the grid, and the default seed. */
export const WorldDialsSchema = specObject({
  fault_rate: z.number().min(0).max(1).optional(),
  prefer_success: z.boolean().optional(),
  seed: z.int().min(0).optional(),
});
export type WorldDials = z.infer<typeof WorldDialsSchema>;

/**
 * What a tool is for, when the name and description lead the guess astray: `normal` acts on the
 * world's records; `utility` serves the agent alone (think, calculate) and is kept off the tool
 * axis; `handoff` hands the conversation to a person and ends it.
 */
export const ToolRoleSchema = z.enum(["normal", "utility", "handoff"]);
export type ToolRole = z.infer<typeof ToolRoleSchema>;

/** The agent spec a user writes: who the agent is, its tools, its policy, and optional axis overrides. */
export const AgentSpecSchema = specObject({
  name: z.string().min(1, "expected the agent's name"),
  system_prompt: z.string().min(1, "expected the agent's system prompt"),
  tools: z.array(ToolSchema).min(1, "expected at least one tool"),
  policy: PolicySchema,
  axes: AxesOverrideSchema.optional(),
  world: WorldDialsSchema.optional(),
  /** Roles for tools whose role the name and description do not tell, by tool name. */
  tool_roles: z.record(toolName, ToolRoleSchema).optional(),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/** Whether a tool only reads the world or changes it, and what told us. */
export const ToolAccessSchema = z.enum(["read", "write"]);
export const AccessSourceSchema = z.enum(["annotation", "verb", "default"]);
/** Where a tool's role came from: the spec's `tool_roles`, its name, or its description. */
export const RoleSourceSchema = z.enum(["spec", "name", "description", "default"]);

/** A tool after normalisation: one shape whatever format the spec used. */
export const ToolDefinitionSchema = z.object({
  name: toolName,
  description: z.string(),
  parameters: JsonSchemaObjectSchema,
  output_schema: JsonSchemaObjectSchema.optional(),
  access: ToolAccessSchema,
  access_source: AccessSourceSchema,
  role: ToolRoleSchema,
  role_source: RoleSourceSchema,
});
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;
