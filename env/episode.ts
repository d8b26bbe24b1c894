import {
  type AssistantMessage,
  type ChatMessage,
  type CheckedGrade,
  type ConductFinding,
  DEFAULTS,
  type EndedBy,
  type EpisodeDriver,
  type Goal,
  type Observation,
  parseAssistantMessage,
  type ResetRequest,
  ResetRequestSchema,
  type Row,
  type Situation,
  type Slip,
  type StepResult,
  type ToolMessage,
  type WorldState,
} from "../spec/index.ts";
import { Agent } from "./agent.ts";
import { conductChecks } from "./grade/conduct.ts";
import { outcomeGrade } from "./grade/outcome.ts";
import { simulatorChecks } from "./grade/simulator.ts";
import { type Persona, samplePersona } from "./people/persona.ts";
import { offlineUser } from "./roles/offline-user.ts";
import { OfflineWriter } from "./roles/offline-writer.ts";
import type { SituationWriter, UserSession, UserSimulator } from "./roles/types.ts";
import { oneSituation, type SituationSource } from "./situations.ts";
import { openAITool } from "./tools.ts";
import { copyData } from "./util/copy.ts";
import { InputError, type InputIssue, issuesOf, messageOf } from "./util/errors.ts";
import { canonicalJson, sha256 } from "./util/hash.ts";
import { jsonBytesOver } from "./util/json-bytes.ts";
import { startingWorld } from "./world/starts.ts";
import type { Baseline, World } from "./world/world.ts";

/** Tool calls one assistant message may make. */
export const DEFAULT_MAX_TOOL_CALLS = 32;
/** Bytes one assistant message may take as JSON (256 KiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 256 * 1024;

/** What builds an episode. */
export interface EpisodeOptions {
  /** The agent spec (validated here) or an {@link Agent}. */
  spec: unknown;
  /** The one situation this episode plays (a reset may reseed it). */
  situation?: Situation;
  /** Or a grid to deal situations from at each reset ({@link SituationPool}). */
  situations?: SituationSource;
  writer?: SituationWriter;
  userModel?: UserSimulator;
  /** Assistant messages before the episode is cut off (truncated); `DEFAULTS.maxTurns` when left out. */
  maxTurns?: number;
  /**
   * Tool calls one assistant message may make (default {@link DEFAULT_MAX_TOOL_CALLS}); a message
   * with more is refused with a {@link InputError} naming `tool_calls`, and nothing of it runs.
   */
  maxToolCalls?: number;
  /**
   * Bytes one assistant message may take as JSON, its content, tool calls and all (default
   * {@link DEFAULT_MAX_MESSAGE_BYTES}); a larger one is refused with a {@link InputError}.
   */
  maxMessageBytes?: number;
  /** The backend playing the agent, as the row records it. */
  agentName?: string;
  /** Which rollout of the situation this is (default 0): the same situation, world and person, played again. */
  rollout?: number;
  /**
   * Keep each situation's starting world for the next episode of it (the other rollouts of a
   * group), which then copies it instead of building it (default false).
   */
  keepStart?: boolean;
}

/**
 * The person of a kept starting world, by its baseline: sampled from the situation and the world
 * alone, so the episodes that share a start share the person too (never changed once sampled).
 */
const personas = new WeakMap<Baseline, Persona>();

/** The id of a row: the situation, its seed and the rollout. */
export function rowId(situation: Situation, rollout = 0): string {
  return `row_${sha256(canonicalJson({ situation: situation.id, seed: situation.seed, rollout })).slice(0, 16)}`;
}

/**
 * Raised for a call the episode cannot take in its state: a step before reset or after the end, a
 * step or reset while another runs, a row before the end.
 */
export class EpisodeError extends Error {
  override name = "EpisodeError";
}

/**
 * One conversation as a state machine, the single engine behind `simulate()` and the server:
 * `reset(request)` opens it, `step(assistantMessage)` answers the agent (tool results from the
 * world, or the person's reply), and `reward()` grades it. Messages are OpenAI chat format; the
 * request and results are spec/episode.ts's contract.
 *
 * @example
 * const episode = new Episode({ spec, situation });
 * let { observation, done } = await episode.reset();
 * while (!done) ({ observation, done } = await episode.step(await policy(observation)));
 * const { reward, checks } = episode.reward();
 */
