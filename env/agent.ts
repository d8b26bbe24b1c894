import {
  type AgentSpec,
  AgentSpecSchema,
  AxesOverrideSchema,
  type ForbiddenPair,
  type Rule,
  RuleSchema,
  type ToolDefinition,
  type ToolInput,
  type ToolRole,
  ToolRoleSchema,
  ToolSchema,
  type WorldDials,
} from "../spec/index.ts";
import { argumentCheck } from "./arguments.ts";
import { type Axes, buildAxes } from "./axes.ts";
import { type PolicyReading, readPolicy } from "./policy/index.ts";
import { normaliseTool } from "./tools.ts";
import { type InputIssue, issuesOf, SpecError } from "./util/errors.ts";
import { readJsonFile } from "./util/files.ts";
import { canonicalJson, sha256 } from "./util/hash.ts";

const TOOL_FORMATS = ["OpenAI chat", "OpenAI responses", "MCP"] as const;

/**
 * A validated, normalised agent spec: tools in one shape, the policy as rules, the six axes built.
 * Build one with {@link Agent.from}; everything downstream trusts it.
 */
export class Agent {
  readonly name: string;
  readonly system_prompt: string;
  /** Every tool of the spec, normalised, with its access and role. */
  readonly tools: readonly ToolDefinition[];
  readonly rules: readonly Rule[];
  /** The policy as read: rule scopes and why, passages set aside, confirmations, identity. */
  readonly policy: PolicyReading;
  readonly axes: Axes;
  readonly forbidden: readonly ForbiddenPair[];
  readonly world: WorldDials;
  /** SHA-256 of the normalised spec: what situation ids are derived from. */
  readonly hash: string;
  /** The spec as given (validated), to write beside the data it produced. */
  readonly spec: AgentSpec;

  private constructor(
    spec: AgentSpec,
    tools: ToolDefinition[],
    policy: PolicyReading,
    axes: Axes,
    forbidden: ForbiddenPair[],
  ) {
    this.spec = spec;
    this.name = spec.name;
    this.system_prompt = spec.system_prompt;
    this.tools = tools;
    this.policy = policy;
    this.rules = policy.rules;
    this.axes = axes;
    this.forbidden = forbidden;
    this.world = spec.world ?? {};
    this.hash = sha256(
      canonicalJson({
        name: this.name,
        system_prompt: this.system_prompt,
        tools,
        rules: this.rules,
        axes,
        forbidden,
      }),
    );
  }

