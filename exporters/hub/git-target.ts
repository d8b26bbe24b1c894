import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { InputError, shownPath } from "../../env/index.ts";
import type { RepoCommit, RepoTarget } from "./target.ts";

/** What git printed, or why it failed. */
interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The identity commits carry when neither the environment nor git's config names one. */
const FALLBACK_IDENTITY = { name: "rehearse", email: "rehearse@localhost" };
const NO_COMMIT = "0".repeat(40);

/**
 * A local git repository as a dataset repository. Commits are built with git's plumbing in a
 * private index, and the branch moves last with a compare-and-swap `update-ref`: a push that fails
 * anywhere before leaves the branch where it was, and a push racing another is refused.
 */
export class GitTarget implements RepoTarget {
  readonly name: string;
  readonly #path: string;

  constructor(path: string) {
    this.#path = resolve(path);
    this.name = shownPath(path);
  }

  async head(branch: string): Promise<string | null> {
    if (!(await this.#isRepository())) return null;
    const found = await this.#git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]);
    return found.code === 0 ? found.stdout.toString().trim() : null;
  }

  async resolve(revision: string): Promise<string> {
    if (!(await this.#isRepository())) throw this.#missing();
    const found = await this.#git(["rev-parse", "--verify", "--quiet", `${revision}^{commit}`]);
    if (found.code !== 0)
      throw new InputError(this.name, [
        { path: "revision", message: `"${revision}" names no commit in this repository` },
      ]);
    return found.stdout.toString().trim();
  }

  async read(path: string, commit: string): Promise<Uint8Array | null> {
    const found = await this.#git(["cat-file", "blob", `${commit}:${path}`]);
    return found.code === 0 ? new Uint8Array(found.stdout) : null;
  }

  async commit(branch: string, commit: RepoCommit): Promise<string> {
    await this.#ensureRepository();
    const bare = (await this.#checked(["rev-parse", "--is-bare-repository"])).toString().trim();
    if (bare !== "true") await this.#refuseDirtyTree();
    const index = await mkdtemp(join(tmpdir(), "rehearse-index-"));
    const env = { GIT_INDEX_FILE: join(index, "index"), ...(await this.#identity()) };
    try {
      await this.#checked(commit.parent ? ["read-tree", commit.parent] : ["read-tree", "--empty"], {
        env,
      });
      const entries: string[] = [];
      for (const file of commit.files) {
        const blob = await this.#checked(["hash-object", "-w", "--no-filters", "--stdin"], {
          input: file.content,
        });
        entries.push(`100644 ${blob.toString().trim()}\t${file.path}`);
      }
      // Mode 0 removes a path from the index: git's plumbing for a deletion without a work tree.
      for (const path of commit.deletions) entries.push(`0 ${NO_COMMIT}\t${path}`);
      await this.#checked(["update-index", "--index-info"], {
        env,
        input: Buffer.from(entries.map((entry) => `${entry}\n`).join("")),
      });
      const tree = (await this.#checked(["write-tree"], { env })).toString().trim();
      const parents = commit.parent ? ["-p", commit.parent] : [];
      const message = `${commit.title}\n\n${commit.description}\n`;
      const created = (
        await this.#checked(["commit-tree", tree, ...parents], { env, input: Buffer.from(message) })
      )
        .toString()
        .trim();
      await this.#checked([
        "update-ref",
        "-m",
        commit.title,
        `refs/heads/${branch}`,
        created,
        commit.parent ?? NO_COMMIT,
      ]);
      if (bare !== "true") await this.#followInWorkTree(branch, created);
      return created;
    } finally {
      await rm(index, { recursive: true, force: true });
    }
  }

  async #isRepository(): Promise<boolean> {
    const exists = await stat(this.#path).then(
      (found) => found.isDirectory(),
      () => false,
    );
    if (!exists) return false;
    const top = await this.#git(["rev-parse", "--absolute-git-dir"]);
    if (top.code !== 0) return false;
    // A folder inside some other repository is not a repository of its own.
    const gitDir = top.stdout.toString().trim();
    return gitDir === this.#path || gitDir === join(this.#path, ".git");
  }

  async #ensureRepository(): Promise<void> {
    if (await this.#isRepository()) return;
    const entries = await readdir(this.#path).then(
      (names) => names.length,
      (error: NodeJS.ErrnoException) => (error.code === "ENOENT" ? 0 : -1),
    );
    if (entries !== 0)
      throw new InputError(this.name, [
        {
          path: "repo",
          message: "expected a git repository, or a new or empty folder to create one in",
        },
      ]);
    await this.#checked(["init", "--quiet", "--bare", "--initial-branch=main", this.#path], {
      cwd: process.cwd(),
    });
  }

  async #refuseDirtyTree(): Promise<void> {
    const status = (await this.#checked(["status", "--porcelain"])).toString().trim();
    if (status !== "")
      throw new InputError(this.name, [
        {
          path: "repo",
          message: "has uncommitted changes; commit or discard them, or push to a bare repository",
        },
      ]);
  }

  /** In a repository with a work tree whose checked-out branch moved, brings the clean tree along. */
  async #followInWorkTree(branch: string, commit: string): Promise<void> {
    const current = await this.#git(["symbolic-ref", "--quiet", "HEAD"]);
    if (current.stdout.toString().trim() === `refs/heads/${branch}`)
      await this.#checked(["reset", "--quiet", "--hard", commit]);
  }

  #missing(): InputError {
    return new InputError(this.name, [{ path: "repo", message: "no git repository is there" }]);
  }

  async #identity(): Promise<Record<string, string>> {
    const configured = async (key: string) =>
      (await this.#git(["config", "--get", key])).stdout.toString().trim();
    const name =
      process.env.GIT_AUTHOR_NAME ?? ((await configured("user.name")) || FALLBACK_IDENTITY.name);
    const email =
      process.env.GIT_AUTHOR_EMAIL ?? ((await configured("user.email")) || FALLBACK_IDENTITY.email);
    return {
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: process.env.GIT_COMMITTER_NAME ?? name,
      GIT_COMMITTER_EMAIL: process.env.GIT_COMMITTER_EMAIL ?? email,
    };
  }

  async #checked(
    args: string[],
    options: { env?: Record<string, string>; input?: Uint8Array; cwd?: string } = {},
  ): Promise<Buffer> {
    const result = await this.#git(args, options);
    if (result.code !== 0)
      throw new Error(
        `git ${args[0]} failed in ${this.name}: ${result.stderr.trim() || `exit code ${result.code}`}`,
      );
    return result.stdout;
  }

  #git(
    args: string[],
    options: { env?: Record<string, string>; input?: Uint8Array; cwd?: string } = {},
  ): Promise<GitResult> {
    return new Promise((done, fail) => {
      const child = execFile(
        "git",
        args,
        {
          cwd: options.cwd ?? this.#path,
          env: { ...process.env, ...options.env },
          encoding: "buffer",
          maxBuffer: 1 << 30,
        },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== "number") {
            fail(
              error.code === "ENOENT"
                ? new Error("git is not installed: the local dataset repository needs it")
                : error,
            );
            return;
          }
          done({ code: error ? Number(error.code) : 0, stdout, stderr: stderr.toString() });
        },
      );
      child.stdin?.end(options.input ?? undefined);
    });
  }
}
