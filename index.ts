/**
 * rehearse: simulate the situations a tool-using agent meets (a person with a request, a world
 * behind its tools, tools that fail) and turn the conversations into post-training data, or serve
 * them live as an RL environment. The package's main re-exports the engine (env/) and the
 * contracts (spec/).
 *
 * @example
 * import { simulate } from "rehearse";
 * const data = await simulate("examples/retail-orders.json", { rows: 64, seed: 7 });
 * console.log(data.coverage.pairwise.fraction, data.quality);
 *
 * @module
 */
export * from "./env/index.ts";
export * from "./exporters/index.ts";
// The client's rollout takes a policy function; the engine's `rollout` (env/) takes an agent session.
export {
  type ChatModelOptions,
  type ClientRolloutResult,
  chatModel,
  EnvClient,
  type EnvClientOptions,
  EnvServerError,
  EnvTimeoutError,
  type Policy,
  type PolicyInput,
  rollout as clientRollout,
  type WireEncoding,
} from "./sdk-client/index.ts";
export {
  type ServeOptions,
  type ServerHandle,
  serve,
  serve as startServer,
} from "./server/index.ts";
export * from "./spec/index.ts";
