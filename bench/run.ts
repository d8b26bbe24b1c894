/** `npm run bench -- <name>…`: runs the named benchmarks in bench/ (all of them with no name). */
const BENCHES: Record<string, () => Promise<{ run: () => Promise<void> | void }>> = {
  covering: () => import("./covering.ts"),
  plan: () => import("./plan.ts"),
  world: () => import("./world.ts"),
  simulate: () => import("./simulate.ts"),
  server: () => import("./server.ts"),
  decontaminate: () => import("./decontaminate.ts"),
  startup: () => import("./startup.ts"),
};

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in BENCHES));
if (unknown.length > 0) {
  process.stderr.write(
    `unknown benchmark ${unknown.join(", ")}; expected one of ${Object.keys(BENCHES).join(", ")}\n`,
  );
  process.exit(2);
}
for (const name of asked.length > 0 ? asked : Object.keys(BENCHES)) {
  const bench = await (BENCHES[name] as () => Promise<{ run: () => Promise<void> | void }>)();
  await bench.run();
}
