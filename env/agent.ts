import { stat } from "node:fs/promises";
import {
  type AgentSpec,
  AgentSpecSchema,
  AxesOverrideSchema,
  type ForbiddenPair,
  LIMITS,
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
import { depthProblems, refCycle, schemaFindings } from "./schema-checks.ts";
import { normaliseTool, parametersPath } from "./tools.ts";
import { type InputIssue, issuesOf, messageOf, SpecError } from "./util/errors.ts";
import { readJsonFile } from "./util/files.ts";
import { canonicalJson, sha256 } from "./util/hash.ts";
import { keyed } from "./util/lookup.ts";

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
  /**
   * The spec exactly as given (a copy, validated): every key as written, `x-` keys and parameters
   * named `__proto__` included, to write beside the data it produced.
   */
  readonly spec: AgentSpec;
  /**
   * What the spec asks that some calls can never meet, each as `path: why` (an enum value its own
   * schema refuses, an output field no value fits): the run goes on, and its warnings carry these.
   */
  readonly warnings: readonly string[];

  private constructor(
    spec: AgentSpec,
    tools: ToolDefinition[],
    policy: PolicyReading,
    axes: Axes,
    forbidden: ForbiddenPair[],
    warnings: string[],
  ) {
    this.spec = spec;
    this.warnings = warnings;
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
    // How deep the spec nests is checked first and without recursion: every later walk relies on it.
    const deep = depthProblems(input);
    const shape = AgentSpecSchema.safeParse(input);
    const issues: InputIssue[] = [
      ...deep,
      ...(shape.success ? [] : issuesOf(shape.error, input, chooseToolFormat)),
    ];
    const tooDeep = new Set(
      deep.flatMap((d) => {
        const at = /^tools\[(\d+)\]/.exec(d.path);
        return at ? [Number(at[1])] : [];
      }),
    );
    const whole = shape.success && deep.length === 0 ? asWritten(input, issues) : null;
    const { spec, toolAt, ruleAt } = whole ?? validParts(input, tooDeep);
    const tools = withRoles(spec.tools, spec.tool_roles ?? {}, issues);
    const warnings: InputIssue[] = [];
    spec.tools.forEach((raw, n) => {
      const tool = tools[n] as ToolDefinition;
      const at = `tools[${toolAt[n]}]`;
      issues.push(...schemaProblems(tool, `${at}.${parametersPath(raw)}`, warnings));
      // The world makes records to the output schema, but nothing refuses a call for it: a warning.
      if (tool.output_schema) {
        const found = schemaFindings(tool.output_schema, `${at}.outputSchema`);
        warnings.push(...found.problems, ...found.warnings);
      }
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
    // A markdown policy is one string: its rules have no path of their own, so a problem of one
    // is the policy's, naming the rule; a path into the string would point at nothing.
    const ruleIssue = (n: number, field: string, message: string): InputIssue =>
      typeof spec.policy === "string"
        ? { path: "policy", message: `rule ${rules[n]?.id} read from it: ${message}` }
        : { path: `policy[${ruleAt[n] ?? n}]${field}`, message };
    duplicates(
      rules.map((r) => r.id),
      (id, n, first) =>
        issues.push(
          ruleIssue(
            n,
            ".id",
            `duplicate rule id "${id}" (also ${typeof spec.policy === "string" ? `rule ${first + 1}` : `policy[${ruleAt[first] ?? first}]`})`,
          ),
        ),
    );
    const byName = new Map(tools.map((t) => [t.name, t]));
    rules.forEach((rule, n) => {
      for (const [m, name] of (rule.tools ?? []).entries()) {
        if (!byName.has(name))
          issues.push(
            ruleIssue(
              n,
              `.tools[${m}]`,
              `unknown tool "${name}"; expected one of ${[...byName.keys()].join(", ")}`,
            ),
          );
      }
      if (rule.tools?.every((name) => byName.get(name)?.role === "utility"))
        issues.push(
          ruleIssue(
            n,
            ".tools",
            `names only utility tools (${rule.tools.join(", ")}), which are kept off the tool axis; scope it to tools that act on the world, or set their role in tool_roles`,
          ),
        );
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
    return new Agent(
      spec,
      tools,
      policy,
      built.axes,
      built.forbidden,
      warnings.map((w) => `${w.path}: ${w.message}`),
    );
  }

  /** Reads and validates a JSON agent spec file; problems name the file. */
  static async load(path: string): Promise<Agent> {
    const size = await stat(path).then(
      (found) => (found.isFile() ? found.size : 0),
      () => 0,
    );
    if (size > LIMITS.specBytes)
      throw new SpecError(path, [
        {
          path: "",
          message: `the spec is ${(size / 2 ** 20).toFixed(1)} MiB; a spec takes at most ${LIMITS.specBytes / 2 ** 20} MiB (each tool's schema is compiled and checked, seconds a megabyte)`,
        },
      ]);
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
 * A valid spec exactly as written: a JSON copy of the input, so that what the engine reads is what
 * the sidecar stores, with keys zod would drop (`x-` keys, a parameter named `__proto__`) kept.
 * Null, with the problem noted, for a value JSON cannot hold (a BigInt in an example).
 */
function asWritten(input: unknown, issues: InputIssue[]): Parts | null {
  let spec: AgentSpec;
  try {
    spec = JSON.parse(JSON.stringify(input)) as AgentSpec;
  } catch (error) {
    issues.push({ path: "", message: `holds a value JSON cannot write: ${messageOf(error)}` });
    return null;
  }
  const rules = Array.isArray(spec.policy) ? spec.policy : [];
  return { spec, toolAt: spec.tools.map((_, n) => n), ruleAt: rules.map((_, n) => n) };
}

/**
 * The parts of an invalid spec that are valid on their own, so the checks across fields report
 * their problems beside the problems of shape: every problem is reported at once. Tools nested
 * too deep are left out, so that no check walks them.
 */
function validParts(input: unknown, tooDeep: ReadonlySet<number>): Parts {
  const raw = (input !== null && typeof input === "object" ? input : {}) as Record<string, unknown>;
  const toolAt: number[] = [];
  const tools = (Array.isArray(raw.tools) ? raw.tools : []).flatMap((t, n) => {
    if (tooDeep.has(n)) return [];
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
  // Keys are tool names, which may be `__proto__` or `constructor`: no prototype to collide with.
  const roles: Record<string, ToolRole> = keyed();
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

/**
 * A parameter schema that does not compile, loops through its references, requires what it does
 * not declare or asks what no value can give is refused now, not mid-run; enum values it can never
 * take are warned of.
 */
function schemaProblems(tool: ToolDefinition, path: string, warnings: InputIssue[]): InputIssue[] {
  const cycle = refCycle(tool.parameters, path);
  // ajv would follow the cycle until the stack overflows: nothing more is read from this schema.
  if (cycle) return [cycle];
  const problems: InputIssue[] = [];
  try {
    argumentCheck(tool.parameters);
  } catch (error) {
    problems.push({ path, message: `not a valid JSON Schema: ${messageOf(error)}` });
    return problems;
  }
  const found = schemaFindings(tool.parameters, path);
  problems.push(...found.problems);
  warnings.push(...found.warnings);
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