  /**
   * Validates and normalises a spec; throws {@link SpecError} listing every problem found, those
   * of shape and those across fields (unknown tools in a rule, duplicate names…) together.
   */
  static from(input: unknown, source = "agent spec"): Agent {
    if (input instanceof Agent) return input;
    const shape = AgentSpecSchema.safeParse(input);
    const issues: InputIssue[] = shape.success
      ? []
      : issuesOf(shape.error, input, chooseToolFormat);
    const { spec, toolAt, ruleAt } = validParts(input);
    const tools = withRoles(spec.tools, spec.tool_roles ?? {}, issues);
    spec.tools.forEach((raw, n) => {
      const tool = tools[n] as ToolDefinition;
      issues.push(...schemaProblems(tool, `tools[${toolAt[n]}].${schemaPath(raw)}`));
    });
    duplicates(
      tools.map((t) => t.name),
      (name, n, first) =>
        issues.push({
          path: `tools[${toolAt[n]}]`,
          message: `duplicate tool name "${name}" (also tools[${toolAt[first]}])`,
        }),
    );
    const policy = readPolicy(spec.policy, tools, spec.system_prompt);
    const rules = policy.rules;
    const rulePath = (n: number) => `policy[${ruleAt[n] ?? n}]`;
    duplicates(
      rules.map((r) => r.id),
      (id, n, first) =>
        issues.push({
          path: `${rulePath(n)}.id`,
          message: `duplicate rule id "${id}" (also ${rulePath(first)})`,
        }),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    rules.forEach((rule, n) => {
      for (const [m, name] of (rule.tools ?? []).entries()) {
        if (!byName.has(name))
          issues.push({
            path: `${rulePath(n)}.tools[${m}]`,
            message: `unknown tool "${name}"; expected one of ${[...byName.keys()].join(", ")}`,
          });
      }
      if (rule.tools?.every((name) => byName.get(name)?.role === "utility"))
        issues.push({
          path: `${rulePath(n)}.tools`,
          message: `names only utility tools (${rule.tools.join(", ")}), which are kept off the tool axis; scope it to tools that act on the world, or set their role in tool_roles`,
        });
    });
    const situationTools = tools.filter((t) => t.role !== "utility");
    if (tools.length > 0 && situationTools.length === 0)
      issues.push({
        path: "tools",
        message:
          "every tool is a utility (such as think or calculate), so no situation can be planned; give tool_roles for the tools that act on the world",
      });
    const built = buildAxes(situationTools, [...rules], spec.axes);
    issues.push(...built.issues);
    if (issues.length > 0) throw new SpecError(source, issues);
    return new Agent(spec, tools, policy, built.axes, built.forbidden);
  }

  /** Reads and validates a JSON agent spec file; problems name the file. */
  static async load(path: string): Promise<Agent> {
    return Agent.from(await readJsonFile(path), path);
  }
}

/** A spec's valid parts, and where each tool and rule sat in the input. */
interface Parts {
  spec: AgentSpec;
  toolAt: number[];
  ruleAt: number[];
}

/**
 * The parts of a spec that are valid on their own, so the checks across fields report their
 * problems beside the problems of shape: every problem is reported at once.
 */
function validParts(input: unknown): Parts {
  const parsed = AgentSpecSchema.safeParse(input);
  if (parsed.success) {
    const rules = Array.isArray(parsed.data.policy) ? parsed.data.policy : [];
    return {
      spec: parsed.data,
      toolAt: parsed.data.tools.map((_, n) => n),
      ruleAt: rules.map((_, n) => n),
    };
  }
  const raw = (input !== null && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const toolAt: number[] = [];
  const tools = (Array.isArray(raw.tools) ? raw.tools : []).flatMap((t, n) => {
    const tool = ToolSchema.safeParse(t);
    if (!tool.success) return [];
    toolAt.push(n);
    return [tool.data];
  });
  const ruleAt: number[] = [];
  const policy: AgentSpec["policy"] =
    typeof raw.policy === "string"
      ? raw.policy
      : (Array.isArray(raw.policy) ? raw.policy : []).flatMap((r, n) => {
          const rule = RuleSchema.safeParse(r);
          if (!rule.success) return [];
          ruleAt.push(n);
          return [rule.data];
        });
  const axes = AxesOverrideSchema.safeParse(raw.axes ?? {});
  const roles: Record<string, ToolRole> = {};
  if (raw.tool_roles !== null && typeof raw.tool_roles === "object")
    for (const [name, role] of Object.entries(raw.tool_roles)) {
      const parsedRole = ToolRoleSchema.safeParse(role);
      if (parsedRole.success) roles[name] = parsedRole.data;
    }
  return {
    spec: {
      name: typeof raw.name === "string" ? raw.name : "",
      system_prompt: typeof raw.system_prompt === "string" ? raw.system_prompt : "",
      tools,
      policy,
      ...(axes.success ? { axes: axes.data } : {}),
      tool_roles: roles,
    },
    toolAt,
    ruleAt,
  };
}

/** Normalised tools, with the roles the spec's `tool_roles` gives; a role for an unknown tool is a problem. */
function withRoles(
  inputs: readonly ToolInput[],
  roles: Record<string, ToolRole>,
  issues: InputIssue[],
): ToolDefinition[] {
  const tools = inputs.map(normaliseTool);
  const names = new Set(tools.map((t) => t.name));
  for (const name of Object.keys(roles))
    if (!names.has(name))
      issues.push({
        path: `tool_roles.${name}`,
        message: `no tool is named "${name}"; expected one of ${[...names].join(", ")}`,
      });
  return tools.map((tool) =>
    Object.hasOwn(roles, tool.name)
      ? { ...tool, role: roles[tool.name] as ToolRole, role_source: "spec" }
      : tool,
  );
}

/** Where a tool's parameter schema sits in the format it was written in. */
function schemaPath(input: ToolInput): string {
  if ("function" in input) return "function.parameters";
  return "inputSchema" in input ? "inputSchema" : "parameters";
}

/** A parameter schema that does not compile, or requires what it does not declare, is refused now, not mid-run. */
function schemaProblems(tool: ToolDefinition, path: string): InputIssue[] {
  const problems: InputIssue[] = [];
  try {
    argumentCheck(tool.parameters);
  } catch (error) {
    problems.push({ path, message: `not a valid JSON Schema: ${(error as Error).message}` });
  }
  const declared = Object.keys(tool.parameters.properties ?? {});
  (tool.parameters.required ?? []).forEach((name, m) => {
    if (!declared.includes(name)) {
      problems.push({
        path: `${path}.required[${m}]`,
        message: `"${name}" is required but not among the properties (${declared.join(", ") || "none"})`,
      });
    }
  });
  return problems;
}

/** For an invalid tool, report the format it looks like it was written in. */
function chooseToolFormat(path: string, input: unknown): number | undefined {
  if (!/^tools\[\d+\]$/.test(path) || input === null || typeof input !== "object") return undefined;
  if ("function" in input) return TOOL_FORMATS.indexOf("OpenAI chat");
  if ("type" in input) return TOOL_FORMATS.indexOf("OpenAI responses");
  return TOOL_FORMATS.indexOf("MCP");
}

function duplicates(
  names: string[],
  report: (name: string, at: number, first: number) => void,
): void {
  const first = new Map<string, number>();
  names.forEach((name, n) => {
    const seen = first.get(name);
    if (seen === undefined) first.set(name, n);
    else report(name, n, seen);
  });
}
