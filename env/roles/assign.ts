import type { BackendSpec, Degraded } from "../../spec/index.ts";
import { type Backend, familyWarning, parseBackend } from "../backends/backend.ts";
import { endpointOf } from "../backends/endpoint.ts";
import { InputError, messageOf } from "../util/errors.ts";
import { ModelAgent } from "./model-agent.ts";
import { ModelUser } from "./model-user.ts";
import { ModelWriter } from "./model-writer.ts";
import { OfflineAgent } from "./offline-agent.ts";
import { offlineUser } from "./offline-user.ts";
import { OfflineWriter } from "./offline-writer.ts";
import type {
  AgentPolicy,
  EpisodeSetup,
  Opening,
  SituationWriter,
  UserSimulator,
} from "./types.ts";

/** Who plays each role: a backend spec, or a role object of your own. */
export interface RoleChoices {
  agent?: BackendSpec | AgentPolicy;
  simulator?: BackendSpec | SituationWriter;
  userModel?: BackendSpec | UserSimulator;
  /** The judge's backend, when one is known, for the family check. */
  judge?: BackendSpec;
  logprobs?: boolean;
  slipRate?: number;
  /** A fetch for every model client (tests, proxies). */
  fetch?: typeof fetch;
}

/** The roles of a run, and what the rules about who plays what found. */
export interface Roles {
  agent: AgentPolicy;
  writer: FallbackWriter;
  user: UserSimulator;
  degraded: Degraded;
  warnings: string[];
}

const OPTION: Record<string, string> = {
  agent: "agent (--agent)",
  simulator: "simulator (--simulator)",
  userModel: "userModel (--user-model)",
};

/**
 * Builds the roles and applies the brief's rules before any call is made: a decision model
 * (`typesafe:`) cannot play agent, writer or user; one model in more than one role is recorded as
 * `same_model` with a warning naming the option that separates them; a judge of the agent's family
 * is warned about. Offline roles are distinct programs and never count as one model.
 */
export function assignRoles(choices: RoleChoices): Roles {
  const backends: Record<string, Backend | null> = {};
  const problems: { path: string; message: string }[] = [];
  for (const role of ["agent", "simulator", "userModel"] as const) {
    const choice = choices[role];
    if (
      choice !== undefined &&
      typeof choice === "object" &&
      "name" in choice &&
      !("provider" in choice)
    ) {
      backends[role] = null;
      continue;
    }
    const backend = parseBackend(choice as BackendSpec | undefined, role);
    if (backend.provider === "typesafe") {
      problems.push({
        path: role,
        message: `${backend.name} is a decision model: it can only judge (grade({ spec })); give ${role} a chat model or "offline"`,
      });
    }
    backends[role] = backend;
  }
  if (problems.length > 0) throw new InputError("roles", problems);

  const fetchOption = choices.fetch ? { fetch: choices.fetch } : {};
  const agent = backends.agent
    ? backends.agent.provider === "offline"
      ? new OfflineAgent({ slipRate: choices.slipRate })
      : new ModelAgent(backends.agent, { logprobs: choices.logprobs ?? false, ...fetchOption })
    : (choices.agent as AgentPolicy);
  const primary = backends.simulator
    ? backends.simulator.provider === "offline"
      ? new OfflineWriter()
      : new ModelWriter(backends.simulator, fetchOption)
    : (choices.simulator as SituationWriter);
  const user = backends.userModel
    ? backends.userModel.provider === "offline"
      ? offlineUser
      : new ModelUser(backends.userModel, fetchOption)
    : (choices.userModel as UserSimulator);

  const degraded: Degraded = {};
  const warnings: string[] = [];
  // One model is one model however its server is spelled: compare the model on its normalised endpoint.
  const played = (
    [
      ["agent", agent.name],
      ["simulator", primary.name],
      ["userModel", user.name],
    ] as const
  )
    .filter(([, name]) => name !== "offline")
    .map(([role, name]) => {
      const backend = backends[role];
      return { role, name, model: backend ? `${backend.model}@${endpointOf(backend)}` : name };
    });
  for (const { role, name, model } of played) {
    const roles = played.filter((other) => other.model === model).map((other) => other.role);
    if (roles.length < 2 || roles[0] !== role) continue;
    degraded.same_model = { model: name, roles };
    warnings.push(
      `${name} plays ${roles.join(" and ")}: a model talking to itself writes the data it would write anyway; pass a different model to ${roles
        .slice(1)
        .map((r) => OPTION[r])
        .join(" and ")}`,
    );
  }
  if (choices.judge !== undefined) {
    const warning = familyWarning(parseBackend(choices.judge, "judge"), agent.name);
    if (warning) warnings.push(warning);
  }
  return { agent, writer: new FallbackWriter(primary), user, degraded, warnings };
}

/**
 * The situation writer with the offline writer behind it: when the writer's backend fails, the
 * offline writer opens the conversation instead, and the opening says so (the row records it).
 */
export class FallbackWriter implements SituationWriter {
  readonly name: string;
  readonly #primary: SituationWriter;
  readonly #offline = new OfflineWriter();

  constructor(primary: SituationWriter) {
    this.#primary = primary;
    this.name = primary.name;
  }

  async write(setup: EpisodeSetup): Promise<Opening> {
    try {
      return await this.#primary.write(setup);
    } catch (error) {
      const message = messageOf(error);
      return {
        ...(await this.#offline.write(setup)),
        writer: this.#offline.name,
        fallbackError: message,
      };
    }
  }
}
