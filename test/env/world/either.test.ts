import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { eitherOf } from "../../../env/world/either.ts";
import { createWorld } from "../../../env/world/index.ts";
import type { AgentSpec, ToolDefinition } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

const lookup = (description: string, required: string[] = []): ToolDefinition => ({
  name: "find_workspace",
  description,
  access: "read",
  access_source: "verb",
  role: "normal",
  role_source: "default",
  parameters: {
    type: "object",
    properties: {
      domain: { type: "string" },
      admin_email: { type: "string", format: "email" },
      limit: { type: "integer" },
    },
    required,
  },
});

describe("arguments of which one must be given", () => {
  it("are read from the description: all optional ones, or the two it names", () => {
    const all = ["domain", "admin_email", "limit"];
    expect(
      eitherOf(lookup("Find a workspace by domain or admin email. Provide one of the two.")),
    ).toEqual(all);
    expect(eitherOf(lookup("Find a workspace. Give at least one of these."))).toEqual(all);
    expect(eitherOf(lookup("Find a workspace. Either domain or admin_email is required."))).toEqual(
      ["domain", "admin_email"],
    );
    expect(
      eitherOf(lookup("Find a workspace; either `admin email` or `domain` must be set.")),
    ).toEqual(["domain", "admin_email"]);
    // Nothing asked: a listing of everything is a call like any other.
    expect(eitherOf(lookup("Find workspaces by domain or admin email, or list them all."))).toEqual(
      [],
    );
    expect(eitherOf(lookup("Pick one of the two plans."))).toEqual([]);
    // One optional argument left is no choice.
    expect(eitherOf(lookup("Provide one of the two.", ["domain", "limit"]))).toEqual([]);
  });

  it("a call giving none is refused, naming them; one given is answered", () => {
    const spec = {
      name: "workspaces",
      system_prompt: "You help workspace admins.",
      policy: [],
      tools: [
        mcpTool(
          "find_workspace",
          "Find a workspace by its domain or an admin's email. Provide one of the two.",
          { domain: { type: "string" }, admin_email: { type: "string", format: "email" } },
          [],
        ),
        mcpTool("get_workspace", "Get a workspace.", { workspace_id: { type: "string" } }),
      ],
    } as unknown as AgentSpec;
    const agent = Agent.from(spec);
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "get_workspace" }),
    });
    const none = world.call("find_workspace", {});
    expect(none.ok).toBe(false);
    expect(JSON.parse(none.content)).toMatchObject({
      error: "invalid_arguments",
      problems: ['give one of "domain" or "admin_email"'],
    });
    const mine = world.call("find_workspace", { admin_email: world.person.email });
    expect(mine.ok).toBe(true);
  });
});
