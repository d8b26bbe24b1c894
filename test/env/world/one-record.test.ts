import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { readsOneRecord } from "../../../env/world/one-record.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

describe("a description that asks for one record", () => {
  it("is read from the thing it fetches: its article and its number", () => {
    for (const one of [
      "Get the current subscription: plan, billing cycle and paid seats.",
      "Get one bill in full: charges per fuel, VAT and credits.",
      "Get details for a single prescription, including fill history.",
      "Get a bill statement for the account: charges, total and due date.",
      "Get the seat map for a flight and cabin.",
      "Look up a user's id from the email address on their account.",
      "Get a guest's loyalty account: tier and points balance.",
    ])
      expect(readsOneRecord(one), one).toBe(true);
    for (const many of [
      "List the meters on an account with serial number and fuel.",
      "Get the prescription insurance plans on the patient's profile.",
      "Check which intake forms a patient has been sent.",
      "Get all orders of a customer.",
      "Get invoices for the workspace, newest first.",
      "Work out the payment plan options for an account in arrears.",
      "",
    ])
      expect(readsOneRecord(many), many).toBe(false);
  });

  it("is answered with the newest record, not a list, and not_found when there is none", () => {
    const agent = Agent.from({
      name: "one record",
      system_prompt: "You help admins with their workspaces.",
      policy: [],
      tools: [
        mcpTool("get_workspace", "Get a workspace: name and plan.", {
          workspace_id: { type: "string" },
        }),
        mcpTool("get_subscription", "Get the current subscription: plan, price and paid seats.", {
          workspace_id: { type: "string" },
        }),
        mcpTool("get_invoices", "List the invoices of a workspace, newest first.", {
          workspace_id: { type: "string" },
        }),
      ],
    });
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "get_subscription" }),
    });
    const workspace = world.person.ids.workspace_id as string;
    const one = JSON.parse(world.call("get_subscription", { workspace_id: workspace }).content);
    expect(one.subscription_id).toEqual(expect.any(String));
    expect(one.subscriptions).toBeUndefined();
    const stored = world
      .snapshot()
      .collections.subscriptions?.filter(
        (s: Record<string, unknown>) => s.workspace_id === workspace,
      );
    const newest = [...(stored ?? [])].sort((a, b) =>
      String(b.created_at).localeCompare(String(a.created_at)),
    )[0];
    expect(one.subscription_id).toBe(newest?.subscription_id);
    const listed = JSON.parse(world.call("get_invoices", { workspace_id: workspace }).content);
    expect(listed.invoices).toEqual(expect.any(Array));
    const other = JSON.parse(
      world.call("get_subscription", { workspace_id: "ws_nothing" }).content,
    );
    expect(other.error).toBe("not_found");
  });
});
