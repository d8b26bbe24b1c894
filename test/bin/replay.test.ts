import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Row } from "../../spec/index.ts";
import { ROOT, rehearse } from "../support/cli.ts";
import { completion, OpenAICompatibleServer } from "../support/openai-compatible-server.ts";

let dir: string;
let data: string;
let lines: string[];
let server: OpenAICompatibleServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "rehearse-cli-replay-"));
  data = join(dir, "data.jsonl");
  const run = await rehearse(
    "simulate",
    "--spec",
    join(ROOT, "examples/retail-orders.json"),
    "--rows",
    "6",
    "--seed",
    "9",
    "--out",
    data,
  );
  expect(run.code).toBe(0);
  lines = (await readFile(data, "utf8")).split("\n").filter((line) => line !== "");
  server = await OpenAICompatibleServer.start();
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const idOf = (line: string | undefined) => (JSON.parse(line as string) as Row).id;

describe("rehearse replay", () => {
  it("replays a row by id or line number and says it reproduced byte for byte", async () => {
    const id = idOf(lines[3]);
    const run = await rehearse("replay", data, "--row", id);
    expect(run).toMatchObject({ code: 0, stderr: "" });
    expect(run.stdout).toContain(`row       ${id} (situation sit_`);
    expect(run.stdout).toContain("result    reproduced byte for byte");
    expect((await rehearse("replay", data, "--row", "4")).stdout).toBe(run.stdout);
  });

  it("prints the replay as JSON with --json", async () => {
    const run = await rehearse("replay", data, "--row", "2", "--json");
    expect(run.code).toBe(0);
    const replay = JSON.parse(run.stdout);
    expect(replay).toMatchObject({ row: idOf(lines[1]), mode: "reproduce", reproduced: true });
    expect(JSON.stringify(replay.replayed)).toBe(lines[1]);
  });

  it("exits 1 and shows the first differing message of a row that does not reproduce", async () => {
    const row = JSON.parse(lines[0] as string) as Row;
    const at = row.episode.history_turns + 1;
    (row.messages[at] as { content: string }).content = "Something else entirely.";
    const tampered = join(dir, "tampered.jsonl");
    await writeFile(tampered, `${JSON.stringify(row)}\n`);
    await writeFile(`${tampered}.meta.json`, await readFile(`${data}.meta.json`));
    const run = await rehearse("replay", tampered, "--row", row.id);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `result    NOT reproduced: first difference at messages[${at}].content (message ${at})`,
    );
    expect(run.stdout).toContain("  was     user: Something else entirely.");
  });

  it("shows the two conversations side by side with --agent", async () => {
    server.otherwise(completion({ content: "I cannot look that up right now." }));
    const run = await rehearse("replay", data, "--row", "1", "--agent", `test-model@${server.url}`);
    expect(run.code).toBe(0);
    const shown = run.stdout.split("\n");
    expect(shown[1]).toMatch(/^agent {5}offline -> test-model@http/);
    const header = shown.find((line) => line.includes("original (offline)")) as string;
    expect(header).toMatch(/original \(offline\) +\| replayed \(test-model@/);
    expect(
      shown.some((line) => /^> assistant: .*\| assistant: I cannot look that up/.test(line)),
    ).toBe(true);
    for (const line of shown) expect(line.length).toBeLessThanOrEqual(100);
  });

  it("refuses a bad flag, a missing --row and an unknown row with exit 2", async () => {
    const flag = await rehearse("replay", data, "--row", "1", "--bogus");
    expect(flag).toMatchObject({ code: 2, stdout: "" });
    expect(flag.stderr).toBe("error: unknown option '--bogus'\n");
    const missing = await rehearse("replay", data);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--row <id>' not specified");
    const unknown = await rehearse("replay", data, "--row", "row_ffff");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /--row: no row row_ffff in .*data\.jsonl: expected the id of one of its 6 rows; the closest: row_/,
    );
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    const past = await rehearse("replay", data, "--row", "7");
    expect(past.code).toBe(2);
    expect(past.stderr).toContain("expected a row number from 1 to 6");
    const bare = join(dir, "bare.jsonl");
    await writeFile(bare, `${lines[0]}\n`);
    const sidecarless = await rehearse("replay", bare, "--row", "1");
    expect(sidecarless.code).toBe(2);
    expect(sidecarless.stderr).toMatch(/no sidecar .*bare\.jsonl\.meta\.json/);
  });
});
