import {
  type AgentSpec,
  AgentSpecSchema,
  type ForbiddenPair,
  type Rule,
  type ToolDefinition,
  type ToolInput,
  type WorldDials,
} from "../spec/index.ts";
import { type Axes, buildAxes } from "./axes.ts";
import { readJsonFile } from "./files.ts";
import { canonicalJson, sha256 } from "./hash.ts";
import { rulesFromMarkdown } from "./policy.ts";
import { issuesOf, SpecError, type SpecIssue } from "./spec-error.ts";
import { normaliseTool } from "./tools.ts";
import { argumentCheck } from "./world/arguments.ts";

const TOOL_FORMATS = ["OpenAI chat", "OpenAI responses", "MCP"] as const;

/**
 * A validated, normalised agent spec: tools in one shape, the policy as rules, the six axes built.
 * Build one with {@link Agent.from}; everything downstream trusts it.
 */
export class Agent {
  readonly name: string;
  readonly system_prompt: string;
  readonly tools: readonly ToolDefinition[];
  readonly rules: readonly Rule[];
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
    rules: Rule[],
    axes: Axes,
    forbidden: ForbiddenPair[],
  ) {
    this.spec = spec;
    this.name = spec.name;
    this.system_prompt = spec.system_prompt;
    this.tools = tools;
    this.rules = rules;
    this.axes = axes;
    this.forbidden = forbidden;
    this.world = spec.world ?? {};
    this.hash = sha256(
      canonicalJson({
        name: this.name,
        system_prompt: this.system_prompt,
        tools,
        rules,
        axes,
        forbidden,
      }),
    );
  }

  /** Validates and normalises a spec; throws {@link SpecError} listing every problem found. */
  static from(input: unknown, source = "agent spec"): Agent {
    if (input instanceof Agent) return input;
    const parsed = AgentSpecSchema.safeParse(input);
    if (!parsed.success)
      throw new SpecError(source, issuesOf(parsed.error, input, chooseToolFormat));
    const spec = parsed.data;
    const issues: SpecIssue[] = [];
    const tools = spec.tools.map(normaliseTool);
    for (const [n, tool] of tools.entries()) {
      issues.push(...schemaProblems(tool, `tools[${n}].${schemaPath(spec.tools[n] as ToolInput)}`));
    }
    duplicates(
      tools.map((t) => t.name),
      (name, n, first) =>
        issues.push({
          path: `tools[${n}]`,
          message: `duplicate tool name "${name}" (also tools[${first}])`,
        }),
    );
    const rules = typeof spec.policy === "string" ? rulesFromMarkdown(spec.policy) : spec.policy;
    duplicates(
      rules.map((r) => r.id),
      (id, n, first) =>
        issues.push({
          path: `policy[${n}].id`,
          message: `duplicate rule id "${id}" (also policy[${first}])`,
        }),
    );
    const toolNames = new Set(tools.map((t) => t.name));
    rules.forEach((rule, n) => {
      for (const [m, name] of (rule.tools ?? []).entries()) {
        if (toolNames.has(name)) continue;
        issues.push({
          path: `policy[${n}].tools[${m}]`,
          message: `unknown tool "${name}"; expected one of ${[...toolNames].join(", ")}`,
        });
      }
    });
    const built = buildAxes(tools, rules, spec.axes);
    issues.push(...built.issues);
    if (issues.length > 0) throw new SpecError(source, issues);
    return new Agent(spec, tools, rules, built.axes, built.forbidden);
  }

  /** Reads and validates a JSON agent spec file; problems name the file. */
  static async load(path: string): Promise<Agent> {
    return Agent.from(await readJsonFile(path), path);
  }
}

/** Where a tool's parameter schema sits in the format it was written in. */
function schemaPath(input: ToolInput): string {
  if ("function" in input) return "function.parameters";
  return "inputSchema" in input ? "inputSchema" : "parameters";
}

/** A parameter schema that does not compile, or requires what it does not declare, is refused now, not mid-run. */
function schemaProblems(tool: ToolDefinition, path: string): SpecIssue[] {
  const problems: SpecIssue[] = [];
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
