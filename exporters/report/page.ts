import type { Degraded, GradeReport, Quality } from "../../spec/index.ts";
import { AXIS_NAMES } from "../../spec/index.ts";
import { CLIENT_SCRIPT } from "./client.ts";
import type { PairHeatmap } from "./coverage.ts";
import type { ValuePassRate } from "./figures.ts";
import { escapeHtml, percent, scriptJson } from "./html.ts";
import type { Listing } from "./listing.ts";
import {
  alertsSection,
  conversationsSection,
  coverageSection,
  gradeSection,
  passSection,
  qualitySection,
} from "./sections.ts";

/** Everything the page shows, worked out from a dataset. */
export interface ReportModel {
  title: string;
  heatmap: PairHeatmap | null;
  passByValue: Record<string, ValuePassRate[]>;
  grade: GradeReport;
  quality: Quality | null;
  degraded: Degraded;
  warnings: string[];
  /** The conversations the page lists, of every row counted. */
  listing: Listing;
}

const STYLE = `
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1rem 2rem;color:#111827}
h1{margin-bottom:.2rem}h2{border-bottom:2px solid #e5e7eb;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}th,td{border:1px solid #d1d5db;padding:.25rem .5rem;text-align:left;vertical-align:top}
.heatmap td{text-align:center;min-width:5.5rem}.heatmap td.self{background:#f9fafb;color:#9ca3af}
.values td{text-align:center;min-width:2rem}.values td.touched{background:#bbf7d0}.values td.missed{background:#fecaca}.values td.unplanned{background:#e5e7eb;color:#6b7280}
.alert{background:#fef3c7;border-left:4px solid #d97706;padding:.5rem 1rem}.ok{color:#166534}
.note{color:#4b5563}.chart{position:relative;height:220px;max-width:560px}
.axes{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:1rem}.axis{min-width:0;overflow-x:auto}.pass-table{font-size:12px}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;margin:.5rem 0}
#conversations{padding-left:1.5rem}.conversation summary{cursor:pointer;padding:.2rem 0}
.conversation .badge{display:inline-block;min-width:5.5rem;font-weight:600}.conversation .id{font-family:monospace;margin-right:.75rem}.conversation .coords{color:#4b5563}
.status-pass .badge{color:#15803d}.status-fail .badge{color:#b91c1c}.status-ungraded .badge,.status-sim_fault .badge{color:#92400e}
.body{border-left:3px solid #e5e7eb;margin:.3rem 0 1rem;padding-left:1rem}
.message{margin:.4rem 0}.message .role{font-weight:600;font-size:12px;text-transform:uppercase;color:#374151}
.message pre,pre{white-space:pre-wrap;word-break:break-word;background:#f9fafb;margin:.1rem 0;padding:.4rem}
.role-user pre{background:#eff6ff}.role-assistant pre{background:#f0fdf4}.role-tool pre{background:#faf5ff}`;

/** The whole page: figures rendered as HTML, the rows as JSON, Chart.js and the page's script inlined. */
export function renderPage(model: ReportModel, chartLibrary: string): string {
  const axisValues = Object.fromEntries(
    AXIS_NAMES.map((axis) => [axis, (model.passByValue[axis] ?? []).map((v) => v.value)]),
  );
  const data = {
    rows: model.listing.rows,
    passByValue: model.passByValue,
    failureClasses: model.grade.failure_classes,
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>rehearse report: ${escapeHtml(model.title)}</title><style>${STYLE}</style></head>
<body>
<h1>rehearse report</h1>
<p id="summary">${escapeHtml(model.title)}: ${model.listing.total} conversations, pass rate ${percent(model.grade.pass_rate)}, ${model.grade.unsure} unsure.</p>
${alertsSection(model.degraded, model.warnings)}
${coverageSection(model.heatmap, AXIS_NAMES)}
${gradeSection(model.grade)}
${passSection(model.passByValue)}
${qualitySection(model.quality)}
${conversationsSection(axisValues, model.listing)}
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${chartLibrary.replaceAll("</script", "<\\/script")}</script>
<script>${CLIENT_SCRIPT}</script>
</body></html>
`;
}
