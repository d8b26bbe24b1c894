import { HUB_SPLITS, type HubManifest } from "../../spec/index.ts";

/** The data files of a split, as the Hub's `configs` front matter names them. */
export function splitPattern(split: string): string {
  return `data/${split}-*.parquet`;
}

/**
 * The dataset card (README.md): `configs` front matter mapping each split to its Parquet parts,
 * so `datasets.load_dataset` reads the splits, and a body that says what the repository holds.
 */
export function datasetCard(name: string, manifest: HubManifest): string {
  const present = HUB_SPLITS.filter((split) => manifest.splits[split]);
  const front = [
    "---",
    "configs:",
    "- config_name: default",
    "  data_files:",
    ...present.flatMap((split) => [`  - split: ${split}`, `    path: ${splitPattern(split)}`]),
    "tags:",
    "- rehearse",
    "- synthetic",
    "- tool-use",
    "- agents",
    "---",
  ];
  const table = present.map((split) => {
    const entry = manifest.splits[split];
    if (!entry) return "";
    return `| ${split} | ${entry.summary.rows} | ${passRateText(entry.summary.pass_rate)} | ${entry.summary.support} | ${entry.source.path ?? "in memory"} |`;
  });
  return [
    ...front,
    "",
    `# ${name}`,
    "",
    "Conversations of a tool-using agent with simulated people and a simulated world, made by rehearse.",
    "",
    "| split | rows | pass rate | situations | source |",
    "|---|---|---|---|---|",
    ...table,
    "",
    "Each row is one conversation. `id`, `task_id`, `reward`, `gold_reward`, `reason`, `failure_class`,",
    "`grade_error` and `policy_version` are plain columns; the nested fields (`messages`, `tools`,",
    "`situation`, `persona`, `models`, `episode`, `conduct`, `sim_faults`, `judge_meta`, `labels`) are",
    "JSON text (`json.loads` them in Python). `rehearse.json` records where each split came from and",
    "every push that replaced it; `rehearse pull` loads one push exactly and checks its hash.",
    "",
    "```python",
    "from datasets import load_dataset",
    `data = load_dataset("${name}")`,
    "```",
    "",
  ].join("\n");
}

/** A pass rate as the card, commit messages and the push and pull commands print it. */
export function passRateText(rate: number | null): string {
  return rate === null ? "ungraded" : `${(rate * 100).toFixed(1)}%`;
}
