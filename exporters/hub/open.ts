import { basename } from "node:path";
import { InputError } from "../../env/index.ts";
import { HF_DATASET_PREFIX } from "../../spec/index.ts";
import { GitTarget } from "./git-target.ts";
import { type HfConnection, HfTarget } from "./hf-target.ts";
import type { RepoTarget } from "./target.ts";

/** A repository and the name its dataset card shows. */
export interface OpenedRepo {
  target: RepoTarget;
  name: string;
}

const HF_NAME = /^[A-Za-z0-9][\w.-]{0,95}\/[A-Za-z0-9][\w.-]{0,95}$/;

/**
 * The repository an address names, told apart without guessing: `hf://datasets/<owner>/<name>` is
 * the Hugging Face Hub, anything else a local git repository's path.
 */
export function openRepo(address: string, connection: HfConnection = {}): OpenedRepo {
  if (!address.startsWith("hf://"))
    return { target: new GitTarget(address), name: basename(address) };
  const name = address.slice(HF_DATASET_PREFIX.length);
  if (!address.startsWith(HF_DATASET_PREFIX) || !HF_NAME.test(name))
    throw new InputError("repo", [
      { path: "", message: `expected hf://datasets/<owner>/<name>, got "${address}"` },
    ]);
  return { target: new HfTarget(name, connection), name };
}