export class Episode implements EpisodeDriver {
  readonly agent: Agent;
  readonly maxTurns: number;
  readonly maxToolCalls: number;
  readonly maxMessageBytes: number;
  readonly rollout: number;
  readonly #writer: SituationWriter;
  readonly #userModel: UserSimulator;
  readonly #agentName: string;
  readonly #situations: SituationSource;
  readonly #keepStart: boolean;
  #situation: Situation | null;
  #episodeId = "";
  #world: World | null = null;
  #persona: Persona | null = null;
  #user: UserSession | null = null;
  #initialState: WorldState | null = null;
  /** The world's records as the episode started, for its outcome. */
  #baseline: Baseline | null = null;
  /** The backend that wrote the opening (the offline writer when the writer fell back). */
  #openingWriter = "";
  #messages: ChatMessage[] = [];
  #historyTurns = 0;
  #turns = 0;
  #done = false;
  #truncated = false;
  #endedBy: EndedBy | null = null;
  #errors: string[] = [];
  #fallback: { writer: string; error: string } | null = null;
  /**
   * The grade's parts and the conversation length they were worked out at. Every step adds a
   * message, so until the next step (or reset) a grade asked for again is the same one: a client
   * asking for its reward after each step, or many times, costs one grading a step.
   */
  #graded: { length: number; outcome: CheckedGrade; findings: ConductFinding[] } | null = null;
  #misstated: string[] = [];
  /** The conversation's tool-call ids, and the message that made each. */
  #callIds = new Map<string, number>();
  /** The reset or step in flight: another must wait for it, or the conversation would interleave. */
  #running: "reset" | "step" | null = null;

  constructor(options: EpisodeOptions) {
    this.agent = Agent.from(options.spec);
    if ((options.situation === undefined) === (options.situations === undefined))
      throw new TypeError("Episode: expected exactly one of situation or situations");
    this.#situation = options.situation ?? null;
    this.#situations =
      options.situations ?? oneSituation(this.agent, options.situation as Situation);
    this.maxTurns = options.maxTurns ?? DEFAULTS.maxTurns;
    if (!Number.isInteger(this.maxTurns) || this.maxTurns < 1)
      throw new RangeError(`maxTurns: expected a whole number ≥ 1, got ${this.maxTurns}`);
    this.maxToolCalls = options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    if (!Number.isInteger(this.maxToolCalls) || this.maxToolCalls < 1)
      throw new RangeError(`maxToolCalls: expected a whole number ≥ 1, got ${this.maxToolCalls}`);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    if (!Number.isInteger(this.maxMessageBytes) || this.maxMessageBytes < 1)
      throw new RangeError(
        `maxMessageBytes: expected a whole number ≥ 1, got ${this.maxMessageBytes}`,
      );
    this.#writer = options.writer ?? new OfflineWriter();
    this.#userModel = options.userModel ?? offlineUser;
    this.#agentName = options.agentName ?? "external";
    this.rollout = options.rollout ?? 0;
    this.#keepStart = options.keepStart === true;
    if (!Number.isInteger(this.rollout) || this.rollout < 0)
      throw new RangeError(`rollout: expected a whole number ≥ 0, got ${this.rollout}`);
  }

  /**
   * Opens a conversation (OpenEnv's reset): picks the situation the request asks for, builds its
   * world and person, and returns the system prompt, earlier contact, the person's first message
   * and the tools. A request it cannot honour is refused with an {@link InputError} naming the field.
   */
  async reset(request: ResetRequest = {}): Promise<StepResult> {
    this.#mustBeIdle("reset");
    const parsed = ResetRequestSchema.safeParse(request);
    if (!parsed.success) throw new InputError("reset request", issuesOf(parsed.error, request));
    const situation = this.#situations.pick(parsed.data);
    this.#running = "reset";
    try {
      return await this.#reset(situation, parsed.data.episode_id);
    } finally {
      this.#running = null;
    }
  }

