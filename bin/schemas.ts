import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { checkOutputFolder, writeFilesAtomic } from "../env/index.ts";
import { jsonSchemas } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";

/** The JSON Schema files for every top-level contract: file name → content. */
export function schemaFiles(): Map<string, string> {
  return new Map(
    Object.entries(jsonSchemas()).map(([name, schema]) => [
      `${name}.json`,
      `${JSON.stringify(schema, null, 2)}\n`,
    ]),
  );
}

/** `rehearse schemas`: writes (or checks) the JSON Schemas generated from spec/, all of them or none. */
export function schemasCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("schemas")
    .description(
      "write the JSON Schemas of every contract, generated from the zod schemas in spec/",
    )
    .requiredOption("--out <dir>", "folder to write them to")
    .option("--check", "write nothing; exit 1 if any file is missing or stale")
    .addHelpText("after", "\nExample:\n  rehearse schemas --out schemas/ --check\n")
    .action(async (flags: { out: string; check?: boolean }) => done(await schemas(flags, io)));
}

async function schemas(flags: { out: string; check?: boolean }, io: Io): Promise<number> {
  const files = schemaFiles();
  if (!flags.check) {
    await checkOutputFolder(flags.out, {
      what: "schemas flags",
      field: "--out",
      name: [...files.keys()].reduce((a, b) => (b.length > a.length ? b : a)),
    });
    // One set of schemas: every file is written, or none is changed.
    const paths = new Map([...files].map(([file, content]) => [join(flags.out, file), content]));
    await writeFilesAtomic(paths);
    for (const path of paths.keys()) io.out(`wrote ${path}\n`);
    return EXIT.ok;
  }
  const stale: string[] = [];
  for (const [file, content] of files) {
    const path = join(flags.out, file);
    const current = await readFile(path, "utf8").catch(() => null);
    if (current !== content) stale.push(path);
  }
  if (stale.length === 0) return EXIT.ok;
  io.err(`stale or missing (run npm run schemas):\n${stale.map((s) => `  ${s}`).join("\n")}\n`);
  return EXIT.failed;
}
