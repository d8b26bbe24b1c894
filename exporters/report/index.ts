import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import {
  checkOutputPath,
  type Dataset,
  datasetPaths,
  gradeReport,
  InputError,
  writeFileAtomic,
} from "../../env/index.ts";
import { pairHeatmap } from "./coverage.ts";
import { factsOf, passByAxisValue, type RowFacts } from "./figures.ts";
import { ConversationListing, LISTED_BY_DEFAULT } from "./listing.ts";
import { type ReportModel, renderPage } from "./page.ts";

/** What {@link writeReport} wrote: the page, its size, its rows, the conversations listed and the pairs planned and touched. */
export interface WrittenReport {
  path: string;
  bytes: number;
  rows: number;
  listed: number;
  pairs: { planned: number; touched: number } | null;
}

/** How a report is made: its title, and how many conversations it lists (`Infinity` for all). */
export interface ReportOptions {
  /** The page's title; the file's name by default. */
  title?: string;
  /** The most conversations the page lists (2,000 by default); every row is counted in the figures. */
  conversations?: number;
}

/**
 * Works out everything the report page shows from a dataset (its rows, sidecar and grades), reading
 * the rows once as they stream: the figures are counted from each row's grade and coordinates, and
 * only the conversations listed are held whole, so a dataset of any size makes a page of bounded size.
 */
export async function reportModel(
  data: Dataset,
  options: ReportOptions = {},
): Promise<ReportModel> {
  // A title given as a string (the form before options) would be dropped without a word.
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new InputError("report options", [
      { path: "", message: `expected {title?, conversations?}, not ${JSON.stringify(options)}` },
    ]);
  const limit = listingLimit(options.conversations);
  const agent = data.agent();
  const facts: RowFacts[] = [];
  const listing = new ConversationListing(limit);
  for await (const row of data.stream()) {
    facts.push(factsOf(row));
    listing.add(row);
  }
  const heatmap = agent ? pairHeatmap(agent, facts) : null;
  const grade = gradeReport(facts);
  const offGrid =
    heatmap && heatmap.offGrid > 0
      ? [
          `${heatmap.offGrid} rows hold a situation value that is not on this spec's axes: they are left out of the coverage heatmap`,
        ]
      : [];
  return {
    title: options.title ?? (data.path ? basename(data.path) : "dataset in memory"),
    heatmap,
    passByValue: passByAxisValue(agent, facts),
    grade,
    quality: data.quality,
    degraded: data.degraded,
    warnings: [...data.warnings, ...grade.warnings, ...offGrid],
    listing: listing.result(),
  };
}

function listingLimit(conversations: number | undefined): number {
  if (conversations === undefined) return LISTED_BY_DEFAULT;
  if (
    conversations === Number.POSITIVE_INFINITY ||
    (Number.isSafeInteger(conversations) && conversations >= 0)
  )
    return conversations;
  throw new InputError("report options", [
    {
      path: "conversations",
      message: `expected a whole number of conversations to list, at least 0 (or Infinity for all), not ${conversations}`,
    },
  ]);
}

/** Chart.js's minified UMD build, read from the installed package, to inline into the page. */
export async function chartLibrary(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve("chart.js");
  return readFile(join(dirname(entry), "chart.umd.min.js"), "utf8");
}

/** The report page of a dataset as one self-contained HTML string (opens with no network). */
export async function renderReport(data: Dataset, options: ReportOptions = {}): Promise<string> {
  return renderPage(await reportModel(data, options), await chartLibrary());
}

/**
 * Writes the dataset's report, one self-contained HTML page, to `out` atomically: the pairwise
 * coverage heatmap, grades, pass rate by axis value, data quality, degraded and warnings, and a
 * filterable list of the conversations.
 */
export async function writeReport(
  data: Dataset,
  out: string,
  options: ReportOptions = {},
): Promise<WrittenReport> {
  const reads = data.path ? [data.path, datasetPaths(data.path).meta] : [];
  await checkOutputPath(out, { what: "report", field: "out", reads });
  const model = await reportModel(data, options);
  const html = renderPage(model, await chartLibrary());
  await writeFileAtomic(out, html);
  const pairs = model.heatmap
    ? {
        planned: model.heatmap.pairs.reduce((n, p) => n + p.planned, 0),
        touched: model.heatmap.pairs.reduce((n, p) => n + p.touched, 0),
      }
    : null;
  return {
    path: out,
    bytes: Buffer.byteLength(html),
    rows: model.listing.total,
    listed: model.listing.rows.length,
    pairs,
  };
}
