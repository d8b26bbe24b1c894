/**
 * The TypeScript client of the environment server (imports spec/ only): `EnvClient` speaks
 * OpenEnv's WebSocket envelope (JSON or MessagePack) with resume after a dropped connection, and
 * `rollout` runs one episode with a policy, a function or an OpenAI-compatible model (`chatModel`).
 *
 * @example
 * import { EnvClient, chatModel, rollout } from "./sdk-client/index.ts";
 * const client = new EnvClient("ws://127.0.0.1:8000/ws");
 * const { reward } = await rollout(client, chatModel({ baseUrl: "http://127.0.0.1:8001/v1", model: "qwen3-8b" }));
 * await client.close();
 *
 * @module
 */
export {
  EnvClient,
  type EnvClientOptions,
  EnvServerError,
  EnvTimeoutError,
} from "./client.ts";
export { decodeFrame, encodeFrame, type WireEncoding } from "./codec.ts";
export {
  type ChatModelOptions,
  type ClientRolloutResult,
  chatModel,
  type Policy,
  type PolicyInput,
  rollout,
} from "./rollout.ts";
