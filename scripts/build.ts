/**
 * `npm run build`: bundles the CLI (bin/rehearse.ts) into plain JavaScript in dist/, the package's
 * `bin`, so `rehearse` starts without compiling TypeScript. One chunk per command, loaded when that
 * command runs; dependencies stay in node_modules (bundled, msgpackr would lose its native decoder,
 * which it finds through `__dirname`).
 *
 * Modules find files beside themselves with `new URL("./<file>", import.meta.url)`, which in the
 * bundle means beside the chunks: a `./<name>.js` with a `<name>.ts` beside the source (a worker
 * thread's module) is built as one more entry point, any other file but `.ts` is copied.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, resolve } from "node:path";
import { build as esbuild, type OutputFile } from "esbuild";

/** The project's root folder. */
const ROOT = join(import.meta.dirname, "..");

/** The CLI's source, relative to the root. */
const ENTRY = "bin/rehearse.ts";

/** A file a module locates beside itself. */
const BESIDE = /new URL\("\.\/([^"/]+)", import\.meta\.url\)/g;

/** What a build wrote. */
export interface BuiltCli {
  /** The script to run: `node <entry> <command>`, or the entry itself (it has a shebang). */
  entry: string;
  /** Every file written: chunks, entry points, assets and the folder's package.json. */
  files: string[];
  /** The sources bundled into each JavaScript file written, relative to the root. */
  sources: Map<string, string[]>;
  /** Entry points besides the CLI (worker threads' modules), relative to the root. */
  workers: string[];
  /** Files copied beside the chunks, relative to the root. */
  assets: string[];
}

/** What the bundled modules locate beside themselves. */
interface Beside {
  workers: Set<string>;
  assets: Set<string>;
}

/**
 * Bundles the CLI (`bin/rehearse.ts` under `root`, this project by default) into `outdir` (emptied
 * first), with the worker modules and the files its modules locate.
 */
export async function build(outdir: string, root = ROOT): Promise<BuiltCli> {
  const out = resolve(outdir);
  const beside: Beside = { workers: new Set(), assets: new Set() };
  let outputs: OutputFile[];
  let sources: Map<string, string[]>;
  // A worker's module may locate files of its own: bundle again until nothing new turns up.
  for (;;) {
    const found = beside.workers.size + beside.assets.size;
    const result = await esbuild({
      entryPoints: [ENTRY, ...beside.workers],
      absWorkingDir: root,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      packages: "external",
      outdir: out,
      entryNames: "[name]",
      write: false,
      metafile: true,
      logLevel: "warning",
    });
    outputs = result.outputFiles;
    sources = new Map(
      Object.entries(result.metafile.outputs).map(([path, { inputs }]) => [
        resolve(root, path),
        Object.keys(inputs),
      ]),
    );
    await locate(root, Object.keys(result.metafile.inputs), beside);
    if (beside.workers.size + beside.assets.size === found) break;
  }

  const copies = new Map([...beside.assets].map((asset) => [asset, join(out, basename(asset))]));
  const names = [...outputs.map((file) => file.path), ...copies.values()].map((path) =>
    basename(path),
  );
  const clash = names.find((name, i) => names.indexOf(name) !== i);
  if (clash) throw new Error(`two files of the bundle are named ${clash}: they share one folder`);

  const entry = join(out, "rehearse.js");
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  for (const file of outputs) {
    // The source's shebang runs tsx; the bundle is plain JavaScript.
    const text =
      file.path === entry ? file.text.replace(/^#!.*\n/, "#!/usr/bin/env node\n") : file.text;
    await writeFile(file.path, text);
  }
  await chmod(entry, 0o755);
  for (const [asset, copy] of copies) await copyFile(join(root, asset), copy);
  // ES modules wherever the folder lies (a test builds into a temporary folder).
  await writeFile(join(out, "package.json"), '{ "type": "module" }\n');
  return {
    entry,
    files: [...outputs.map((file) => file.path), ...copies.values(), join(out, "package.json")],
    sources,
    workers: [...beside.workers],
    assets: [...beside.assets],
  };
}

/**
 * Adds to `beside` what the bundled project modules locate beside themselves. `import.meta.dirname`
 * and `import.meta.filename` would name dist/ once bundled, so the build refuses them.
 */
async function locate(root: string, inputs: string[], beside: Beside): Promise<void> {
  for (const source of inputs) {
    if (!source.endsWith(".ts") || source.includes("node_modules/")) continue;
    const text = await readFile(join(root, source), "utf8");
    if (/import\.meta\.(dirname|filename)/.test(text))
      throw new Error(
        `${source} uses import.meta.dirname or .filename: bundled, it would name dist/; use new URL("./<file>", import.meta.url)`,
      );
    for (const [, name] of text.matchAll(BESIDE)) {
      const path = join(dirname(source), name as string);
      // The .ts form is what the module runs from its sources (under tsx), never from the bundle.
      if (path.endsWith(".ts")) continue;
      const worker = path.replace(/\.js$/, ".ts");
      if (path.endsWith(".js") && existsSync(join(root, worker))) beside.workers.add(worker);
      else if (existsSync(join(root, path))) beside.assets.add(path);
      else throw new Error(`${source} locates ${name} beside itself, and there is no such file`);
    }
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const built = await build(join(ROOT, "dist"));
  const extras = [...built.workers, ...built.assets].join(", ") || "nothing else";
  // On stderr: `npm pack --json` runs this (prepare) and its stdout must be the JSON alone.
  process.stderr.write(
    `built ${relative(ROOT, built.entry)}: ${built.files.length} files, with ${extras}\n`,
  );
}
