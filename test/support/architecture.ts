import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** The folders of the package, in the direction they may import: each may import those before it. */
const LAYERS = ["spec", "env", "exporters", "server", "bin"] as const;

/** Comments, so an import quoted in a doc comment is not taken for one. */
const COMMENTS = /\/\*[\s\S]*?\*\/|(?<![:"'`\\])\/\/[^\n]*/g;

/**
 * A module's relative imports (static, re-exports, type-only and dynamic), as paths from the root;
 * a `.js` or `.mjs` specifier names the `.ts` file TypeScript and tsx resolve it to.
 */
function importsOf(root: string, file: string): string[] {
  const source = readFileSync(join(root, file), "utf8").replace(COMMENTS, "");
  const found: string[] = [];
  for (const match of source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const path = relative(root, resolve(root, dirname(file), match[1] as string));
    found.push(
      path
        .split(sep)
        .join("/")
        .replace(/\.m?js$/, ".ts"),
    );
  }
  return found;
}

function sourceFiles(root: string, folder: string): string[] {
  const out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(join(root, folder));
  } catch {
    return out;
  }
  for (const name of entries.sort()) {
    const path = `${folder}/${name}`;
    if (statSync(join(root, path)).isDirectory()) out.push(...sourceFiles(root, path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** The strongly connected groups of more than one node (Tarjan), each sorted, in a stable order. */
export function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to))
        low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** The part of env/ a file belongs to: its subfolder, or the file itself at env/'s top. */
function envPart(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `${parts[0]}/${parts[1]}/` : file;
}

/**
 * Every way the tree under `root` breaks the layout of DESIGN §2: an import cycle between files or
 * between env/'s parts, spec/ importing anything local, a folder importing one after it, a folder
 * after env/ reaching past `env/index.ts`, and sdk-client/ importing anything but spec/.
 */
export function architectureViolations(root: string): string[] {
  const files = [...LAYERS, "sdk-client"].flatMap((folder) => sourceFiles(root, folder));
  const problems: string[] = [];
  const fileGraph = new Map<string, Set<string>>();
  const partGraph = new Map<string, Set<string>>();
  for (const file of files) {
    const folder = file.split("/")[0] as string;
    const imports = importsOf(root, file);
    fileGraph.set(file, new Set(imports));
    for (const target of imports) {
      const to = target.split("/")[0] as string;
      // The package's own metadata (its version) may be read from anywhere but the contracts.
      if (to === folder || (target === "package.json" && folder !== "spec")) continue;
      const why = crossing(folder, to, target);
      if (why) problems.push(`${file} imports ${target}: ${why}`);
    }
    if (folder === "env") {
      const from = envPart(file);
      const parts = partGraph.get(from) ?? new Set<string>();
      partGraph.set(from, parts);
      for (const target of imports)
        if (target.startsWith("env/") && envPart(target) !== from) parts.add(envPart(target));
    }
  }
  for (const group of cyclesOf(fileGraph))
    problems.push(`import cycle between files: ${group.join(" ↔ ")}`);
  // A cycle of env/'s top-level files alone is a cycle between files, reported above.
  for (const group of cyclesOf(partGraph))
    if (group.some((part) => part.endsWith("/")))
      problems.push(`import cycle between parts of env/: ${group.join(" ↔ ")}`);
  return problems.sort();
}

/** Why an import from one top folder into another breaks the direction, or null when it may. */
function crossing(from: string, to: string, target: string): string | null {
  if (from === "sdk-client") return to === "spec" ? null : "sdk-client/ may import spec/ only";
  if (from === "spec") return "spec/ holds the contracts and imports nothing local";
  const fromLayer = LAYERS.indexOf(from as (typeof LAYERS)[number]);
  const toLayer = LAYERS.indexOf(to as (typeof LAYERS)[number]);
  if (to === "sdk-client") return "only the package's index.ts re-exports sdk-client/";
  if (toLayer < 0) return `${from}/ may not import outside the package's folders`;
  if (toLayer >= fromLayer)
    return `${from}/ may import only ${LAYERS.slice(0, fromLayer).join("/, ")}/`;
  if (to === "env" && target !== "env/index.ts") return "use env/index.ts, the engine's front door";
  return null;
}
