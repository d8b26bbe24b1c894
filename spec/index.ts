export * from "./agent.ts";
export * from "./axes.ts";
export * from "./dataset.ts";
export * from "./json-schema.ts";
export * from "./messages.ts";
export * from "./row.ts";
export * from "./situation.ts";
export * from "./world.ts";
