export * from "./env/index.ts";
export * from "./spec/index.ts";
