import type { Degraded, GradeReport, Quality } from "../../spec/index.ts";
import type { AxisPair, PairHeatmap } from "./coverage.ts";
import type { ValuePassRate } from "./figures.ts";
import { escapeHtml as esc, percent } from "./html.ts";
import type { Listing } from "./listing.ts";

/** A background colour for a share touched: red at none, green at all. */
function shade(fraction: number | null): string {
  return fraction === null ? "#e5e7eb" : `hsl(${Math.round(fraction * 120)} 65% 78%)`;
}

/** A two-column table of names and values. */
function facts(id: string, entries: readonly [string, string][]): string {
  const body = entries
    .map(([name, value]) => `<tr><th scope="row">${esc(name)}</th><td>${esc(value)}</td></tr>`)
    .join("");
  return `<table class="facts" id="${id}">${body}</table>`;
}

/** Substitutions and warnings, at the top of the page where they cannot be missed. */
export function alertsSection(degraded: Degraded, warnings: readonly string[]): string {
  const kinds = Object.entries(degraded);
  const substitutions =
    kinds.length === 0
      ? `<p id="degraded" class="ok">degraded: none (no role shared a model, no writer or role fell back)</p>`
      : `<div id="degraded" class="alert"><h3>degraded</h3>${kinds
          .map(
            ([kind, detail]) =>
              `<h4>${esc(kind)}</h4><pre>${esc(JSON.stringify(detail, null, 2))}</pre>`,
          )
          .join("")}</div>`;
  const listed =
    warnings.length === 0
      ? `<p id="warnings" class="ok">warnings: none</p>`
      : `<div class="alert"><h3>warnings (${warnings.length})</h3><ul id="warnings">${warnings
          .map((w) => `<li>${esc(w)}</li>`)
          .join("")}</ul></div>`;
  return `<section id="alerts"><h2>Degraded and warnings</h2>${substitutions}${listed}</section>`;
}

function pairDetail(pair: AxisPair): string {
  const head = pair.valuesB.map((v) => `<th scope="col">${esc(v)}</th>`).join("");
  const body = pair.cells
    .map((cells, x) => {
      const tds = cells
        .map((cell) => {
          const kind = !cell.planned ? "unplanned" : cell.rows > 0 ? "touched" : "missed";
          return `<td class="${kind}" title="${kind}">${cell.planned ? cell.rows : "·"}</td>`;
        })
        .join("");
      return `<tr><th scope="row">${esc(pair.valuesA[x] as string)}</th>${tds}</tr>`;
    })
    .join("");
  return `<details class="pair-detail" data-pair="${pair.a}×${pair.b}"><summary>${pair.a} × ${pair.b}: ${pair.touched} of ${pair.planned} planned pairs touched</summary><table class="values"><tr><th>${pair.a} \\ ${pair.b}</th>${head}</tr>${body}</table></details>`;
}

/** The axis × axis heatmap of planned and touched value pairs, and each pair's value matrix. */
export function coverageSection(heatmap: PairHeatmap | null, axes: readonly string[]): string {
  if (!heatmap)
    return `<section id="coverage"><h2>Pairwise coverage</h2><p class="alert">No sidecar (.meta.json) came with these rows, so the spec and its planned pairs are not known.</p></section>`;
  const pairOf = (a: string, b: string) =>
    heatmap.pairs.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
  const header = axes.map((axis) => `<th scope="col">${axis}</th>`).join("");
  const body = axes
    .map((a) => {
      const cells = axes
        .map((b) => {
          const pair = a === b ? undefined : pairOf(a, b);
          if (!pair) return `<td class="self">—</td>`;
          const fraction = pair.planned === 0 ? null : pair.touched / pair.planned;
          return `<td class="pair" data-a="${a}" data-b="${b}" data-planned="${pair.planned}" data-touched="${pair.touched}" style="background:${shade(fraction)}">${pair.touched}/${pair.planned}<br><small>${percent(fraction)}</small></td>`;
        })
        .join("");
      return `<tr><th scope="row">${a}</th>${cells}</tr>`;
    })
    .join("");
  const planned = heatmap.pairs.reduce((n, p) => n + p.planned, 0);
  const touched = heatmap.pairs.reduce((n, p) => n + p.touched, 0);
  return `<section id="coverage"><h2>Pairwise coverage</h2>
<p id="coverage-total">${touched} of ${planned} planned value pairs touched (${percent(planned === 0 ? null : touched / planned)}). Each cell: the value pairs of two axes the rows touched / those the grid plans (forbidden and unreachable pairs are not planned).</p>
<table id="heatmap" class="heatmap"><tr><th></th>${header}</tr>${body}</table>
<h3>Value pairs</h3><p class="note">Rows per value pair; red: planned and never touched, grey: not planned.</p>
${heatmap.pairs.map(pairDetail).join("\n")}</section>`;
}

