import { Dataset, InputError, issuesOf } from "../../env/index.ts";
import {
  DatasetMetaSchema,
  HUB_SPLITS,
  type HubManifest,
  type HubSplit,
  HubSplitSchema,
  type LoadOptions,
  LoadOptionsSchema,
  type Row,
} from "../../spec/index.ts";
import { notOurs, readManifest } from "./manifest.ts";
import { openRepo } from "./open.ts";
import { rowsHash } from "./push.ts";
import { rowsFromParquet } from "./row-parquet.ts";
import type { RepoTarget } from "./target.ts";

/** A repository at one revision: the commit it resolved to and the manifest there. */
export interface HubRevision {
  repo: string;
  revision: string;
  manifest: HubManifest;
}

/** Reads a dataset repository's manifest at a revision (the branch `main`'s newest commit by default). */
export async function describeHubRepo(
  repo: string,
  options: LoadOptions = {},
): Promise<HubRevision> {
  const { target, revision } = await opened(repo, options);
  const manifest = await readManifest(target, revision);
  if (!manifest) throw notOurs(target, revision);
  return { repo: target.name, revision, manifest };
}

/**
 * Loads exactly one push of a split: the rows as they were pushed (their hash checked against
 * `rehearse.json`) and the run's sidecar, so coverage, quality and the grade report read as before.
 */
export async function loadFromHub(
  repo: string,
  split: HubSplit,
  options: LoadOptions = {},
): Promise<Dataset> {
  const chosen = HubSplitSchema.safeParse(split);
  if (!chosen.success) throw new InputError("split", issuesOf(chosen.error, split));
  const { target, revision } = await opened(repo, options);
  const manifest = await readManifest(target, revision);
  if (!manifest) throw notOurs(target, revision);
  const entry = manifest.splits[chosen.data];
  if (!entry) {
    const held = HUB_SPLITS.filter((name) => manifest.splits[name]);
    throw new InputError(target.name, [
      {
        path: "split",
        message: `has no split "${split}" at ${revision.slice(0, 12)} (it holds ${held.join(", ") || "none"})`,
      },
    ]);
  }
  const rows: Row[] = [];
  for (const file of entry.files)
    rows.push(...(await rowsFromParquet(await must(target, file, revision), file)));
  const damaged = (what: string) =>
    new Error(`${target.name}: split ${split} at ${revision.slice(0, 12)} is damaged: ${what}`);
  if (rows.length !== entry.summary.rows)
    throw damaged(`${rows.length} rows in its files, ${entry.summary.rows} pushed`);
  if (rowsHash(rows) !== entry.source.rows_sha256)
    throw damaged("its rows differ from those pushed");
  const meta = entry.meta_file
    ? DatasetMetaSchema.parse(
        JSON.parse(new TextDecoder().decode(await must(target, entry.meta_file, revision))),
      )
    : null;
  return new Dataset({ rows, meta });
}

async function opened(
  repo: string,
  options: LoadOptions,
): Promise<{ target: RepoTarget; revision: string }> {
  const parsed = LoadOptionsSchema.safeParse(options);
  if (!parsed.success) throw new InputError("load options", issuesOf(parsed.error, options));
  const { revision, hubUrl, token } = parsed.data;
  const { target } = openRepo(repo, { ...(hubUrl ? { hubUrl } : {}), ...(token ? { token } : {}) });
  if (revision) return { target, revision: await target.resolve(revision) };
  const head = await target.head("main");
  if (!head)
    throw new InputError(target.name, [
      { path: "repo", message: "has no commits on main (push a split first, or name a revision)" },
    ]);
  return { target, revision: head };
}

async function must(target: RepoTarget, path: string, revision: string): Promise<Uint8Array> {
  const bytes = await target.read(path, revision);
  if (!bytes)
    throw new Error(
      `${target.name}: ${path} is missing at ${revision.slice(0, 12)}, though rehearse.json lists it`,
    );
  return bytes;
}
