import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, rehearse } from "../support/cli.ts";

const RETAIL = join(ROOT, "examples/retail-orders.json");

describe("rehearse report", () => {
  let dir: string;
  let data: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "rehearse-cli-report-"));
    data = join(dir, "data.jsonl");
    const made = await rehearse(
      "simulate",
      "--spec",
      RETAIL,
      "--rows",
      "20",
      "--seed",
      "3",
      "--out",
      data,
    );
    expect(made.code, made.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes one self-contained page and says what it holds", async () => {
    const out = join(dir, "report.html");
    const run = await rehearse("report", data, "--out", out);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /^wrote {5}.*report\.html: 20 conversations, \d+ of \d+ planned pairs touched, \d+ KB\n$/,
    );
    const html = await readFile(out, "utf8");
    expect(html.startsWith("<!doctype html>")).toBe(true);
    // No file or address outside the page: the chart library is inlined.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
    expect(html).toContain("Chart.js v4.6.1");
    const again = join(dir, "again.html");
    const json = await rehearse("report", data, "--out", again, "--json");
    expect(json.code).toBe(0);
    const written = JSON.parse(json.stdout);
    expect(written).toMatchObject({ path: again, rows: 20, bytes: (await stat(again)).size });
    // Same dataset, same page, byte for byte.
    expect(await readFile(again, "utf8")).toBe(html);
    expect(written.listed).toBe(20);
    const fewer = await rehearse(
      "report",
      data,
      "--out",
      join(dir, "few.html"),
      "--conversations",
      "5",
    );
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(fewer.stdout).toMatch(/: 20 conversations \(5 listed\), /);
    const bad = await rehearse(
      "report",
      data,
      "--out",
      join(dir, "bad.html"),
      "--conversations",
      "some",
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /option '--conversations <n>' argument 'some' is invalid\. expected a whole number of conversations to list, or all/,
    );
  });

  it("prints its help with an example", async () => {
    const help = await rehearse("report", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: rehearse report [options] <data>");
    expect(help.stdout).toContain("rehearse report data.jsonl --out report.html");
  });

  it("refuses a bad flag, a missing --out and an output that is its input, with exit code 2", async () => {
    const bad = await rehearse("report", data, "--out", join(dir, "x.html"), "--colour");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--colour'/);
    const noOut = await rehearse("report", data);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--out <file>/);
    const over = await rehearse("report", data, "--out", data);
    expect(over.code).toBe(2);
    // The flag as typed, not the library's option name.
    expect(over.stderr).toMatch(/✖ --out: .*data\.jsonl is read by this command/);
    expect(await readFile(data, "utf8")).toContain('"id":"row_');
    const missing = await rehearse("report", join(dir, "none.jsonl"), "--out", join(dir, "y.html"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /none\.jsonl is invalid[\s\S]*cannot read the file: it does not exist/,
    );
  });
});
