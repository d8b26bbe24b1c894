import { InputError } from "../../env/index.ts";
import { type HubManifest, HubManifestSchema } from "../../spec/index.ts";
import type { RepoTarget } from "./target.ts";

/** Where a dataset repository keeps its manifest. */
export const MANIFEST_PATH = "rehearse.json";

/** The manifest at a commit, or null when the commit has none (a repository that is not ours). */
export async function readManifest(
  target: RepoTarget,
  commit: string,
): Promise<HubManifest | null> {
  const bytes = await target.read(MANIFEST_PATH, commit);
  if (!bytes) return null;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new InputError(`${target.name}:${MANIFEST_PATH}`, [
      { path: "", message: `is not JSON (${(error as Error).message})` },
    ]);
  }
  const parsed = HubManifestSchema.safeParse(json);
  if (!parsed.success)
    throw new InputError(
      `${target.name}:${MANIFEST_PATH}`,
      parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
    );
  return parsed.data;
}

/** The manifest's bytes as committed: stable key order, one trailing newline. */
export function manifestBytes(manifest: HubManifest): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`);
}

/** The refusal for a repository that holds commits but no manifest. */
export function notOurs(target: RepoTarget, revision: string): InputError {
  return new InputError(target.name, [
    {
      path: "repo",
      message: `has no ${MANIFEST_PATH} at ${revision.slice(0, 12)}: it is not a rehearse dataset repository (push to a new or empty one)`,
    },
  ]);
}
