import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { architectureViolations, cyclesOf } from "./support/architecture.ts";

/** A small tree of modules on disk: path → source. */
function plant(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "rehearse-architecture-"));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(join(root, dirname(path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  planted.push(root);
  return root;
}
const planted: string[] = [];
afterAll(() => {
  for (const root of planted) rmSync(root, { recursive: true, force: true });
});

describe("the architecture (DESIGN §2)", () => {
  it("holds on this tree: no cycle, every import in the direction spec ← env ← exporters ← server/bin", () => {
    expect(architectureViolations(process.cwd())).toEqual([]);
  });

  it("fails on a planted cycle between two files, even one made of type-only imports", () => {
    const root = plant({
      "env/a.ts": 'import type { B } from "./b.ts";\nexport type A = B;\n',
      "env/b.ts": 'import { a } from "./a.ts";\nexport const b = a;\n',
      "env/c.ts": 'export { b } from "./b.ts";\n',
    });
    expect(architectureViolations(root)).toEqual([
      "import cycle between files: env/a.ts ↔ env/b.ts",
    ]);
  });

  it("sees a cycle through .js specifiers, and not an import quoted in a comment", () => {
    const root = plant({
      "env/a.ts":
        '/** Not an import: `import { x } from "./c.ts"`. */\nimport { b } from "./b.js";\nexport const a = b;\n',
      "env/b.ts":
        '// import { nothing } from "./c.ts";\nimport type { A } from "./a.mjs";\nexport const b: A | 1 = 1;\n',
      "env/c.ts": 'import { a } from "./a.ts";\nexport const c = a;\n',
    });
    expect(architectureViolations(root)).toEqual([
      "import cycle between files: env/a.ts ↔ env/b.ts",
    ]);
  });

  it("lets the engine read the package's version, but not the contracts", () => {
    const root = plant({
      "package.json": "{}\n",
      "env/version.ts":
        'import pkg from "../package.json" with { type: "json" };\nexport const v = pkg;\n',
      "spec/version.ts":
        'import pkg from "../package.json" with { type: "json" };\nexport const v = pkg;\n',
    });
    expect(architectureViolations(root)).toEqual([
      "spec/version.ts imports package.json: spec/ holds the contracts and imports nothing local",
    ]);
  });

  it("fails on a cycle between two parts of env/ even when no two files form one", () => {
    const root = plant({
      "env/grade/judge.ts":
        'import { role } from "../roles/agent.ts";\nexport const judge = role;\n',
      "env/roles/agent.ts": "export const role = 1;\n",
      "env/roles/user.ts":
        'import { judge } from "../grade/judge.ts";\nexport const user = judge;\n',
    });
    expect(architectureViolations(root)).toEqual([
      "import cycle between parts of env/: env/grade/ ↔ env/roles/",
    ]);
  });

  it("fails on imports against the direction, past env/index.ts, and from the client beyond spec/", () => {
    const root = plant({
      "spec/row.ts": 'import { x } from "../env/index.ts";\nexport const row = x;\n',
      "env/index.ts": "export const x = 1;\n",
      "env/world.ts": 'import { serve } from "../server/app.ts";\nexport const world = serve;\n',
      "server/app.ts": 'import { x } from "../env/index.ts";\nexport const serve = x;\n',
      "bin/cli.ts": 'const engine = await import("../env/world.ts");\nexport { engine };\n',
      "sdk-client/client.ts": 'import { x } from "../env/index.ts";\nexport const client = x;\n',
    });
    expect(architectureViolations(root)).toEqual([
      "bin/cli.ts imports env/world.ts: use env/index.ts, the engine's front door",
      "env/world.ts imports server/app.ts: env/ may import only spec/",
      "sdk-client/client.ts imports env/index.ts: sdk-client/ may import spec/ only",
      "spec/row.ts imports env/index.ts: spec/ holds the contracts and imports nothing local",
    ]);
  });

  it("finds every group of a graph with several cycles, and none in a chain", () => {
    const graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["a", "c"])],
      ["c", new Set(["d"])],
      ["d", new Set(["c"])],
      ["e", new Set(["a"])],
    ]);
    expect(cyclesOf(graph)).toEqual([
      ["a", "b"],
      ["c", "d"],
    ]);
    expect(
      cyclesOf(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set(["c"])],
        ]),
      ),
    ).toEqual([]);
  });
});
