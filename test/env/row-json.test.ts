import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../env/agent.ts";
import { Planner } from "../../env/plan.ts";
import { OfflineAgent } from "../../env/roles/offline-agent.ts";
import { offlineUser } from "../../env/roles/offline-user.ts";
import { OfflineWriter } from "../../env/roles/offline-writer.ts";
import { playEpisode } from "../../env/rollout.ts";
import { rowJson } from "../../env/row-json.ts";
import type { Row } from "../../spec/index.ts";

const SPECS = join(import.meta.dirname, "../fixtures/specs");

/** The first rows of a spec's plan, played offline. */
async function playedRows(agent: Agent, rows: number): Promise<Row[]> {
  const policy = new OfflineAgent();
  const writer = new OfflineWriter();
  const played: Row[] = [];
  for (const situation of [...new Planner(agent, { rows }).walk()].slice(0, rows))
    played.push(await playEpisode(agent, situation, policy, writer, offlineUser, 12));
  return played;
}

describe("rowJson", () => {
  it("writes every row of the spec corpus exactly as JSON.stringify does", async () => {
    const files = readdirSync(SPECS).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const agent = Agent.from(JSON.parse(readFileSync(join(SPECS, file), "utf8")));
      for (const row of await playedRows(agent, 6))
        expect(rowJson(row, agent), file).toBe(JSON.stringify(row));
    }
  });

  it("writes a row whose tools differ from the agent's, or whose members were changed, as JSON.stringify does", async () => {
    const files = readdirSync(SPECS).filter((f) => f.endsWith(".json"));
    const agent = Agent.from(JSON.parse(readFileSync(join(SPECS, files[0] as string), "utf8")));
    const [row] = await playedRows(agent, 1);
    if (!row) throw new Error("no row played");
    const variants: Row[] = [
      { ...row, tools: row.tools.slice(1) },
      { ...row, tools: structuredClone(row.tools) },
      {
        ...row,
        tools: row.tools.map((t, i) =>
          i === 0 ? { ...t, function: { ...t.function, description: "changed" } } : t,
        ),
      },
      {
        ...row,
        tools: row.tools.map((t, i) =>
          i === 0
            ? {
                type: t.type,
                function: {
                  parameters: t.function.parameters,
                  name: t.function.name,
                  description: t.function.description,
                },
              }
            : t,
        ),
      },
      { ...row, conduct: undefined as unknown as Row["conduct"] },
      { ...row, extra: { note: "added after" } } as Row,
      Object.fromEntries(Object.entries(row).reverse()) as unknown as Row,
    ];
    for (const variant of variants) expect(rowJson(variant, agent)).toBe(JSON.stringify(variant));
  });
});
