import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { Agent, Dataset, PairwiseCounter } from "../../env/index.ts";
import { renderReport } from "../../exporters/index.ts";
import { pairHeatmap } from "../../exporters/report/coverage.ts";
import { statusOf } from "../../exporters/report/figures.ts";
import { scriptJson } from "../../exporters/report/html.ts";
import { reportModel } from "../../exporters/report/index.ts";
import type { Row } from "../../spec/index.ts";
import { ROOT } from "../support/cli.ts";
import { gradedRows } from "./rows.ts";

const SPEC = "examples/retail-orders.json";

/** The JSON the page embeds, read back as the page's script reads it. */
function embedded(html: string): { rows: { id: string; messages: { content: unknown }[] }[] } {
  const found = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html);
  return JSON.parse(found?.[1] as string);
}

describe("the report's pairwise heatmap", () => {
  it("counts the planned pairs as the engine's counter does, and rows off the spec's grid apart", async () => {
    const spec = JSON.parse(await readFile(`${ROOT}/${SPEC}`, "utf8"));
    spec.axes.forbid = [{ world: "record_missing", condition: "timeout" }];
    const agent = Agent.from(spec);
    const rows = await gradedRows(SPEC);
    const stray = structuredClone(rows[0] as Row);
    stray.situation.axes.tool = "no_such_tool";
    const heatmap = pairHeatmap(agent, [...rows, stray]);
    expect(heatmap.offGrid).toBe(1);
    expect(heatmap.pairs).toHaveLength(15);
    const planned = heatmap.pairs.reduce((n, p) => n + p.planned, 0);
    expect(planned).toBe(new PairwiseCounter(agent).result().pairs_planned);
    // The forbidden pair is drawn, with the rows that hold it, but neither planned nor touched.
    const worldCondition = heatmap.pairs.find((p) => p.a === "world" && p.b === "condition");
    const x = worldCondition?.valuesA.indexOf("record_missing") as number;
    const y = worldCondition?.valuesB.indexOf("timeout") as number;
    const held = rows.filter(
      (r) =>
        r.situation.axes.world === "record_missing" && r.situation.axes.condition === "timeout",
    ).length;
    expect(worldCondition?.cells[x]?.[y]).toEqual({ planned: false, rows: held });
    expect(worldCondition?.planned).toBe(8);
    const touched = new Set(
      rows
        .filter(
          (r) =>
            !(
              r.situation.axes.world === "record_missing" &&
              r.situation.axes.condition === "timeout"
            ),
        )
        .map((r) => `${r.situation.axes.world}|${r.situation.axes.condition}`),
    ).size;
    expect(worldCondition?.touched).toBe(touched);
    const toolRule = heatmap.pairs.find((p) => p.a === "tool" && p.b === "rule");
    expect(toolRule?.cells.flat().reduce((n, c) => n + c.rows, 0)).toBe(rows.length);
  });
});

describe("the report page", () => {
  it("embeds any row text as JSON that no text can break out of", () => {
    const text = "</script><!-- <script>alert(1)</script> & \u2028";
    const json = scriptJson({ text });
    expect(json).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(json)).toEqual({ text });
  });

  it("renders rows with no sidecar: the conversations and grades, and says coverage is not known", async () => {
    const rows = await gradedRows(SPEC, 12, 1);
    (rows[0] as Row).messages.push({ role: "user", content: "</script><b>bold</b>" });
    const html = await renderReport(new Dataset({ rows, meta: null }), { title: "<rows>" });
    expect(html).toContain("<title>rehearse report: &lt;rows&gt;</title>");
    expect(html).toContain("No sidecar (.meta.json) came with these rows");
    expect(html).not.toContain("<b>bold</b>");
    const data = embedded(html);
    expect(data.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(data.rows[0]?.messages.at(-1)?.content).toBe("</script><b>bold</b>");
  });
});

describe("the report's conversation list", () => {
  it("lists at most the conversations asked for, the rows that did not pass first, and counts every row in the figures", async () => {
    const rows = await gradedRows(SPEC, 24, 3);
    const data = new Dataset({ rows, meta: null });
    const whole = await reportModel(data, { conversations: Number.POSITIVE_INFINITY });
    expect(whole.listing.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id));
    const notPassing = rows.filter((r) => statusOf(r) !== "pass").map((r) => r.id);
    const passing = rows.filter((r) => statusOf(r) === "pass").map((r) => r.id);
    expect(notPassing.length).toBeGreaterThan(3);
    expect(passing.length).toBeGreaterThan(3);

    // Fewer than the rows that did not pass: the first of them, in the dataset's order.
    const few = await reportModel(data, { conversations: 3 });
    expect(few.listing.rows.map((r) => r.id)).toEqual(notPassing.slice(0, 3));
    // More: every row that did not pass, then the first passing ones, shown in the dataset's order.
    const limit = notPassing.length + 2;
    const more = await reportModel(data, { conversations: limit });
    const chosen = new Set([...notPassing, ...passing.slice(0, 2)]);
    expect(more.listing.rows.map((r) => r.id)).toEqual(
      rows.map((r) => r.id).filter((id) => chosen.has(id)),
    );
    for (const model of [few, more])
      expect({ ...model, listing: null }).toEqual({ ...whole, listing: null });
    expect(more.listing).toMatchObject({ total: rows.length, limit });

    const html = await renderReport(data, { conversations: 3 });
    expect(embedded(html).rows).toHaveLength(3);
    expect(html).toContain(`dataset in memory: ${rows.length} conversations`);
    expect(html).toContain(
      `Listing the first 3 of the ${notPassing.length} conversations that did not pass (failing, ungraded, simulator fault), in the dataset's order, and none of the ${passing.length} that passed. The figures above count all ${rows.length}.`,
    );
    expect(await renderReport(data, { conversations: limit })).toContain(
      `Listing all ${notPassing.length} conversations that did not pass (failing, ungraded, simulator fault) and the first 2 of the ${passing.length} that passed, in the dataset's order.`,
    );
    expect(html).toContain(
      '<span id="shown-count">0</span> of the <span id="total-count">0</span> conversations listed match.',
    );
    expect(await renderReport(data)).not.toContain('id="listing-note"');
    expect(embedded(await renderReport(data, { conversations: 0 })).rows).toEqual([]);
  });

  it("refuses a count of conversations that is not a whole number at least 0", async () => {
    const data = new Dataset({ rows: await gradedRows(SPEC), meta: null });
    for (const conversations of [-1, 1.5, Number.NaN])
      await expect(renderReport(data, { conversations })).rejects.toThrow(
        /conversations: expected a whole number of conversations to list, at least 0/,
      );
    await expect(renderReport(data, "a title" as never)).rejects.toThrow(
      /report options is invalid.*\n.*expected \{title\?, conversations\?\}, not "a title"/,
    );
  });
});
