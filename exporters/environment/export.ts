import { randomBytes } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import {
  checkOutputFolder,
  type Dataset,
  InputError,
  issuesOf,
  makeFolder,
  reasonOf,
  shownPath,
} from "../../env/index.ts";
import {
  DEFAULTS,
  type EnvironmentExportOptions,
  EnvironmentExportOptionsSchema,
} from "../../spec/index.ts";
import { type PackageFacts, packageReadme, pyproject, servedSpec } from "./package-files.ts";
import { type SelectedTasks, selectTasks } from "./tasks.ts";

/** What `exportEnvironment` wrote. */
export interface ExportedEnvironment {
  /** The package's folder. */
  path: string;
  id: string;
  /** The Python module (`<id>` with underscores), also the file `<module>.py`. */
  module: string;
  tasks: { train: number; holdout: number };
  left_out: SelectedTasks["left_out"];
  situations: number;
}

const TEMPLATE = new URL("./environment.py", import.meta.url);

/**
 * Writes an installable verifiers environment (the brief's `export_environment`): a Python package
 * whose `load_environment()` serves the dataset's situations, split train/holdout, filtered to the
 * difficulty band, with world, person and reward supplied by `rehearse serve --spec spec.json`.
 * The folder appears whole or not at all.
 */
export async function exportEnvironment(
  data: Dataset,
  out: string,
  options: EnvironmentExportOptions = {},
): Promise<ExportedEnvironment> {
  const parsed = EnvironmentExportOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InputError("environment options", issuesOf(parsed.error, options));
  const { version, band, reward, overwrite } = parsed.data;
  const meta = data.meta;
  if (!meta)
    throw new InputError("dataset", [
      {
        path: "",
        message: "has no sidecar: the environment serves the spec the rows were made from",
      },
    ]);
  const rows = await data.rows();
  if (band && !rows.some((row) => row.reward !== undefined))
    throw new InputError("dataset", [
      {
        path: "reward",
        message:
          "no row is graded: the difficulty band needs graded rows (grade several rollouts per situation), or pass band: null",
      },
    ]);
  const selected = selectTasks(rows, band);
  if (selected.train.length === 0)
    throw new InputError("dataset", [
      {
        path: "task_id",
        message: `no situation is left for training (of ${selected.situations}: ${describe(selected.left_out)}); a pass rate needs several graded rollouts per situation (simulate --rollouts 8)`,
      },
    ]);
  const id =
    parsed.data.name ?? envId(String((meta.spec as { name?: unknown })?.name ?? "rehearse-env"));
  const module = id.replaceAll("-", "_");
  const facts: PackageFacts = {
    id,
    module,
    version,
    description:
      parsed.data.description ??
      `Live tool-use episodes with a simulated person and world, served by rehearse (${selected.train.length} training situations).`,
    tags: ["rehearse", "multi-turn", "tool-use", "agents", "train", "eval"],
    maxTurns: meta.options.max_turns,
    rows: meta.options.rows,
    seed: meta.options.seed ?? DEFAULTS.seed,
    band,
    grader: reward === "episode" ? null : reward.grader,
    selected,
  };
  const tasks = { train: selected.train, holdout: selected.holdout };
  const source = (await readFile(TEMPLATE, "utf8"))
    .replace('"__ENV_ID__"', JSON.stringify(id))
    .replace("__TASKS_JSON__", JSON.stringify(JSON.stringify(tasks)))
    .replace("max_turns: int = __MAX_TURNS__", `max_turns: int = ${facts.maxTurns}`);
  await writeFolder(out, overwrite, {
    [`${module}.py`]: source,
    "pyproject.toml": pyproject(facts),
    "README.md": packageReadme(facts),
    "spec.json": `${JSON.stringify(servedSpec(meta), null, 2)}\n`,
  });
  return {
    path: out,
    id,
    module,
    tasks: { train: selected.train.length, holdout: selected.holdout.length },
    left_out: selected.left_out,
    situations: selected.situations,
  };
}

/** An environment id from a spec's name: lower case, dashes, a letter first. */
function envId(name: string): string {
  const dashed = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^[^a-z]+|-+$/g, "")
    .slice(0, 60)
    .replace(/-+$/, "");
  return dashed.length >= 2 ? dashed : "rehearse-env";
}

function describe(leftOut: SelectedTasks["left_out"]): string {
  return Object.entries(leftOut)
    .map(([reason, n]) => `${n} ${reason.replace("_", " ")}`)
    .join(", ");
}

/** How refusals of an environment's folder name what to change: SDK options (`out`, `overwrite: true`) or CLI flags. */
export interface EnvironmentOutputCheck {
  overwrite: boolean;
  style?: "options" | "flags";
}

/**
 * Checks the folder an environment goes to, before any work: new, or (with `overwrite`) a package
 * this exporter wrote; a file, or a folder of something else, is refused. Returns whether one is
 * there to replace.
 */
export async function checkEnvironmentOutput(
  out: string,
  check: EnvironmentOutputCheck,
): Promise<boolean> {
  const flags = check.style === "flags";
  const what = flags ? "export env flags" : "environment output";
  const field = flags ? "--out" : "out";
  const target = resolve(out);
  await checkOutputFolder(dirname(target), { what, field, name: tempName(target) });
  const existing = await stat(target).catch(() => null);
  if (!existing) return false;
  const ours = await stat(join(target, "spec.json"))
    .then(
      () => stat(join(target, "pyproject.toml")).then(() => true),
      () => false,
    )
    .catch(() => false);
  if (existing.isDirectory() && ours && check.overwrite) return true;
  throw new InputError(what, [
    {
      path: field,
      message: !existing.isDirectory()
        ? `${shownPath(out)} is a file; expected a new folder`
        : ours
          ? `${shownPath(out)} already holds an environment; ${flags ? "use --overwrite" : "pass overwrite: true"} to replace it`
          : `${shownPath(out)} exists and is not an environment this exporter wrote; choose a new folder`,
    },
  ]);
}

/**
 * Writes the files into a fresh folder beside `out` (making the folder it goes in when missing),
 * then moves it into place: an existing package is replaced only with `overwrite`, and only when it
 * is one this exporter wrote.
 */
async function writeFolder(
  out: string,
  overwrite: boolean,
  files: Record<string, string>,
): Promise<void> {
  const target = resolve(out);
  const existing = await checkEnvironmentOutput(out, { overwrite });
  // Made with mkdir, not mkdtemp, so the package's folder has the mode every new folder gets
  // (mkdtemp's is 0700, and the package is for others to install and read).
  const temp = join(dirname(target), tempName(target));
  await makeFolder(dirname(target))
    .then(() => mkdir(temp))
    .catch((error: Error) => {
      throw new InputError("environment output", [
        { path: "out", message: `cannot write beside ${shownPath(out)}: ${reasonOf(error)}` },
      ]);
    });
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(temp, name), text);
    if (existing) {
      const old = `${temp}.old`;
      await rename(target, old);
      await rename(temp, target);
      await rm(old, { recursive: true, force: true });
    } else await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

/** The fresh folder beside `target` a package is written into before it is moved into place. */
function tempName(target: string): string {
  return `.${basename(target)}.${randomBytes(6).toString("hex")}`;
}
