import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import type { AgentSpec } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { callsOf, mcpTool, offlineRows } from "../../support/specs.ts";

const ACCOUNT_ID = { type: "string", description: "Account id, e.g. 'acc_7Hq2LmX9'." };

/** A desk that checks who the person is with a code it emails them first. */
const CODE_DESK = {
  name: "code desk",
  system_prompt: "You help customers with their accounts.",
  policy: [
    {
      id: "verify",
      text: "Verify the customer's identity with a one-time code before changing anything.",
    },
  ],
  tools: [
    mcpTool("get_account", "Get an account: its plan and status.", { account_id: ACCOUNT_ID }),
    mcpTool("send_verification_code", "Email a one-time code to the account's address.", {
      account_id: ACCOUNT_ID,
    }),
    mcpTool("check_verification_code", "Check the one-time code the customer typed in.", {
      account_id: ACCOUNT_ID,
      code: { type: "string", pattern: "^\\d{6}$" },
    }),
    mcpTool("change_plan", "Change the account's plan.", {
      account_id: ACCOUNT_ID,
      plan: { type: "string", enum: ["basic", "plus", "pro"] },
    }),
  ],
} as unknown as AgentSpec;

describe("a one-time code", () => {
  const agent = Agent.from(CODE_DESK);
  const model = WorldModel.of(agent);

  it("is checked by the tool a sending tool mirrors word for word but its verb", () => {
    expect(model.tools.get("check_verification_code")?.sentBy).toBe("send_verification_code");
    expect(model.tools.get("send_verification_code")?.sends).toBe(true);
    expect(model.tools.get("change_plan")?.sends).toBe(false);
  });

  it("sent, leaves the account as it was", () => {
    const world = createWorld({
      spec: agent,
      situation: situationOf(agent, { tool: "change_plan" }),
    });
    const account = world.person.ids.account_id as string;
    const before = world.call("get_account", { account_id: account }).content;
    const sent = world.call("send_verification_code", { account_id: account });
    expect(JSON.parse(sent.content)).toEqual({ account_id: account, sent: true });
    expect(world.call("get_account", { account_id: account }).content).toBe(before);
    // Sending to an account that does not exist is refused like any change.
    expect(world.call("send_verification_code", { account_id: "acc_00000000" }).ok).toBe(false);
  });

  it("is sent by the offline agent before it asks the person for it", async () => {
    const rows = await offlineRows(CODE_DESK, 60);
    let checked = 0;
    for (const row of rows) {
      const calls = row.messages.flatMap((m) =>
        m.role === "assistant" ? (m.tool_calls ?? []).map((c) => c.function.name) : [],
      );
      const check = calls.indexOf("check_verification_code");
      if (check < 0 || row.situation.axes.tool === "check_verification_code") continue;
      checked++;
      expect(calls.slice(0, check), row.id).toContain("send_verification_code");
      const asked = row.messages.find(
        (m) => m.role === "assistant" && /\bcode\b/.test(m.content ?? ""),
      );
      expect(asked?.content).toMatch(/^I've sent you a verification code\./);
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("a check that takes the person's own id", () => {
  it("is made before a write, the person asked for their id, and never skipped for want of it", async () => {
    const withOwnId = {
      ...CODE_DESK,
      tools: (CODE_DESK.tools as Record<string, unknown>[]).map((tool) =>
        tool.name === "check_verification_code"
          ? mcpTool("check_verification_code", "Check the one-time code the customer typed in.", {
              account_id: ACCOUNT_ID,
              customer_id: { type: "string" },
              code: { type: "string", pattern: "^\\d{6}$" },
            })
          : tool,
      ),
    } as unknown as AgentSpec;
    const rows = await offlineRows(withOwnId, 60);
    let writes = 0;
    for (const row of rows) {
      const calls = callsOf(row);
      const write = calls.findIndex((c) => c.name === "change_plan");
      if (write < 0) continue;
      writes++;
      // The last check before it (a person may first misread their id).
      const check = calls.slice(0, write).findLast((c) => c.name === "check_verification_code");
      expect(check?.args.customer_id, row.id).toBe(row.situation.world_state.person.customer_id);
    }
    expect(writes).toBeGreaterThan(0);
  });
});
