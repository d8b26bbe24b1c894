import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { checkOutputPath, type Dataset, datasetPaths, writeFileAtomic } from "../../env/index.ts";
import { pairHeatmap } from "./coverage.ts";
import { listedRow, passByAxisValue } from "./figures.ts";
import { type ReportModel, renderPage } from "./page.ts";

/** What {@link writeReport} wrote: the page, its size, its rows and the pairs planned and touched. */
export interface WrittenReport {
  path: string;
  bytes: number;
  rows: number;
  pairs: { planned: number; touched: number } | null;
}

/** Works out everything the report page shows from a dataset (its rows, sidecar and grades). */
export async function reportModel(data: Dataset, title?: string): Promise<ReportModel> {
  const rows = await data.rows();
  const agent = data.agent();
  const heatmap = agent ? pairHeatmap(agent, rows) : null;
  const grade = await data.report();
  const offGrid =
    heatmap && heatmap.offGrid > 0
      ? [
          `${heatmap.offGrid} rows hold a situation value that is not on this spec's axes: they are left out of the coverage heatmap`,
        ]
      : [];
  return {
    title: title ?? (data.path ? basename(data.path) : "dataset in memory"),
    heatmap,
    passByValue: passByAxisValue(agent, rows),
    grade,
    quality: data.quality,
    degraded: data.degraded,
    warnings: [...data.warnings, ...grade.warnings, ...offGrid],
    rows: rows.map(listedRow),
  };
}

/** Chart.js's minified UMD build, read from the installed package, to inline into the page. */
export async function chartLibrary(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve("chart.js");
  return readFile(join(dirname(entry), "chart.umd.min.js"), "utf8");
}

/** The report page of a dataset as one self-contained HTML string (opens with no network). */
export async function renderReport(data: Dataset, title?: string): Promise<string> {
  return renderPage(await reportModel(data, title), await chartLibrary());
}

/**
 * Writes the dataset's report, one self-contained HTML page, to `out` atomically: the pairwise
 * coverage heatmap, grades, pass rate by axis value, data quality, degraded and warnings, and a
 * filterable list of the conversations.
 */
export async function writeReport(data: Dataset, out: string): Promise<WrittenReport> {
  const reads = data.path ? [data.path, datasetPaths(data.path).meta] : [];
  await checkOutputPath(out, { what: "report", field: "out", reads });
  const model = await reportModel(data);
  const html = renderPage(model, await chartLibrary());
  await writeFileAtomic(out, html);
  const pairs = model.heatmap
    ? {
        planned: model.heatmap.pairs.reduce((n, p) => n + p.planned, 0),
        touched: model.heatmap.pairs.reduce((n, p) => n + p.touched, 0),
      }
    : null;
  return { path: out, bytes: Buffer.byteLength(html), rows: model.rows.length, pairs };
}
