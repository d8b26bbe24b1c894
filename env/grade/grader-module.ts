import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { InputError, messageOf } from "../util/errors.ts";
import type { Grader } from "./grade.ts";

/**
 * Imports a module by path. Node 20 runs no TypeScript, so the built CLI (plain JavaScript, no tsx
 * loader) imports a .ts grader through tsx, which must then be installed beside rehearse.
 */
async function importModule(path: string): Promise<unknown> {
  const url = pathToFileURL(resolve(path)).href;
  try {
    return await import(url);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_UNKNOWN_FILE_EXTENSION") throw error;
    const tsx = await import("tsx/esm/api").catch(() => {
      throw new Error("a TypeScript grader needs tsx (npm install tsx), or give a .js one");
    });
    return await tsx.tsImport(url, import.meta.url);
  }
}

/**
 * The function a module exports as its default or as `grade`, also from a module compiled to
 * CommonJS: tsx compiles a .ts file outside a `"type": "module"` package so, and Node's import then
 * gives its exports object as the default.
 */
function exportedGrader(module: { default?: unknown; grade?: unknown }): Grader | undefined {
  const inner = module.default;
  const candidates = [module.default, module.grade];
  if (typeof inner === "object" && inner !== null)
    candidates.push((inner as typeof module).default, (inner as typeof module).grade);
  return candidates.find((candidate): candidate is Grader => typeof candidate === "function");
}

/** Loads a grader module: its default export or `grade`, refused by name when neither is a function. */
export async function graderFrom(path: string, option = "--grader"): Promise<Grader> {
  let module: { default?: unknown; grade?: unknown };
  try {
    module = (await importModule(path)) as typeof module;
  } catch (error) {
    throw new InputError(option, [
      { path: "", message: `cannot load the module ${path}: ${messageOf(error)}` },
    ]);
  }
  const grader = exportedGrader(module);
  if (grader === undefined) {
    throw new InputError(path, [
      {
        path: "default",
        message:
          "expected the module to export a grader function (default export, or `grade`): (row) => {reward, reason, failure_class?}",
      },
    ]);
  }
  return grader;
}
