import type { DatasetMeta } from "../../spec/index.ts";
import type { SelectedTasks } from "./tasks.ts";

/** What the package files are written from. */
export interface PackageFacts {
  id: string;
  module: string;
  version: string;
  description: string;
  tags: string[];
  maxTurns: number;
  rows: number;
  seed: number | string;
  band: readonly [number, number] | null;
  grader: string | null;
  selected: SelectedTasks;
}

/** TOML's basic string: the JSON string escapes are TOML's too. */
const toml = (text: string) => JSON.stringify(text);

/** `pyproject.toml` as verifiers environments carry it: hatchling, the verifiers dependency, eval defaults. */
export function pyproject(facts: PackageFacts): string {
  return [
    "[project]",
    `name = ${toml(facts.id)}`,
    `version = ${toml(facts.version)}`,
    `description = ${toml(facts.description)}`,
    `tags = [${facts.tags.map(toml).join(", ")}]`,
    'requires-python = ">=3.10"',
    "dependencies = [",
    '    "verifiers>=0.1.3",',
    '    "websockets>=10.4",',
    "]",
    "",
    "[build-system]",
    'requires = ["hatchling"]',
    'build-backend = "hatchling.build"',
    "",
    "[tool.hatch.build]",
    `include = [${toml(`${facts.module}.py`)}, "pyproject.toml", "spec.json", "README.md"]`,
    "",
    "[tool.verifiers.eval]",
    `num_examples = ${Math.min(facts.selected.holdout.length || facts.selected.train.length, 20)}`,
    "rollouts_per_example = 4",
    "",
  ].join("\n");
}

/** The package's README with the sections verifiers environments carry. */
export function packageReadme(facts: PackageFacts): string {
  const { selected } = facts;
  const out = selected.left_out;
  const serve = [
    "rehearse serve --spec spec.json",
    `--rows ${facts.rows}`,
    `--seed ${facts.seed}`,
    `--max-turns ${facts.maxTurns}`,
    ...(facts.grader ? [`--grader ${facts.grader}`] : []),
  ].join(" ");
  const band = facts.band
    ? `Situations were kept when their graded pass rate lay within ${percent(facts.band[0])}–${percent(facts.band[1])}: ${out.below_band} were left out as too hard (below), ${out.above_band} as too easy (above), and ${out.ungraded} had no graded row. A situation always or never solved gives a group of rollouts no reward variance, so a policy-gradient trainer learns nothing from it.`
    : "No difficulty band was applied: every situation of the dataset is here.";
  return [
    `# ${facts.id}`,
    "",
    "### Overview",
    `- **Environment ID**: \`${facts.id}\``,
    `- **Short description**: ${facts.description}`,
    `- **Tags**: ${facts.tags.join(", ")}`,
    "",
    "### Datasets",
    `- **Primary dataset(s)**: situations planned by rehearse from \`spec.json\`, embedded in \`${facts.module}.py\``,
    `- **Split sizes**: train ${selected.train.length}, holdout ${selected.holdout.length} (of ${selected.situations} situations; ${out.eval_split} of the eval split are kept out of training)`,
    `- **Difficulty band**: ${band}`,
    "",
    "### Task",
    "- **Type**: multi-turn tool use, with a simulated person and a simulated world",
    "- **Parser**: none; the model's messages (content and tool calls) are sent as they are",
    `- **Rubric overview**: the reward the rehearse server gives each finished episode${facts.grader ? ` (graded by \`${facts.grader}\`)` : " (the person got what they came for, and the agent's conduct checks passed)"}`,
    "",
    "### Quickstart",
    "Start the server this environment talks to (world dials in `spec.json`):",
    "```bash",
    serve,
    "```",
    "Then evaluate a model:",
    "```bash",
    `uv run vf-eval ${facts.id} -a '{"server_url": "ws://127.0.0.1:8000/ws"}'`,
    "```",
    "",
    "### Environment Arguments",
    "| Arg | Type | Default | Description |",
    "| --- | ---- | ------- | ----------- |",
    '| `server_url` | str | `$REHEARSE_SERVER_URL` or `"ws://127.0.0.1:8000/ws"` | the rehearse server\'s WebSocket |',
    "| `token` | str | `$REHEARSE_TOKEN` | the server's bearer token, when it has one |",
    '| `split` | str | `"train"` | `train` or `holdout` |',
    "| `num_examples` | int | `-1` | examples to use (-1 for all) |",
    `| \`max_turns\` | int | \`${facts.maxTurns}\` | assistant turns before the episode is cut off |`,
    "",
    "### Metrics",
    "| Metric | Meaning |",
    "| ------ | ------- |",
    "| `reward` | the server's reward for the episode, 0 to 1 |",
    "| `rehearse_reward` | the same, as the rubric's one function names it |",
    "",
  ].join("\n");
}

/** The spec the server serves: the dataset's spec with the run's world dials written in. */
export function servedSpec(meta: DatasetMeta): unknown {
  const spec = (meta.spec ?? {}) as Record<string, unknown>;
  const world = (spec.world ?? {}) as Record<string, unknown>;
  return {
    ...spec,
    world: {
      ...world,
      fault_rate: meta.options.fault_rate,
      prefer_success: meta.options.prefer_success,
      ...(typeof meta.options.seed === "number" ? { seed: meta.options.seed } : {}),
    },
  };
}

function percent(x: number): string {
  return `${Math.round(x * 100)}%`;
}
