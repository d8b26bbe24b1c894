import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Workspaces of a user: their invoices, listed since a day, and users removed from them. */
const SPEC = {
  name: "tool meaning",
  system_prompt: "You help admins with their workspaces.",
  policy: [],
  tools: [
    mcpTool("get_workspace", "Get a workspace: name, plan and seats.", {
      workspace_id: { type: "string" },
    }),
    mcpTool("remove_user", "Remove a user from the workspace and free their seat.", {
      workspace_id: { type: "string" },
      user_id: { type: "string" },
    }),
    mcpTool(
      "list_invoices",
      "List invoices for the workspace, newest first: invoice number, date, amount.",
      {
        workspace_id: { type: "string" },
        since: {
          type: "string",
          format: "date",
          description: "Only invoices on or after this day.",
        },
      },
      ["workspace_id"],
    ),
    mcpTool(
      "request_upload_link",
      "Create a link for the admin to upload documents of the given types.",
      {
        workspace_id: { type: "string" },
        document_types: {
          type: "array",
          items: { type: "string", enum: ["invoice", "contract", "receipt"] },
        },
      },
    ),
  ],
};

describe("what a tool does, read from its name and its arguments", () => {
  const agent = Agent.from(SPEC);

  it("removing a user from a workspace leaves the workspace", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "remove_user" }),
    });
    const workspace = world.person.ids.workspace_id as string;
    const user = world.person.ids.user_id as string;
    expect(world.call("remove_user", { workspace_id: workspace, user_id: user }).ok).toBe(true);
    expect(world.call("get_workspace", { workspace_id: workspace }).ok).toBe(true);
  });

  it("a list of an enum's choices is kept as a set: named in any order, the same record", () => {
    const made = (types: string[]) => {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "request_upload_link" }),
      });
      const workspace = world.person.ids.workspace_id as string;
      const answer = world.call("request_upload_link", {
        workspace_id: workspace,
        document_types: types,
      });
      expect(answer.ok).toBe(true);
      return JSON.parse(answer.content);
    };
    const one = made(["receipt", "invoice"]);
    expect(one.document_types).toEqual(["invoice", "receipt"]);
    expect(made(["invoice", "receipt"])).toEqual(one);
  });

  it("`since` bounds the records' date instead of matching a field of that name", () => {
    for (let seed = 0; seed < 5; seed++) {
      const world = createWorld({
        spec: agent,
        situation: situationOf(agent, { tool: "list_invoices" }),
        seed,
      });
      const workspace = world.person.ids.workspace_id as string;
      const list = (since?: string) =>
        JSON.parse(
          world.call("list_invoices", { workspace_id: workspace, ...(since ? { since } : {}) })
            .content,
        ).invoices as { date: string }[];
      const all = list();
      expect(all.length).toBeGreaterThan(0);
      expect(list("2000-01-01")).toEqual(all);
      expect(list("2100-01-01")).toEqual([]);
      const middle = [...all.map((i) => i.date)].sort()[Math.floor(all.length / 2)] as string;
      expect(list(middle)).toEqual(all.filter((i) => i.date >= middle));
    }
  });
});
