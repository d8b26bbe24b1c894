/**
 * The contracts: zod schemas every other folder validates with at its edge, and the types inferred
 * from them. No logic but validation; JSON Schemas of the top-level ones are generated into
 * schemas/ (`npm run schemas`).
 *
 * @example
 * import { AgentSpecSchema, StepResultSchema } from "./spec/index.ts";
 * const spec = AgentSpecSchema.parse(JSON.parse(text));
 *
 * @module
 */
export * from "./agent.ts";
export * from "./axes.ts";
export * from "./backend.ts";
export * from "./dataset.ts";
export * from "./environment.ts";
export * from "./episode.ts";
export * from "./export.ts";
export * from "./grade.ts";
export * from "./hub.ts";
export * from "./json-schema.ts";
export * from "./messages.ts";
export * from "./options.ts";
export * from "./row.ts";
export * from "./situation.ts";
export * from "./traces.ts";
export * from "./wire.ts";
export * from "./world.ts";
