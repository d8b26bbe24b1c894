import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent, OfflineAgent, rollout } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { type ServerHandle, serve } from "../../server/index.ts";
import { playEpisodes } from "./harness.ts";

let agent: Agent;
let folder: string;
let server: ServerHandle;
const TOKEN = "report-token";

beforeAll(async () => {
  agent = await Agent.load("examples/retail-orders.json");
  folder = await mkdtemp(join(tmpdir(), "rehearse-serve-report-"));
  server = await serve(agent, { port: 0, rows: 6, freezeDir: folder, token: TOKEN });
});
afterAll(async () => {
  await server.close();
  await rm(folder, { recursive: true, force: true });
});

/** The row ids the page embeds for its conversation list. */
function listedIds(html: string): string[] {
  const found = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  return (JSON.parse(found?.[1] as string) as { rows: { id: string }[] }).rows.map((r) => r.id);
}

describe("GET /report on rehearse serve", () => {
  it("shows the episodes held for the next freeze, behind the token, and takes none of them", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const played: string[] = [];
    for (let seed = 0; seed < 3; seed++) {
      const client = new EnvClient(server.wsUrl, { token: TOKEN });
      await rollout(client, new OfflineAgent().start(agent, seed), { seed });
      await client.close();
    }
    expect((await fetch(`${server.url}/report`)).status).toBe(401);
    const response = await fetch(`${server.url}/report`, { headers: auth });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain("episodes held for freeze: 3 conversations");
    expect(html).toMatch(
      /<td class="pair" data-a="tool" data-b="rule" data-planned="\d+" data-touched="\d+"/,
    );
    played.push(...listedIds(html));
    expect(played).toHaveLength(3);
    // The page is kept until an episode finishes.
    expect(await (await fetch(`${server.url}/report`, { headers: auth })).text()).toBe(html);
    const fourth = new EnvClient(server.wsUrl, { token: TOKEN });
    await rollout(fourth, new OfflineAgent().start(agent, 3), { seed: 3 });
    await fourth.close();
    const more = await (await fetch(`${server.url}/report`, { headers: auth })).text();
    expect(listedIds(more)).toEqual([...played, ...listedIds(more).slice(3)]);
    expect(listedIds(more)).toHaveLength(4);

    // Fewer asked for: the page says how many of how many it lists.
    const one = await (
      await fetch(`${server.url}/report?conversations=1`, { headers: auth })
    ).text();
    expect(listedIds(one)).toHaveLength(1);
    expect(one).toMatch(
      /Listing (the first 1 of the \d+|all 1) conversations? that did not pass .*The figures above count all 4\./,
    );
    const bad = await fetch(`${server.url}/report?conversations=many`, { headers: auth });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: 'conversations: expected a whole number of conversations to list, or all, not "many"',
    });
    expect(
      listedIds(
        await (await fetch(`${server.url}/report?conversations=all`, { headers: auth })).text(),
      ),
    ).toHaveLength(4);

    const frozen = await fetch(`${server.url}/v1/freeze`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "held.jsonl" }),
    });
    expect(((await frozen.json()) as { rows: number }).rows).toBe(4);
    const after = await (await fetch(`${server.url}/report`, { headers: auth })).text();
    expect(listedIds(after)).toEqual([]);
  });

  it("is made off the main thread: steps keep being answered while the page of many episodes is made", async () => {
    const busy = await serve(agent, { port: 0, rows: 6, stepRate: 1e6, freezeDir: folder });
    try {
      await playEpisodes(agent, busy.wsUrl, 600);
      const client = new EnvClient(busy.wsUrl);
      await client.reset({ seed: 1 });
      let made = false;
      const page = fetch(`${busy.url}/report?conversations=all`).then(async (response) => {
        made = true;
        return response.text();
      });
      let answered = 0;
      while (!made) {
        const result = await client.step({ role: "assistant", content: "Could you tell me more?" });
        if (result.done) await client.reset({ seed: answered });
        answered++;
      }
      expect(await page).toContain("episodes held for freeze: 600 conversations");
      // Made on the main thread, the page of 600 episodes let 7 steps through in one run; here thousands.
      expect(answered).toBeGreaterThan(100);
      await client.close();
    } finally {
      await busy.close();
    }
  }, 120_000);
});