  async #reset(situation: Situation, episodeId: string | undefined): Promise<StepResult> {
    const { world, baseline } = startingWorld(this.agent, situation, this.#keepStart);
    let persona = personas.get(baseline);
    if (!persona) {
      persona = samplePersona(this.agent, situation, world);
      if (this.#keepStart) personas.set(baseline, persona);
    }
    const setup = {
      agent: this.agent,
      situation,
      world,
      persona,
      rollout: this.rollout,
    };
    const opening = await this.#writer.write(setup);
    this.#situation = situation;
    this.#episodeId = episodeId ?? rowId(situation, this.rollout);
    this.#world = world;
    this.#persona = persona;
    this.#initialState = world.describe();
    this.#baseline = baseline;
    this.#user = this.#userModel.start(setup);
    this.#messages = [
      { role: "system", content: this.agent.system_prompt },
      ...opening.history,
      { role: "user", content: opening.message },
    ];
    this.#callIds = new Map();
    this.#messages.forEach((m, i) => {
      if (m.role === "assistant")
        for (const call of m.tool_calls ?? []) this.#callIds.set(call.id, i);
    });
    this.#historyTurns = opening.history.length;
    this.#turns = 0;
    this.#done = false;
    this.#truncated = false;
    this.#endedBy = null;
    this.#graded = null;
    this.#fallback = opening.fallbackError
      ? { writer: this.#writer.name, error: opening.fallbackError }
      : null;
    this.#errors = [];
    this.#openingWriter = opening.writer ?? this.#writer.name;
    this.#misstated = [];
    const observation: Observation = {
      messages: [...this.#messages],
      tools: this.agent.tools.map(openAITool),
      turn: 0,
      truncated: false,
      metadata: this.#metadata(),
    };
    return { observation, reward: null, done: false };
  }

  /** Which episode this is: the row id it will have, its situation and seed. */
  #metadata(): Observation["metadata"] {
    const situation = this.#situation as Situation;
    return { episode_id: this.#episodeId, task_id: situation.id, seed: situation.seed };
  }

  /**
   * Takes the agent's message; answers its tool calls from the world, or lets the person reply. A
   * message the episode cannot take (malformed, over the limits, reusing a tool-call id) is refused
   * with an {@link InputError} before any of it runs, and the episode stays where it was. Once
   * the episode is done, the result carries its reward.
   */
  async step(message: unknown): Promise<StepResult> {
    this.#mustBeIdle("step");
    const world = this.#world;
    if (!world) throw new EpisodeError("step before reset: call reset() first");
    if (this.#done) throw new EpisodeError("the episode is over: call reset() to start another");
    const parsed = parseAssistantMessage(message);
    if (!parsed.success) throw new InputError("assistant message", issuesOf(parsed.error, message));
    const assistant: AssistantMessage = parsed.data;
    const problems = this.#refusals(assistant);
    if (problems.length > 0) throw new InputError("assistant message", problems);
    this.#running = "step";
    try {
      return await this.#step(world, assistant);
    } finally {
      this.#running = null;
    }
  }

  async #step(world: World, assistant: AssistantMessage): Promise<StepResult> {
    this.#messages.push(assistant);
    this.#turns++;
    const at = this.#messages.length - 1;
    const added: ChatMessage[] = [];
    if (assistant.tool_calls && assistant.tool_calls.length > 0) {
      for (const call of assistant.tool_calls) {
        this.#callIds.set(call.id, at);
        // After a hand-off tool in this message, the world answers the rest with a refusal.
        const answer = world.call(call.function.name, call.function.arguments);
        const reply: ToolMessage = {
          role: "tool",
          tool_call_id: call.id,
          name: call.function.name,
          content: answer.content,
        };
        this.#messages.push(reply);
        added.push(reply);
      }
      if (world.handedOff) this.#end("handoff");
    } else if (this.#turns < this.maxTurns) {
      await this.#personReplies(added);
    }
    if (!this.#done && this.#turns >= this.maxTurns) {
      this.#truncated = true;
      this.#end("turn_limit");
    }
    // Tool and person messages hold only plain fields: a shallow copy keeps the episode's own safe.
    const observation: Observation = {
      messages: added.map((message) => ({ ...message })),
      turn: this.#turns,
      truncated: this.#truncated,
      ...(this.#endedBy ? { ended_by: this.#endedBy } : {}),
      metadata: this.#metadata(),
    };
    return { observation, reward: this.#done ? this.reward().reward : null, done: this.#done };
  }

  /** Why a well-formed message cannot be taken: over the episode's limits, or a tool-call id used before. */
  #refusals(assistant: AssistantMessage): InputIssue[] {
    const calls = assistant.tool_calls ?? [];
    const problems: InputIssue[] = [];
    if (calls.length > this.maxToolCalls)
      problems.push({
        path: "tool_calls",
        message: `expected at most ${this.maxToolCalls} tool calls in one message (the episode's maxToolCalls), got ${calls.length}`,
      });
    const bytes = jsonBytesOver(assistant, this.maxMessageBytes);
    if (bytes !== null)
      problems.push({
        path: "",
        message: `expected at most ${this.maxMessageBytes} bytes as JSON (the episode's maxMessageBytes), got ${bytes}`,
      });
    if (problems.length > 0) return problems;
    // Tool answers are matched to calls by id: a repeated id would make them ambiguous.
    const inMessage = new Map<string, number>();
    calls.forEach((call, i) => {
      const path = `tool_calls[${i}].id`;
      const before = inMessage.get(call.id);
      const earlier = this.#callIds.get(call.id);
      if (before !== undefined)
        problems.push({ path, message: `"${call.id}" is already the id of tool_calls[${before}]` });
      else if (earlier !== undefined)
        problems.push({
          path,
          message: `"${call.id}" is already the id of a tool call in message ${earlier}; expected an id not used before in this conversation`,
        });
      else inMessage.set(call.id, i);
    });
    return problems;
  }

  /**
   * The reward so far: 1 when the person got what they came for (the world is where their goal's
   * call leads, a read's facts were told) and the agent's conduct checks found nothing, else 0,
   * with the checks behind it. What the person said at the end does not count.
   */
  reward(): CheckedGrade {
    const { outcome, findings } = this.#grade();
    const conduct = {
      name: "conduct",
      passed: findings.length === 0,
      detail:
        findings.length === 0
          ? "the conduct checks found nothing"
          : findings.map((f) => f.detail).join("; "),
    };
    // Copies: the grade is kept once the episode is done, and a caller may change what it is given.
    const checks = [...outcome.checks.map((check) => ({ ...check })), conduct];
    const failed = checks.filter((c) => !c.passed);
    return {
      reward: failed.length === 0 ? 1 : 0,
      reason: failed.length === 0 ? outcome.reason : failed.map((c) => c.detail).join("; "),
      checks,
    };
  }

  /**
   * Whether the person's goal was reached (the world's records and, for a read, what was told),
   * and what the conduct checks found; kept until the conversation grows.
   */
  #grade(): { outcome: CheckedGrade; findings: ConductFinding[] } {
    const length = this.#messages.length;
    if (this.#graded?.length === length) return this.#graded;
    const grade = {
      length,
      outcome: outcomeGrade(
        this.agent,
        this.situation,
        this.#requirePersona().goal,
        this.#requireWorld(),
        this.#messages,
        this.#baseline ?? undefined,
      ),
      findings: conductChecks(this.agent, {
        messages: this.#messages,
        episode: { history_turns: this.#historyTurns },
      }),
    };
    this.#graded = grade;
    return grade;
  }

  /** The situation being played: the episode's own, or the one its last reset picked. */
  get situation(): Situation {
    if (!this.#situation) throw new EpisodeError("no situation yet: call reset() first");
    return this.#situation;
  }

  /** The person's goal: the call whose outcome {@link Episode.reward} checks for. */
  get goal(): Goal {
    const { goal } = this.#requirePersona();
    return { ...copyData(goal), text: goal.text.replace(/[\uE000\uE001]/g, "") };
  }

  /** Whether the conversation has ended (or been cut off). */
  get done(): boolean {
    return this.#done;
  }

  /** The whole conversation so far (a copy). */
  get messages(): ChatMessage[] {
    return copyData(this.#messages);
  }

  /** The world behind this episode's tools. */
  get world(): World {
    return this.#requireWorld();
  }

  /**
   * The finished conversation as a dataset row: ungraded, with the conduct and simulator checks'
   * findings. The driver adds what only it knows: the offline agent's slips. Before the episode is
   * done it throws an {@link EpisodeError}: step on, or end it with {@link Episode.fail}.
   */
  row(notes: { slips?: readonly Slip[] } = {}): Row {
    const world = this.#requireWorld();
    if (!this.#done)
      throw new EpisodeError(
        "the episode is not over: step until done, or call fail() to end it, before taking its row",
      );
    const persona = this.#persona as Persona;
    const { id, axes, seed, cell, pass, flipped_from } = this.situation;
    const details = persona.details;
    const row: Row = {
      id: this.#episodeId,
      task_id: id,
      // The episode is over and never changes a message once added, so the row shares them.
      messages: [...this.#messages],
      tools: this.agent.tools.map(openAITool),
      situation: {
        id,
        axes,
        seed,
        cell,
        pass,
        ...(flipped_from ? { flipped_from } : {}),
        world_state: this.#initialState as WorldState,
        faults: world.faults,
      },
      persona: {
        tags: persona.tags,
        holds: [
          ...new Set([
            details.email,
            ...Object.values(details.ids),
            ...Object.values(details.candidates).flat(),
            details.name,
            details.phone,
            ...Object.values(details.details),
          ]),
        ],
        misstated: [...this.#misstated],
      },
      models: {
        agent: this.#agentName,
        simulator: this.#openingWriter,
        user_model: this.#userModel.name,
      },
      episode: {
        ended_by: this.#endedBy ?? "turn_limit",
        truncated: this.#truncated,
        turns: this.#turns,
        history_turns: this.#historyTurns,
        goal: this.goal,
        slips: (notes.slips ?? []).map((slip) => ({ ...slip })),
        errors: [...this.#errors],
        ...(this.#fallback ? { writer_fallback: { ...this.#fallback } } : {}),
      },
      conduct: [],
      sim_faults: [],
    };
    const { outcome, findings } = this.#grade();
    row.conduct = copyData(findings);
    row.episode.outcome = {
      reached: outcome.reward === 1,
      reason: outcome.reason,
      checks: outcome.checks.map((check) => ({ ...check })),
    };
    row.sim_faults = simulatorChecks(this.agent, row);
    return row;
  }

  /**
   * Records that the conversation broke off because a role failed, keeping the error on the row.
   * Once the episode is done it does nothing: the conversation keeps the ending it had.
   */
  fail(error: unknown): void {
    if (this.#done) return;
    this.#errors.push(messageOf(error));
    this.#end("error");
  }

  async #personReplies(added: ChatMessage[]): Promise<void> {
    const user = this.#user as UserSession;
    let turn: Awaited<ReturnType<UserSession["reply"]>>;
    try {
      turn = await user.reply(this.#messages);
    } catch (error) {
      this.fail(new Error(`user: ${messageOf(error)}`));
      return;
    }
    if (turn.content.length > 0) {
      const reply: ChatMessage = { role: "user", content: turn.content };
      this.#messages.push(reply);
      added.push(reply);
    }
    if (turn.misstated) this.#misstated.push(...turn.misstated);
    if (turn.end) this.#end(turn.end === "done" ? "user_done" : "user_gave_up");
  }

  #end(by: EndedBy): void {
    this.#done = true;
    this.#endedBy = by;
  }

  #mustBeIdle(call: "reset" | "step"): void {
    if (this.#running)
      throw new EpisodeError(
        `a ${this.#running} is already running: await it before calling ${call}()`,
      );
  }

  #requirePersona(): Persona {
    if (!this.#persona) throw new EpisodeError("no person yet: call reset() first");
    return this.#persona;
  }

  #requireWorld(): World {
    if (!this.#world) throw new EpisodeError("no world yet: call reset() first");
    return this.#world;
  }
}
