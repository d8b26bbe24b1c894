export { createWorld, type ToolAnswer, World, type WorldOptions } from "./world.ts";
