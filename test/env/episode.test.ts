import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { Episode, EpisodeError, rowId } from "../../env/episode.ts";
import { Planner } from "../../env/plan.ts";
import { SituationPool } from "../../env/situations.ts";
import { InputError } from "../../env/util/errors.ts";
import { RowSchema, StepResultSchema } from "../../spec/index.ts";
import { financeSpec, referenceSpec } from "../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../fixtures/situations.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
const finance = Agent.from(financeSpec);
const call = (name: string, args: Record<string, unknown>, id = "call_1") => ({
  role: "assistant" as const,
  content: null,
  tool_calls: [
    { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } },
  ],
});
const say = (content: string) => ({ role: "assistant" as const, content });

describe("Episode", () => {
  it("reset: the system prompt, the person's first message and the tools", async () => {
    const episode = new Episode({
      spec: retail,
      situation: situationOf(retail, { tool: "get_order" }),
    });
    const { observation } = await episode.reset();
    expect(observation.messages[0]).toEqual({ role: "system", content: retail.system_prompt });
    expect(observation.messages.at(-1)?.role).toBe("user");
    expect(observation.tools?.map((t) => t.function.name)).toEqual(retail.tools.map((t) => t.name));
    expect(observation.turn).toBe(0);
  });

  it("step: tool calls are answered by the world, text by the person", async () => {
    const situation = situationOf(retail, { tool: "get_order", stance: "cooperative" });
    const episode = new Episode({ spec: retail, situation });
    await episode.reset();
    const orderId = episode.world.person.ids.order_id as string;
    const tools = await episode.step(call("get_order", { order_id: orderId }));
    expect(tools.done).toBe(false);
    expect(tools.observation.messages).toEqual([
      {
        role: "tool",
        tool_call_id: "call_1",
        name: "get_order",
        content: expect.stringContaining(orderId),
      },
    ]);
    const reply = await episode.step(
      say("Your order is shipped. Is there anything else I can help you with?"),
    );
    expect(reply.observation.messages).toHaveLength(1);
    expect(reply.observation.messages[0]?.role).toBe("user");
    expect(reply).toMatchObject({
      done: true,
      observation: { truncated: false, ended_by: "user_done", turn: 2 },
    });
    await expect(episode.step(say("hello?"))).rejects.toThrow(EpisodeError);
  });

  it("cuts the conversation off at the turn limit, marking it truncated", async () => {
    const episode = new Episode({
      spec: retail,
      situation: situationOf(retail, { stance: "insistent" }),
      maxTurns: 3,
    });
    await episode.reset();
    let result = await episode.step(say("Hmm."));
    result = await episode.step(say("Let me think."));
    expect(result.done).toBe(false);
    result = await episode.step(say("One moment."));
    expect(result).toMatchObject({
      done: true,
      observation: { truncated: true, ended_by: "turn_limit" },
    });
    expect(episode.row().episode).toMatchObject({
      ended_by: "turn_limit",
      truncated: true,
      turns: 3,
    });
  });

  it("ends when the agent hands off", async () => {
    const episode = new Episode({ spec: retail, situation: situationOf(retail, {}) });
    await episode.reset();
    const result = await episode.step(call("transfer_to_human", { summary: "needs a human" }));
    expect(result).toMatchObject({ done: true, observation: { ended_by: "handoff" } });
  });

  it("refuses a malformed assistant message, naming the field, and a step before reset", async () => {
    const episode = new Episode({ spec: retail, situation: situationOf(retail, {}) });
    await expect(episode.step(say("hi"))).rejects.toThrow(/step before reset/);
    await episode.reset();
    await expect(
      episode.step({
        role: "assistant",
        tool_calls: [
          {
            id: "x",
            type: "function",
            function: { name: "get_order", arguments: { order_id: 1 } },
          },
        ],
      }),
    ).rejects.toThrow(
      /tool_calls\[0\]\.function\.arguments: expected the arguments as a JSON string/,
    );
    await expect(episode.step({ role: "user", content: "hi" })).rejects.toThrow(InputError);
    await expect(episode.step({ role: "assistant", content: "" })).rejects.toThrow(
      /expected text content or at least one tool call/,
    );
  });

  it("reward: the outcome check replays the goal on a fresh world and compares", async () => {
    const situation = situationOf(finance, { tool: "transfer_funds", stance: "cooperative" });
    const good = new Episode({ spec: finance, situation });
    await good.reset();
    const goal = good.goal;
    await good.step(call("transfer_funds", goal.arguments));
    expect(good.reward()).toMatchObject({
      reward: 1,
      checks: [
        { name: "goal_state", passed: true },
        { name: "conduct", passed: true },
      ],
    });
    const wrong = new Episode({ spec: finance, situation });
    await wrong.reset();
    await wrong.step(call("transfer_funds", { ...goal.arguments, amount: 1 }));
    expect(wrong.reward()).toMatchObject({
      reward: 0,
      checks: [
        { name: "goal_state", passed: false },
        { name: "conduct", passed: true },
      ],
    });
  });

  it("reward: a record a call made is judged by its fields, whatever order the call named them in", async () => {
    const situation = situationOf(finance, { tool: "transfer_funds", stance: "cooperative" });
    const episode = new Episode({ spec: finance, situation });
    await episode.reset();
    const reversed = Object.fromEntries(Object.entries(episode.goal.arguments).reverse());
    expect(Object.keys(reversed)).not.toEqual(Object.keys(episode.goal.arguments));
    await episode.step(call("transfer_funds", reversed));
    expect(episode.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
  });

  it("reward: with two alike accounts, a plan set up on either reaches the goal and none does not", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const situation = situationOf(energy, {
      tool: "create_payment_plan",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const played = async (account: unknown) => {
      const episode = new Episode({ spec: energy, situation });
      await episode.reset();
      if (account !== undefined)
        await episode.step(
          call("create_payment_plan", { ...episode.goal.arguments, account_number: account }),
        );
      await episode.step(say("Is there anything else I can help you with?"));
      return episode;
    };
    const { goal, world } = await played(undefined);
    const twins = (world.state.shaped as { duplicates: string[] }).duplicates;
    // The account is a reference of the plan, not what the call acts on: the goal still names it.
    expect(goal.arguments.account_number).toBe(twins[0]);
    expect(goal.alternatives?.map((a) => a.account_number)).toEqual(twins.slice(1));
    for (const twin of twins)
      expect((await played(twin)).reward().checks[0], twin).toMatchObject({ passed: true });
    expect((await played(undefined)).reward().checks[0]).toMatchObject({ passed: false });
  });

  it("reward: a person unsure which of two alike reservations is theirs, quoting one, has the other do as well", async () => {
    const airline = await Agent.load("test/fixtures/specs/airline.json");
    const situation = situationOf(airline, {
      tool: "change_flights",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const probe = new Episode({ spec: airline, situation });
    await probe.reset();
    const twins = (probe.world.state.shaped as { duplicates: string[] }).duplicates;
    const candidates = probe.world.person.candidates.reservation_id ?? [];
    expect(candidates.slice().sort()).toEqual(twins.slice().sort());
    expect(twins).toContain(probe.goal.arguments.reservation_id);
    for (const twin of twins) {
      const episode = new Episode({ spec: airline, situation });
      await episode.reset();
      await episode.step(
        call("change_flights", { ...episode.goal.arguments, reservation_id: twin }),
      );
      expect(episode.reward().checks[0], twin).toMatchObject({ name: "goal_state", passed: true });
    }
  });

  it("reward: a wrong id for a record that is there is done by refusing it or by acting on the record the person means", async () => {
    const physio = await Agent.load("test/fixtures/specs/physio-clinic.json");
    const situation = situationOf(physio, {
      tool: "cancel_appointment",
      world: "record_missing",
      stance: "cooperative",
    });
    const played = async (appointment: string | null) => {
      const episode = new Episode({ spec: physio, situation });
      await episode.reset();
      if (appointment !== null)
        await episode.step(
          call("cancel_appointment", { ...episode.goal.arguments, appointment_id: appointment }),
        );
      else await episode.step(say("I'm sorry, I can't find that appointment."));
      return episode;
    };
    const refused = await played(null);
    const { meant, id } = (refused.world.state.shaped as { missing: { meant: string; id: string } })
      .missing;
    expect(refused.goal.arguments.appointment_id).toBe(id);
    expect(refused.world.store.get("appointment", meant)).toBeDefined();
    expect(refused.reward().checks[0]).toMatchObject({ passed: true });
    expect((await played(meant)).reward().checks[0]).toMatchObject({ passed: true });
    const other = refused.world.store
      .ownedBy("appointment", refused.world.state.person.customer_id)
      .map((a) => String(a.appointment_id))
      .find((a) => a !== meant);
    expect(other).toBeDefined();
    expect((await played(other as string)).reward().checks[0]).toMatchObject({ passed: false });
  });

  it("reward: a person not on file quoting a record someone on file holds is refused it: nothing done reaches the goal, the request carried out does not", async () => {
    const pharmacy = await Agent.load("test/fixtures/specs/pharmacy.json");
    for (const tool of ["request_refill_authorization", "get_prescription"]) {
      const situation = situationOf(pharmacy, {
        tool,
        world: "record_missing",
        stance: "cooperative",
      });
      const refused = new Episode({ spec: pharmacy, situation });
      await refused.reset();
      const { missing } = refused.world.state.shaped as { missing: { entity: string } };
      expect(missing.entity).toBe("patient");
      const rx = refused.goal.arguments.rx_number;
      expect([...refused.world.store.all("prescription")].map((p) => p.rx_number)).toContain(rx);
      await refused.step(
        say("I'm sorry, I couldn't find your details, so I can't help with that."),
      );
      expect(refused.reward(), tool).toMatchObject({ reward: 1 });
      if (tool === "get_prescription") continue;
      const done = new Episode({ spec: pharmacy, situation });
      await done.reset();
      await done.step(call(tool, done.goal.arguments));
      expect(done.reward().checks[0], tool).toMatchObject({ name: "goal_state", passed: false });
    }
  });

  it("reward: handing the person over is no change to what they came for, done or impossible", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const handOver = call(
      "transfer_to_agent",
      { team: "complaints", summary: "Wants someone." },
      "call_2",
    );
    // Impossible: the account they name does not exist, so refusing and handing over both reach it.
    const missing = situationOf(energy, {
      tool: "create_payment_plan",
      world: "record_missing",
      stance: "cooperative",
    });
    const refused = new Episode({ spec: energy, situation: missing });
    await refused.reset();
    await refused.step(say("I'm sorry, I can't find that account."));
    expect(refused.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    const passedOn = new Episode({ spec: energy, situation: missing });
    await passedOn.reset();
    await passedOn.step(handOver);
    expect(passedOn.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    // Possible: the change made stands after a hand-off, and a hand-off instead of it is not it.
    const normal = situationOf(energy, { tool: "create_payment_plan", stance: "cooperative" });
    const done = new Episode({ spec: energy, situation: normal });
    await done.reset();
    await done.step(call("create_payment_plan", done.goal.arguments));
    await done.step(handOver);
    expect(done.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    const instead = new Episode({ spec: energy, situation: normal });
    await instead.reset();
    await instead.step(handOver);
    expect(instead.reward().checks[0]).toMatchObject({ name: "goal_state", passed: false });
  });

  it("reward: a hand-off about a record the world began without is done by telling the person so, or by making it", async () => {
    const saas = await Agent.load("test/fixtures/specs/saas-admin.json");
    const situation = situationOf(saas, {
      tool: "escalate_to_account_manager",
      world: "empty_account",
      stance: "cooperative",
    });
    const told = new Episode({ spec: saas, situation });
    await told.reset();
    const workspace = String(told.goal.arguments.workspace_id);
    expect(told.world.store.get("workspace", workspace)).toBeUndefined();
    await told.step(say("I couldn't find any workspaces on your account."));
    expect(told.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    const made = new Episode({ spec: saas, situation });
    await made.reset();
    await made.step(
      call("escalate_to_account_manager", {
        ...made.goal.arguments,
        summary: "The admin has a complaint about their workspace.",
      }),
    );
    expect(made.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    // About a record that is there, telling the person is not the hand-off they asked for.
    const normal = situationOf(saas, {
      tool: "escalate_to_account_manager",
      stance: "cooperative",
    });
    const refused = new Episode({ spec: saas, situation: normal });
    await refused.reset();
    await refused.step(say("I'm sorry, I can't pass you on."));
    expect(refused.reward().checks[0]).toMatchObject({ name: "goal_state", passed: false });
  });

  it("reward: a report made on an account of the person's, where they named none, is the report asked; one on another's is not", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const situation = situationOf(energy, {
      tool: "report_outage",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const reported = async (account?: string) => {
      const episode = new Episode({ spec: energy, situation });
      await episode.reset();
      expect(episode.goal.arguments.account_number).toBeUndefined();
      const args = { ...episode.goal.arguments, ...(account ? { account_number: account } : {}) };
      await episode.step(call("report_outage", args));
      return episode.reward().checks[0];
    };
    const probe = new Episode({ spec: energy, situation });
    await probe.reset();
    const personId = probe.world.state.person.customer_id;
    const accounts = [...probe.world.store.all("account")];
    const own = accounts.find((a) => a.customer_id === personId)?.account_number as string;
    const others = accounts.find((a) => a.customer_id !== personId)?.account_number as string;
    expect(own && others).toBeTruthy();
    expect(await reported()).toMatchObject({ name: "goal_state", passed: true });
    expect(await reported(own)).toMatchObject({ name: "goal_state", passed: true });
    expect(await reported(others)).toMatchObject({ name: "goal_state", passed: false });
  });

  it("reward: a hand-off carrying context the person did not ask for (their account) is the hand-off asked", async () => {
    const energy = await Agent.load("test/fixtures/specs/utility-energy.json");
    const situation = situationOf(energy, { tool: "transfer_to_agent", stance: "cooperative" });
    const episode = new Episode({ spec: energy, situation });
    await episode.reset();
    const { team } = episode.goal.arguments;
    const account = episode.world.snapshot().collections.accounts?.[0]?.account_number;
    await episode.step(
      call("transfer_to_agent", { team, account_number: account, summary: "Wants collections." }),
    );
    expect(episode.reward().checks[0]).toMatchObject({ name: "goal_state", passed: true });
    const elsewhere = new Episode({ spec: energy, situation });
    await elsewhere.reset();
    const other = team === "complaints" ? "metering" : "complaints";
    await elsewhere.step(call("transfer_to_agent", { team: other, summary: "Wants someone." }));
    expect(elsewhere.reward().checks[0]).toMatchObject({ name: "goal_state", passed: false });
  });

  it("reward: a read must be told to the person", async () => {
    const situation = situationOf(finance, { tool: "get_balance", stance: "cooperative" });
    const episode = new Episode({ spec: finance, situation });
    await episode.reset();
    const result = await episode.step(
      call("get_balance", { account_id: episode.world.person.ids.account_id }),
    );
    expect(episode.reward().checks.find((c) => c.name === "told_facts")?.passed).toBe(false);
    const balance = JSON.parse(result.observation.messages[0]?.content as string);
    await episode.step(
      say(
        `Your balance is ${balance.current.toFixed(2)} ${balance.currency}, available ${balance.available.toFixed(2)}.`,
      ),
    );
    expect(episode.reward()).toMatchObject({ reward: 1 });
  });

  it("reward: a status told in words (waiting on insurance) is told", async () => {
    const pharmacy = await Agent.load("test/fixtures/specs/pharmacy.json");
    // The first situation whose order is in a state of several words (`waiting_on_insurance`).
    const read = async (seed: number) => {
      const situation = situationOf(pharmacy, { tool: "get_order_status" }, seed);
      const episode = new Episode({ spec: pharmacy, situation });
      await episode.reset();
      const id = episode.world.person.ids.order_id;
      const result = await episode.step(call("get_order_status", { order_id: id }));
      return { episode, order: JSON.parse(result.observation.messages[0]?.content as string) };
    };
    let seed = 0;
    while (!/_/.test((await read(seed)).order.status) && seed < 60) seed++;
    const told = async (words: boolean) => {
      const { episode, order } = await read(seed);
      const status = words ? order.status.replace(/_/g, " ") : order.status;
      await episode.step(
        say(`Your order for ${order.patient_id} is ${status}, total ${order.total.toFixed(2)}.`),
      );
      return episode.reward().checks.find((c) => c.name === "told_facts");
    };
    expect((await read(seed)).order.status).toMatch(/^[a-z]+(_[a-z]+)+$/);
    expect(await told(false)).toMatchObject({ passed: true });
    expect(await told(true)).toMatchObject({ passed: true });
  });

  it("reward: with two alike accounts, listing the lines of either and telling them is the list asked for", async () => {
    const telecom = await Agent.load("test/fixtures/specs/telecom.json");
    const situation = situationOf(telecom, {
      tool: "list_lines",
      world: "duplicate_records",
      stance: "cooperative",
    });
    const told = async (account: string, tell: boolean) => {
      const episode = new Episode({ spec: telecom, situation });
      await episode.reset();
      const result = await episode.step(call("list_lines", { account_id: account }));
      const { lines } = JSON.parse(result.observation.messages[0]?.content as string);
      const ids = (lines as { line_id: string }[]).map((l) => l.line_id);
      if (tell) await episode.step(say(`The lines on ${account}: ${ids.join(", ")}.`));
      return episode.reward().checks.find((c) => c.name === "told_facts");
    };
    const probe = new Episode({ spec: telecom, situation });
    await probe.reset();
    const { duplicates: twins, entity } = probe.world.state.shaped as {
      duplicates: string[];
      entity: string;
    };
    expect(entity).toBe("account");
    expect(probe.goal.alternatives?.map((a) => a.account_id)).toEqual(twins.slice(1));
    for (const twin of twins) {
      expect(await told(twin, true), twin).toMatchObject({ passed: true });
      expect(await told(twin, false), twin).toMatchObject({ passed: false });
    }
  });

  it("row: a valid row with the situation, persona tags, models and episode facts", async () => {
    const situation = situationOf(retail, { tool: "get_order", condition: "timeout" });
    const episode = new Episode({ spec: retail, situation, agentName: "tester", maxTurns: 1 });
    await episode.reset();
    await episode.step(call("get_order", { order_id: episode.world.person.ids.order_id }));
    const row = RowSchema.parse(episode.row());
    expect(row).toMatchObject({
      task_id: situation.id,
      situation: {
        id: situation.id,
        axes: situation.axes,
        faults: [{ kind: "timeout", fired: [1] }],
        world_state: { world: "normal" },
      },
      models: { agent: "tester", simulator: "offline", user_model: "offline" },
      episode: { turns: 1, history_turns: 0, goal: { tool: "get_order" }, slips: [], errors: [] },
    });
    expect(row.persona.tags[0]).toBe(situation.axes.stance);
    expect(row.tools[0]).toEqual({
      type: "function",
      function: {
        name: "get_order",
        description: expect.any(String),
        parameters: expect.any(Object),
      },
    });
  });
});

describe("the episode contract (spec/episode.ts)", () => {
  const situation = situationOf(retail, { tool: "get_order" });

  it("reset returns a step result: no reward yet, not done, and which episode it is", async () => {
    const episode = new Episode({ spec: retail, situation });
    const result = StepResultSchema.parse(await episode.reset());
    expect(result).toMatchObject({ reward: null, done: false, observation: { truncated: false } });
    expect(result.observation.metadata).toEqual({
      episode_id: rowId(situation),
      task_id: situation.id,
      seed: situation.seed,
    });
  });

  it("every step result holds to the contract; the reward arrives with done and is the episode's reward", async () => {
    const episode = new Episode({ spec: retail, situation, maxTurns: 3 });
    await episode.reset();
    const results = [];
    for (const message of [say("Hello."), say("One moment."), say("Anything else?")])
      results.push(StepResultSchema.parse(await episode.step(message)));
    expect(results.map((r) => r.reward)).toEqual([null, null, episode.reward().reward]);
    expect(results.map((r) => r.done)).toEqual([false, false, true]);
    expect(results.at(-1)).toMatchObject({
      observation: { truncated: true, ended_by: "turn_limit" },
    });
  });

  it("reset names the row with episode_id and reseeds the situation with seed", async () => {
    const episode = new Episode({ spec: retail, situation, maxTurns: 1 });
    const first = await episode.reset({ episode_id: "trainer-run.7:ep-1", seed: 991 });
    expect(first.observation.metadata).toMatchObject({
      episode_id: "trainer-run.7:ep-1",
      seed: 991,
    });
    expect(episode.situation).toMatchObject({ axes: situation.axes, seed: 991 });
    await episode.step(say("Hello."));
    const row = episode.row();
    expect(row).toMatchObject({ id: "trainer-run.7:ep-1", task_id: episode.situation.id });
    expect(row.situation.seed).toBe(991);
    // Another seed is another person in the same situation; the same seed, the same person.
    await episode.reset({ seed: 992 });
    expect(episode.world.person).toEqual(await reseededPerson(992));
    expect(episode.world.person).not.toEqual(await reseededPerson(991));
  });

  it("refuses a reset request it cannot honour, naming each field, and stays usable", async () => {
    const episode = new Episode({ spec: retail, situation });
    const refusal = async (request: unknown) => {
      const error = await episode.reset(request as never).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(InputError);
      return error as InputError;
    };
    const unknownKey = await refusal({ seeds: 1 });
    expect(unknownKey.issues.map((i) => i.path)).toEqual([""]);
    expect(unknownKey.message).toMatch(/seeds/);
    const bad = await refusal({ seed: -1, episode_id: "has spaces", split: "test" });
    expect(bad.issues.map((i) => i.path).sort()).toEqual(["episode_id", "seed", "split"]);
    expect((await episode.reset()).observation.turn).toBe(0);
  });

  it("deals situations from a grid: each reset the next, or the one task_id names", async () => {
    const grid = [...new Planner(retail, { rows: 6, seed: 1 }).walk()];
    const episode = new Episode({ spec: retail, situations: new SituationPool(retail, grid) });
    expect(() => episode.situation).toThrow(EpisodeError);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await episode.reset()).observation.metadata.task_id);
    expect(ids).toEqual(grid.slice(0, 3).map((s) => s.id));
    const named = grid[5] as (typeof grid)[number];
    expect((await episode.reset({ task_id: named.id })).observation.metadata.task_id).toBe(
      named.id,
    );
    expect(episode.world.situation.axes).toEqual(named.axes);
  });

  it("keeps its grade once done: what a caller changes in a grade or a row does not change the next", async () => {
    const episode = new Episode({ spec: retail, situation, maxTurns: 1 });
    await episode.reset();
    await episode.step(say("Hello."));
    const grade = structuredClone(episode.reward());
    const row = structuredClone(episode.row());
    const given = episode.reward();
    given.checks[0] = { name: "forged", passed: !given.checks[0]?.passed, detail: "" };
    const taken = episode.row();
    const check = taken.episode.outcome?.checks[0] as { passed: boolean };
    check.passed = !check.passed;
    taken.conduct.push(...structuredClone(taken.conduct), ...structuredClone(taken.conduct));
    expect(episode.reward()).toEqual(grade);
    expect(episode.row()).toEqual(row);
  });

  it("takes exactly one of situation or situations", () => {
    expect(() => new Episode({ spec: retail })).toThrow(/exactly one of situation or situations/);
    expect(
      () =>
        new Episode({
          spec: retail,
          situation,
          situations: new SituationPool(retail, [situation]),
        }),
    ).toThrow(TypeError);
  });
});

/** The person of the retail situation reseeded to `seed`. */
async function reseededPerson(seed: number) {
  const episode = new Episode({
    spec: retail,
    situation: situationOf(retail, { tool: "get_order" }),
  });
  await episode.reset({ seed });
  return episode.world.person;
}
