/** A file a commit writes: its path in the repository and its bytes. */
export interface RepoFile {
  path: string;
  content: Uint8Array;
}

/** One commit: its message, the files it writes, the paths it deletes, the branch head it builds on. */
export interface RepoCommit {
  title: string;
  description: string;
  files: RepoFile[];
  deletions: string[];
  /** The head this commit builds on (null for a new branch): a head that moved since is refused. */
  parent: string | null;
}

/**
 * A dataset repository rehearse pushes to and loads from: a local git repository or the Hugging
 * Face Hub. Both speak commits and revisions; a commit lands whole or not at all.
 */
export interface RepoTarget {
  /** How errors name the repository. */
  readonly name: string;
  /** The branch's newest commit, or null when the branch (or the repository) does not exist yet. */
  head(branch: string): Promise<string | null>;
  /** The commit a branch, tag or commit id names; an InputError when it names none. */
  resolve(revision: string): Promise<string>;
  /** A file's bytes at a commit, or null when the commit has no such file. */
  read(path: string, commit: string): Promise<Uint8Array | null>;
  /** Creates the repository when missing, then commits; returns the new commit's id. */
  commit(branch: string, commit: RepoCommit): Promise<string>;
}
