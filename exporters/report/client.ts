/**
 * The page's own script, run in the browser: draws the charts with the inlined Chart.js and the
 * conversation list from the embedded JSON. Every piece of row text goes in through textContent,
 * never as HTML.
 */
export const CLIENT_SCRIPT = `(() => {
  "use strict";
  const model = JSON.parse(document.getElementById("report-data").textContent);
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };

  if (window.Chart) {
    Chart.defaults.animation = false;
    const failures = Object.entries(model.failureClasses).sort((a, b) => b[1] - a[1]);
    const failureCanvas = document.getElementById("failure-chart");
    if (failures.length === 0) failureCanvas.parentElement.hidden = true;
    else
      new Chart(failureCanvas, {
        type: "bar",
        data: { labels: failures.map((f) => f[0]), datasets: [{ label: "failing rows", data: failures.map((f) => f[1]), backgroundColor: "#dc2626" }] },
        options: { indexAxis: "y", maintainAspectRatio: false, plugins: { legend: { display: false } } },
      });
    for (const canvas of document.querySelectorAll("canvas.pass-chart")) {
      const values = model.passByValue[canvas.dataset.axis];
      new Chart(canvas, {
        type: "bar",
        data: {
          labels: values.map((v) => v.value),
          datasets: [{ label: "pass rate (%)", data: values.map((v) => (v.rate === null ? null : Math.round(v.rate * 1000) / 10)), backgroundColor: "#16a34a" }],
        },
        options: { maintainAspectRatio: false, scales: { y: { min: 0, max: 100 } }, plugins: { legend: { display: false } } },
      });
    }
  }

  const rows = model.rows;
  const contentText = (m) => (typeof m.content === "string" ? m.content : m.content == null ? "" : JSON.stringify(m.content));
  const haystacks = rows.map((r) =>
    [r.id, r.task_id, r.reason || "", r.failure_class || "", ...r.conduct.map((c) => c.check + " " + c.detail), ...r.messages.map(contentText)].join("\\n").toLowerCase(),
  );
  const list = document.getElementById("conversations");
  const more = document.getElementById("more");
  const axisFilters = [...document.querySelectorAll("select.axis-filter")];
  const statusFilter = document.getElementById("status-filter");
  const textFilter = document.getElementById("text-filter");
  document.getElementById("total-count").textContent = String(rows.length);
  const PAGE = 200;
  let limit = PAGE;
  let matching = [];

  const checks = (title, findings) => {
    const box = el("div", "checks");
    box.append(el("h4", "", title + " (" + findings.length + ")"));
    const ul = el("ul");
    for (const f of findings) ul.append(el("li", "", f.check + ": " + f.detail));
    if (findings.length > 0) box.append(ul);
    return box;
  };
  const body = (r) => {
    const box = el("div", "body");
    box.append(el("p", "situation", Object.entries(r.axes).map((e) => e[0] + " = " + e[1]).join(" · ")));
    const grade = ["reward " + (r.reward === null ? "none" : r.reward), "task " + r.task_id];
    if (r.failure_class) grade.push("failure class " + r.failure_class);
    if (r.judge) grade.push("judge " + r.judge + (r.unsure ? " (unsure)" : ""));
    box.append(el("p", "grade", grade.join(" · ")));
    if (r.reason) box.append(el("p", "reason", r.reason));
    if (r.outcome) box.append(el("pre", "outcome", "outcome " + JSON.stringify(r.outcome, null, 2)));
    box.append(checks("conduct checks", r.conduct), checks("simulator checks", r.sim_faults));
    const messages = el("div", "messages");
    for (const m of r.messages) {
      const message = el("div", "message role-" + m.role);
      message.append(el("span", "role", m.role + (m.name ? " " + m.name : "")));
      const text = contentText(m);
      if (text !== "" || !m.tool_calls) message.append(el("pre", "content", text));
      if (m.tool_calls) message.append(el("pre", "calls", JSON.stringify(m.tool_calls, null, 2)));
      messages.append(message);
    }
    box.append(messages);
    return box;
  };
  const item = (r) => {
    const li = el("li", "conversation status-" + r.status);
    li.dataset.id = r.id;
    const details = el("details");
    const summary = el("summary");
    summary.append(el("span", "badge", r.status.replace("_", " ")), el("span", "id", r.id), el("span", "coords", Object.values(r.axes).join(" · ")));
    details.append(summary);
    details.addEventListener("toggle", () => {
      if (details.open && details.children.length === 1) details.append(body(r));
    });
    li.append(details);
    return li;
  };
  const render = () => {
    list.replaceChildren(...matching.slice(0, limit).map((i) => item(rows[i])));
    more.hidden = matching.length <= limit;
  };
  const filter = () => {
    const wanted = axisFilters.filter((s) => s.value !== "").map((s) => [s.dataset.axis, s.value]);
    const status = statusFilter.value;
    const words = textFilter.value.toLowerCase().trim();
    matching = [];
    rows.forEach((r, i) => {
      if (status && r.status !== status) return;
      if (wanted.some((w) => r.axes[w[0]] !== w[1])) return;
      if (words && !haystacks[i].includes(words)) return;
      matching.push(i);
    });
    document.getElementById("shown-count").textContent = String(matching.length);
    limit = PAGE;
    render();
  };
  more.addEventListener("click", () => {
    limit += PAGE;
    render();
  });
  for (const s of [...axisFilters, statusFilter]) s.addEventListener("change", filter);
  textFilter.addEventListener("input", filter);
  filter();
})();`;
