import { describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { goalOf } from "../../../env/people/goal.ts";
import { Rng } from "../../../env/rng.ts";
import { readValue } from "../../../env/text/slots.ts";
import { createWorld } from "../../../env/world/index.ts";
import { WorldModel } from "../../../env/world/model.ts";
import type { AgentSpec, WorldKind, WorldRecord } from "../../../spec/index.ts";
import { situationOf } from "../../fixtures/situations.ts";
import { callsOf, mcpTool, offlineRows } from "../../support/specs.ts";

const WORKSPACE_ID = {
  type: "string",
  description: "Workspace id, e.g. 'ws_7Hq2LmX9'.",
  pattern: "^ws_[A-Za-z0-9]{8}$",
};
const USER_ID = {
  type: "string",
  description: "User id from list_users, e.g. 'usr_01HZX4K8'.",
  pattern: "^usr_[A-Z0-9]{8}$",
};

/** A team tool's admin desk: the person is an admin who acts on the other users of their workspace. */
const ADMIN_DESK = {
  name: "admin desk",
  system_prompt: "You help workspace admins manage their workspace's users.",
  policy: [
    {
      id: "verify-admin",
      text: "Before changing anything, verify the admin's identity: they must pass a one-time code check.",
    },
  ],
  tools: [
    mcpTool("find_workspace", "Find a workspace by the email address of one of its admins.", {
      admin_email: { type: "string", format: "email" },
    }),
    mcpTool(
      "list_users",
      "List the users in a workspace: id, name, email and role.",
      {
        workspace_id: WORKSPACE_ID,
        search: { type: "string" },
        role: { type: "string", enum: ["admin", "member", "guest"] },
      },
      ["workspace_id"],
    ),
    mcpTool("check_verification_code", "Check the one-time code an admin received by email.", {
      workspace_id: WORKSPACE_ID,
      user_id: USER_ID,
      code: { type: "string" },
    }),
    mcpTool(
      "remove_user",
      "Remove a user from the workspace. Their documents go to transfer_to_user_id.",
      { workspace_id: WORKSPACE_ID, user_id: USER_ID, transfer_to_user_id: USER_ID },
      ["workspace_id", "user_id"],
    ),
    mcpTool("change_user_role", "Change a user's role.", {
      workspace_id: WORKSPACE_ID,
      user_id: USER_ID,
      new_role: { type: "string", enum: ["admin", "member", "guest"] },
      requested_by_user_id: USER_ID,
    }),
    mcpTool("update_user_email", "Change the email address of the user's own login.", {
      user_id: USER_ID,
      email: { type: "string", format: "email" },
    }),
  ],
} as unknown as AgentSpec;

describe("a change to another person of the person's kind (an admin acting on a colleague)", () => {
  const agent = Agent.from(ADMIN_DESK);
  const model = WorldModel.of(agent);
  const worldFor = (tool: string, world: WorldKind = "normal", seed = 7) =>
    createWorld({ spec: agent, situation: situationOf(agent, { tool, world }, seed) });

  it("is a change that names a second record of the person's kind; what it is scoped by is shared", () => {
    expect(model.person.name).toBe("user");
    expect(model.tools.get("remove_user")?.another).toBe(true);
    expect(model.tools.get("change_user_role")?.another).toBe(true);
    // A change that names the user alone is the person's own.
    expect(model.tools.get("update_user_email")?.another).toBe(false);
    expect(model.group).toBe("workspace");
  });

  it("acts on a colleague in the person's workspace, asked for by the person, never on the person", () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const world = worldFor("change_user_role", "normal", seed);
      const me = world.person.ids.requested_by_user_id as string;
      const goal = goalOf(world, new Rng(seed, "goal")).arguments;
      expect(goal.requested_by_user_id).toBe(me);
      expect(goal.user_id).not.toBe(me);
      // The colleague is one of the users the workspace lists, beside the person.
      const listed = JSON.parse(
        world.call("list_users", { workspace_id: goal.workspace_id }).content,
      ).users as WorldRecord[];
      const ids = listed.map((u) => u.user_id);
      expect(ids).toContain(me);
      expect(ids).toContain(goal.user_id);
      expect(listed.length).toBeGreaterThanOrEqual(3);
      // Who acts on others holds the higher half of the roles (admin of admin, member, guest).
      expect(listed.find((u) => u.user_id === me)?.role).toBe("admin");
      expect(world.state.subject.id).toBe(goal.user_id);
    }
  });

  it("removes the colleague and leaves the person", () => {
    const world = worldFor("remove_user");
    const goal = goalOf(world, new Rng(7, "goal")).arguments;
    const me = world.state.person.customer_id;
    expect(goal.user_id).not.toBe(me);
    expect(world.call("remove_user", goal).ok).toBe(true);
    const left = JSON.parse(
      world.call("list_users", { workspace_id: goal.workspace_id }).content,
    ).users.map((u: WorldRecord) => u.user_id);
    expect(left).toContain(me);
    expect(left).not.toContain(goal.user_id);
  });

  it("is asked for as someone else's: by id when the person has it, else by name", () => {
    const plain = (text: string) => text.replace(/[\uE000\uE001]/g, "");
    const world = worldFor("change_user_role");
    const goal = goalOf(world, new Rng(7, "goal"));
    expect(plain(goal.text)).toContain(`the user ${goal.arguments.user_id}`);
    expect(plain(goal.text)).not.toMatch(/\bmy (details|user)\b/);
    // Two colleagues alike (duplicate_records): the person knows the name, not which id.
    const twins = worldFor("change_user_role", "duplicate_records");
    const asked = plain(goalOf(twins, new Rng(7, "goal")).text);
    const [first] = (twins.state.shaped as { duplicates: string[] }).duplicates;
    const subject = twins.store.get("user", first as string) as WorldRecord;
    expect(asked).toContain(`the user ${String(subject.name)}`);
    // The person's own id is never withheld with the colleague's.
    expect(twins.person.ids.requested_by_user_id).toBe(twins.state.person.customer_id);
  });
});

