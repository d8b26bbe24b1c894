import { createHash } from "node:crypto";
import { mkdir, rename } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { threadId } from "node:worker_threads";

/** Bundles made in this process, by source file: each is built once. */
const bundles = new Map<string, Promise<URL>>();

/**
 * A worker thread's module: `built`, the JavaScript beside the calling module, when the caller
 * runs bundled; when it runs from its TypeScript sources (tsx, vitest), `source` bundled once per
 * process with esbuild (tsx's own compiler) into node_modules/.cache, where its packages resolve.
 * Node 20 applies no module.register() hooks in worker threads, so `--import tsx` does not reach
 * them, and tsx's require hook compiles the engine file by file in each thread: seconds per
 * worker, where the bundle loads in a fraction of one.
 */
export function threadModule(caller: string, built: URL, source: URL): Promise<URL> {
  if (!caller.endsWith(".ts")) return Promise.resolve(built);
  const path = fileURLToPath(source);
  let bundle = bundles.get(path);
  if (!bundle) {
    bundle = bundleOf(path);
    bundles.set(path, bundle);
  }
  return bundle;
}

async function bundleOf(path: string): Promise<URL> {
  const { build } = await import("esbuild");
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const folder = join(root, "node_modules", ".cache", "rehearse");
  await mkdir(folder, { recursive: true });
  // Named for the source's own path: checkouts sharing node_modules keep their bundles apart.
  const place = createHash("sha256").update(path).digest("hex").slice(0, 12);
  const target = join(folder, `${basename(path, ".ts")}-${place}.mjs`);
  // Another process may be loading the bundle: write beside it and rename over it in one step.
  const temp = `${target}.${process.pid}.${threadId}.tmp`;
  await build({
    entryPoints: [path],
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    outfile: temp,
    logLevel: "warning",
  });
  await rename(temp, target);
  return pathToFileURL(target);
}
