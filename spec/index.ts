export * from "./agent.ts";
export * from "./axes.ts";
export * from "./json-schema.ts";
export * from "./situation.ts";
export * from "./world.ts";
