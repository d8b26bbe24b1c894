import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { goalOf } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { createWorld } from "../../../env/world/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { mcpTool } from "../../support/specs.ts";

/** Orders whose tools name the state they act in, and tickets whose tool names the ticket twice. */
const SPEC = {
  name: "request words",
  system_prompt: "You help customers with their orders and tickets.",
  policy: "Orders are in status 'pending', 'delivered' or 'cancelled'.",
  tools: [
    mcpTool("get_order", "Get an order.", { order_id: { type: "string" } }, ["order_id"], {
      order_id: { type: "string" },
      status: { type: "string", enum: ["pending", "delivered", "cancelled"] },
    }),
    mcpTool("cancel_pending_order", "Cancel a pending order.", {
      order_id: { type: "string", pattern: "^W\\d{7}$" },
    }),
    mcpTool("return_delivered_order_items", "Return items of a delivered order.", {
      order_id: { type: "string", pattern: "^W\\d{7}$" },
    }),
    mcpTool("add_note_to_order", "Add a note to an order.", {
      order_id: { type: "string", pattern: "^W\\d{7}$" },
    }),
    mcpTool("update_ticket_priority", "Change a ticket's priority.", {
      ticket_id: { type: "string", pattern: "^INC\\d{6}$" },
      priority: { type: "string", enum: ["low", "high", "urgent"] },
    }),
  ],
};

describe("what a request names beside its record", () => {
  const agent = Agent.from(SPEC);
  const asked = (tool: string) => {
    const world = createWorld({ spec: agent, situation: situationOf(agent, { tool }) });
    return goalOf(world, new Rng(3, "goal")).text.replace(/[\uE000\uE001]/g, "");
  };

  it("leaves out the record's name and the state the tool acts in, and a preposition left at the end", () => {
    expect(asked("cancel_pending_order")).toMatch(/^cancel my order W\d{7}$/);
    expect(asked("return_delivered_order_items")).toMatch(/^return the items of my order W\d{7}$/);
    expect(asked("add_note_to_order")).toMatch(/^add the note of my order W\d{7}$/);
    expect(asked("update_ticket_priority")).toMatch(
      /^change the priority of my ticket INC\d{6}, with (low|high|urgent) priority$/,
    );
  });
});
