import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dataset, PASS_THRESHOLD, simulate } from "../../env/index.ts";
import grader from "../../examples/grader.ts";
import { writeReport } from "../../exporters/index.ts";
import { AXIS_NAMES, type Row } from "../../spec/index.ts";
import { ROOT } from "../support/cli.ts";

/** Debian's chromium: .ci/run installs it when it is absent. */
const CHROMIUM = "/usr/bin/chromium";
const SCREENSHOT = join(ROOT, "test-output/report.png");
const HOSTILE = "</script><script>window.pwned = 1</script><!-- & </style>";

let folder: string;
let data: Dataset;
let rows: Row[];
let browser: Browser;
let page: Page;
const requests: string[] = [];

const statusOf = (row: Row) =>
  row.sim_faults.length > 0
    ? "sim_fault"
    : row.reward === undefined
      ? "ungraded"
      : row.reward >= PASS_THRESHOLD
        ? "pass"
        : "fail";

beforeAll(async () => {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBe(
    true,
  );
  folder = await mkdtemp(join(tmpdir(), "rehearse-report-"));
  data = await simulate(join(ROOT, "examples/retail-orders.json"), { rows: 48, seed: 5 });
  await data.grade({ grader, judge: "readme-grader", version: "1" });
  rows = await data.rows();
  // Arbitrary text in a row must stay text: it may not close the data's script tag.
  const hostile = rows[3] as Row;
  hostile.messages = [...hostile.messages, { role: "user", content: HOSTILE }];
  const out = join(folder, "report.html");
  await writeReport(data, out);
  browser = await chromium.launch({ executablePath: CHROMIUM, chromiumSandbox: false });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  // The page must open with no network: anything but the file itself is refused and recorded.
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:")) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(out).href);
  await mkdir(join(ROOT, "test-output"), { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe("the report page in headless chromium", () => {
  it("draws the heatmap with the value pairs the rows touched, per pair of axes", async () => {
    const cells = await page.$$eval("#heatmap td.pair", (tds) =>
      tds.map((td) => ({
        a: td.getAttribute("data-a"),
        b: td.getAttribute("data-b"),
        planned: Number(td.getAttribute("data-planned")),
        touched: Number(td.getAttribute("data-touched")),
        text: td.textContent,
      })),
    );
    // Six axes: fifteen pairs, each drawn on both sides of the diagonal.
    expect(cells).toHaveLength(30);
    let touchedTotal = 0;
    let plannedTotal = 0;
    for (let i = 0; i < AXIS_NAMES.length; i++) {
      for (let j = i + 1; j < AXIS_NAMES.length; j++) {
        const a = AXIS_NAMES[i] as string;
        const b = AXIS_NAMES[j] as string;
        const touched = new Set(
          rows.map((r) =>
            JSON.stringify([r.situation.axes[a as "tool"], r.situation.axes[b as "tool"]]),
          ),
        ).size;
        const cell = cells.find((c) => c.a === a && c.b === b);
        const mirror = cells.find((c) => c.a === b && c.b === a);
        expect(cell?.touched, `${a} × ${b}`).toBe(touched);
        expect(mirror).toEqual({ ...cell, a: b, b: a });
        expect(cell?.text).toContain(`${touched}/${cell?.planned}`);
        expect(cell?.planned).toBeGreaterThanOrEqual(touched);
        touchedTotal += touched;
        plannedTotal += cell?.planned ?? 0;
      }
    }
    // The run counted its own coverage as it wrote the rows: the page agrees with it.
    expect(touchedTotal).toBe(data.coverage?.pairwise.pairs_covered);
    expect(plannedTotal).toBe(data.coverage?.pairwise.pairs_planned);
    await expect(page.textContent("#coverage-total")).resolves.toContain(
      `${touchedTotal} of ${plannedTotal} planned value pairs touched`,
    );
  });

  it("lists every conversation, and the filters narrow it to the rows that match", async () => {
    const listed = () => page.$$eval("#conversations > li", (items) => items.length);
    const shown = async () => Number(await page.textContent("#shown-count"));
    expect(await listed()).toBe(rows.length);
    expect(await shown()).toBe(rows.length);
    expect(Number(await page.textContent("#total-count"))).toBe(rows.length);

    const failing = rows.filter((r) => statusOf(r) === "fail").length;
    expect(failing).toBeGreaterThan(0);
    await page.selectOption("#status-filter", "fail");
    expect(await listed()).toBe(failing);
    expect(await shown()).toBe(failing);

    const tool = (rows[0] as Row).situation.axes.tool;
    await page.selectOption('select.axis-filter[data-axis="tool"]', tool);
    const both = rows.filter((r) => statusOf(r) === "fail" && r.situation.axes.tool === tool);
    expect(await listed()).toBe(both.length);

    await page.selectOption("#status-filter", "");
    await page.selectOption('select.axis-filter[data-axis="tool"]', "");
    await page.fill("#text-filter", "window.pwned");
    expect(await listed()).toBe(1);
  });

  it("shows a conversation's situation, checks and messages when clicked, row text as text", async () => {
    const hostile = rows[3] as Row;
    await page.click(`#conversations > li[data-id="${hostile.id}"] summary`);
    const body = page.locator(`#conversations > li[data-id="${hostile.id}"] .body`);
    // The page fills a conversation's body when it opens: wait for it before counting.
    await body
      .locator(".message")
      .nth(hostile.messages.length - 1)
      .waitFor();
    await expect(body.locator(".message").count()).resolves.toBe(hostile.messages.length);
    await expect(body.locator(".situation").textContent()).resolves.toContain(
      `tool = ${hostile.situation.axes.tool}`,
    );
    await expect(body.locator(".checks").count()).resolves.toBe(2);
    const last = await body.locator(".message .content").last().textContent();
    expect(last).toBe(HOSTILE);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBe(
      undefined,
    );
  });

  it("draws the charts with the inlined library, opens with no network, and is screenshotted", async () => {
    await page.fill("#text-filter", "");
    const charts = await page.$$eval("canvas.pass-chart", (canvases) =>
      canvases.map(
        (c) =>
          (globalThis as unknown as { Chart: { getChart(c: unknown): unknown } }).Chart.getChart(
            c,
          ) !== undefined,
      ),
    );
    expect(charts).toEqual(AXIS_NAMES.map(() => true));
    expect(requests).toEqual([]);
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect((await stat(SCREENSHOT)).size).toBeGreaterThan(10_000);
  });
});