/** The grade report: pass rate, pass^k, unsure, judges, agreement, failure classes and conduct. */
export function gradeSection(report: GradeReport): string {
  const passK = Object.entries(report.pass_hat_k)
    .map(([k, v]) => `pass^${k} ${percent(v)} (${report.pass_hat_k_situations[k]} situations)`)
    .join(", ");
  const agreement = report.agreement
    ? `${percent(report.agreement.agreement)} over ${report.agreement.n} labelled rows, kappa ${report.agreement.kappa?.toFixed(2) ?? `– (${report.agreement.kappa_note ?? "undefined"})`}`
    : "no labels: not measured";
  const table = facts("grade-summary", [
    ["rows", String(report.rows)],
    ["graded", String(report.graded)],
    ["ungraded", String(report.ungraded)],
    ["left out for simulator faults", String(report.sim_faults)],
    ["pass rate", percent(report.pass_rate)],
    ["pass^k", passK || "–"],
    ["unsure", String(report.unsure)],
    ["judges", report.judges.join(", ") || "none"],
    ["judge agreement", agreement],
  ]);
  const counts = (id: string, title: string, record: Record<string, number>) => {
    const entries = Object.entries(record).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
    if (entries.length === 0) return `<h3>${title}</h3><p id="${id}">none</p>`;
    return `<h3>${title}</h3><table id="${id}" class="counts">${entries
      .map(([name, n]) => `<tr><th scope="row">${esc(name)}</th><td>${n}</td></tr>`)
      .join("")}</table>`;
  };
  const errors =
    report.errors.length === 0
      ? ""
      : `<h3>Grading errors</h3><ul>${report.errors.map((e) => `<li>${esc(e.row)}: ${esc(e.error)}</li>`).join("")}</ul>`;
  return `<section id="grades"><h2>Grades</h2>${table}
<div class="chart"><canvas id="failure-chart" aria-label="failure classes"></canvas></div>
${counts("failure-classes", "Failure classes", report.failure_classes)}
${counts("conduct", "Conduct findings", report.conduct)}${errors}</section>`;
}

/** Pass rate by axis value: a chart and a table per axis. */
export function passSection(byAxis: Record<string, ValuePassRate[]>): string {
  const axes = Object.entries(byAxis)
    .map(
      ([axis, values]) => `<div class="axis"><h3>${axis}</h3>
<div class="chart"><canvas class="pass-chart" data-axis="${axis}" aria-label="pass rate by ${axis}"></canvas></div>
<table class="pass-table" data-axis="${axis}"><tr><th>${axis}</th><th>rows</th><th>graded</th><th>passed</th><th>pass rate</th></tr>${values
        .map(
          (v) =>
            `<tr><th scope="row">${esc(v.value)}</th><td>${v.rows}</td><td>${v.graded}</td><td>${v.passed}</td><td>${percent(v.rate)}</td></tr>`,
        )
        .join("")}</table></div>`,
    )
    .join("\n");
  return `<section id="pass-rates"><h2>Pass rate by axis value</h2><p class="note">Over graded rows with no simulator fault.</p><div class="axes">${axes}</div></section>`;
}

/** The run's measures of its own data, from the sidecar. */
export function qualitySection(quality: Quality | null): string {
  if (!quality)
    return `<section id="quality"><h2>Data quality</h2><p>Not recorded: these rows came without a sidecar holding data.quality.</p></section>`;
  const { rows, tools_never_called, ...figures } = quality;
  const entries: [string, string][] = Object.entries(figures).map(([name, f]) => [
    name.replaceAll("_", " "),
    `${f.count} of ${f.of} (${percent(f.fraction)})`,
  ]);
  return `<section id="quality"><h2>Data quality</h2>${facts("quality-figures", [
    ["rows measured", String(rows)],
    ...entries,
    ["tools never called", tools_never_called.join(", ") || "none"],
  ])}</section>`;
}

/** The filterable conversation list: filters here, items drawn by the page's script. */
export function conversationsSection(axes: Record<string, string[]>, listing: Listing): string {
  const selects = Object.entries(axes)
    .map(
      ([axis, values]) =>
        `<label>${axis} <select class="axis-filter" data-axis="${axis}"><option value="">any</option>${values
          .map((v) => `<option value="${esc(v)}">${esc(v)}</option>`)
          .join("")}</select></label>`,
    )
    .join("");
  const held =
    listing.rows.length < listing.total
      ? `<p class="alert" id="listing-note">${listingNote(listing)} The figures above count all ${listing.total}. To list more: <code>rehearse report --conversations N</code> (or <code>all</code>), or <code>GET /report?conversations=N</code> on a server.</p>`
      : "";
  return `<section id="conversations-section"><h2>Conversations</h2>${held}
<div class="filters">${selects}
<label>grade <select id="status-filter"><option value="">any</option><option value="pass">pass</option><option value="fail">fail</option><option value="ungraded">ungraded</option><option value="sim_fault">simulator fault</option></select></label>
<label>text <input id="text-filter" type="search" placeholder="words in the messages, id, reason"></label></div>
<p><span id="shown-count">0</span> of the <span id="total-count">0</span> conversations listed match.</p>
<ol id="conversations"></ol><button id="more" type="button" hidden>show more</button></section>`;
}

/** Which conversations a capped page lists, in the counts of this dataset. */
function listingNote(listing: Listing): string {
  const listed = listing.rows.length;
  const passing = listing.total - listing.notPassing;
  const notPassing = `${listing.notPassing} conversation${listing.notPassing === 1 ? "" : "s"} that did not pass (failing, ungraded, simulator fault)`;
  if (listed <= listing.notPassing)
    return `Listing the first ${listed} of the ${notPassing}, in the dataset's order, and none of the ${passing} that passed.`;
  return `Listing all ${notPassing} and the first ${listed - listing.notPassing} of the ${passing} that passed, in the dataset's order.`;
}
