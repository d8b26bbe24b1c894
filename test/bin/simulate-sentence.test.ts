import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../env/index.ts";
import type { DatasetMeta } from "../../spec/index.ts";
import { rehearse } from "../support/cli.ts";

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "rehearse-sentence-"));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

const SENTENCE = "a personal finance assistant that confirms before it moves money";

describe("rehearse simulate with a sentence (the cold start)", () => {
  it("drafts the spec offline, saves it, runs 64 rows and records the drafter in degraded", async () => {
    const out = join(folder, "data.jsonl");
    const saved = join(folder, "drafted.json");
    const run = await rehearse(
      "simulate",
      SENTENCE,
      "--rows",
      "64",
      "--out",
      out,
      "--save-spec",
      saved,
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(
      "drafted   offline from the personal finance and payments template (words: finance, money); no model drafter was given",
    );
    expect(run.stderr).toContain(
      'behaviour "confirms before it moves money" → rule confirm_move_money: Confirm before you move money. (transfer_funds, pay_bill)',
    );
    const meta = JSON.parse(await readFile(`${out}.meta.json`, "utf8")) as DatasetMeta;
    expect(meta.rows).toBe(64);
    expect(meta.degraded.generator_fallback).toEqual({
      rows: 0,
      last_error: "no model drafter was given",
      drafter: {
        sentence: SENTENCE,
        template: "personal-finance",
        matched: ["finance", "money"],
        behaviour_rule: "confirm_move_money",
        reason: "no model drafter was given",
      },
    });
    expect(meta.warnings[0]).toMatch(
      /^the spec was drafted offline from the personal finance and payments template/,
    );
    const spec = JSON.parse(await readFile(saved, "utf8"));
    expect(spec).toEqual(meta.spec);
    expect(Agent.from(spec).hash).toBe(meta.spec_hash);
    // The saved spec reruns to the same rows.
    const again = join(folder, "again.jsonl");
    expect((await rehearse("simulate", "--spec", saved, "--rows", "64", "--out", again)).code).toBe(
      0,
    );
    expect(await readFile(again, "utf8")).toBe(await readFile(out, "utf8"));
    const q = meta.quality;
    expect(q?.situation_tool_exercised.fraction).toBeGreaterThanOrEqual(0.95);
    expect(q?.loops.fraction ?? 0).toBeLessThanOrEqual(0.01);
    expect(q?.sentence_arguments.fraction ?? 0).toBeLessThanOrEqual(0.005);
    expect(q?.confirmed_writes.fraction ?? 1).toBeGreaterThanOrEqual(0.95);
  });

  it("refuses a sentence no template matches, both a sentence and --spec, and --save-spec without a sentence", async () => {
    const none = await rehearse(
      "simulate",
      "a poetry tutor that rhymes",
      "--out",
      join(folder, "x.jsonl"),
    );
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /matches no domain the offline drafter knows \(retail orders; personal finance/,
    );
    const both = await rehearse(
      "simulate",
      SENTENCE,
      "--spec",
      "examples/retail-orders.json",
      "--out",
      join(folder, "y.jsonl"),
    );
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/expected exactly one of --spec <file> or a sentence/);
    const save = await rehearse(
      "simulate",
      "--spec",
      "examples/retail-orders.json",
      "--save-spec",
      join(folder, "s.json"),
      "--out",
      join(folder, "z.jsonl"),
    );
    expect(save.code).toBe(2);
    expect(save.stderr).toMatch(/--save-spec: saves a spec drafted from a sentence/);
  });
});