describe("an id said with another argument's name", () => {
  const agent = Agent.from(ADMIN_DESK);
  const model = WorldModel.of(agent);
  const remove = model.tools.get("remove_user");

  it("is that argument's, not the first of its kind's", () => {
    if (!remove) throw new Error("no remove_user");
    const text =
      "please remove the user usr_45HZX8K7 from my workspace ws_YGETw3nB, with transfer to user id usr_89HZX1K7";
    expect(readValue(model, remove, "user_id", text, false)?.value).toBe("usr_45HZX8K7");
    expect(readValue(model, remove, "transfer_to_user_id", text, false)?.value).toBe(
      "usr_89HZX1K7",
    );
    // With no other argument's name before it, the last id said is still the one.
    expect(
      readValue(model, remove, "user_id", "it's usr_45HZX8K7, no, usr_11HZX1K1", false)?.value,
    ).toBe("usr_11HZX1K1");
  });
});

describe("the offline agent, for an admin acting on a colleague", () => {
  it("checks the admin's own code with the admin's id and changes the colleague", async () => {
    const rows = (await offlineRows(ADMIN_DESK, 80)).filter(
      (r) => r.situation.axes.tool === "change_user_role",
    );
    expect(rows.length).toBeGreaterThan(0);
    let changed = 0;
    let checked = 0;
    for (const row of rows) {
      const calls = callsOf(row);
      const me = row.situation.world_state.person.customer_id;
      for (const check of calls.filter((c) => c.name === "check_verification_code")) {
        expect(check.args.user_id).toBe(me);
        checked++;
      }
      for (const change of calls.filter((c) => c.name === "change_user_role")) {
        expect(change.args.requested_by_user_id).toBe(me);
        expect(change.args.user_id).not.toBe(me);
        changed++;
      }
    }
    expect(changed).toBeGreaterThan(0);
    expect(checked).toBeGreaterThan(0);
  });
});
