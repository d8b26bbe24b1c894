import {
  type CommitOperation,
  commit,
  createRepo,
  downloadFile,
  HubApiError,
  listCommits,
  type RepoDesignation,
  repoExists,
} from "@huggingface/hub";
import { InputError } from "../../env/index.ts";
import type { RepoCommit, RepoTarget } from "./target.ts";

/** How to reach the Hub: its address (the public Hub when absent) and a token. */
export interface HfConnection {
  hubUrl?: string;
  token?: string;
}

/**
 * A dataset repository on the Hugging Face Hub, through `@huggingface/hub`: commits go through the
 * Hub's commit API with the parent commit named, so a branch that moved since is refused.
 */
export class HfTarget implements RepoTarget {
  readonly name: string;
  readonly #repo: RepoDesignation;
  readonly #hub: { hubUrl?: string; accessToken?: string };
  /** Whether the repository exists, once a call found out. */
  #exists: boolean | null = null;

  constructor(name: string, connection: HfConnection) {
    this.name = `hf://datasets/${name}`;
    this.#repo = { type: "dataset", name };
    const token = connection.token ?? process.env.HF_TOKEN;
    this.#hub = {
      ...(connection.hubUrl ? { hubUrl: connection.hubUrl.replace(/\/+$/, "") } : {}),
      ...(token ? { accessToken: token } : {}),
    };
  }

  async head(branch: string): Promise<string | null> {
    if (!(await this.#found())) return null;
    return this.#newest(branch).catch((error: unknown) => {
      if (error instanceof HubApiError && error.statusCode === 404) return null;
      throw this.#failure(error);
    });
  }

  async resolve(revision: string): Promise<string> {
    return this.#newest(revision).catch((error: unknown) => {
      if (error instanceof HubApiError && error.statusCode === 404)
        throw new InputError(this.name, [
          { path: "revision", message: `"${revision}" names no commit in this repository` },
        ]);
      throw this.#failure(error);
    });
  }

  async read(path: string, commitId: string): Promise<Uint8Array | null> {
    const blob = await this.#call(() =>
      downloadFile({ repo: this.#repo, path, revision: commitId, ...this.#hub }),
    );
    return blob ? new Uint8Array(await blob.arrayBuffer()) : null;
  }

  async commit(branch: string, change: RepoCommit): Promise<string> {
    if (change.parent === null && !(await this.#found())) {
      await this.#call(() =>
        createRepo({ repo: this.#repo, ...this.#hub, accessToken: this.#token() }),
      );
      this.#exists = true;
    }
    const operations: CommitOperation[] = [
      ...change.files.map(
        (file): CommitOperation => ({
          operation: "addOrUpdate",
          path: file.path,
          content: new Blob([file.content]),
        }),
      ),
      ...change.deletions.map((path): CommitOperation => ({ operation: "delete", path })),
    ];
    const output = await this.#call(() =>
      commit({
        repo: this.#repo,
        ...this.#hub,
        accessToken: this.#token(),
        branch,
        title: change.title,
        description: change.description,
        operations,
        useXet: false,
        ...(change.parent ? { parentCommit: change.parent } : {}),
      }),
    );
    if (!output) throw new Error(`the Hub answered no commit id for ${this.name}`);
    return output.commit.oid;
  }

  async #found(): Promise<boolean> {
    this.#exists ??= await this.#call(() => repoExists({ repo: this.#repo, ...this.#hub }));
    return this.#exists;
  }

  async #newest(revision: string): Promise<string> {
    for await (const found of listCommits({
      repo: this.#repo,
      revision,
      batchSize: 1,
      ...this.#hub,
    }))
      return found.oid;
    throw new InputError(this.name, [{ path: "revision", message: `"${revision}" has no commit` }]);
  }

  #token(): string {
    if (this.#hub.accessToken) return this.#hub.accessToken;
    throw new InputError(this.name, [
      { path: "token", message: "pushing to the Hub needs a token: set HF_TOKEN or pass token" },
    ]);
  }

  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw this.#failure(error);
    }
  }

  #failure(error: unknown): Error {
    if (error instanceof InputError) return error;
    const reason =
      error instanceof HubApiError
        ? `${error.statusCode} ${error.message}`
        : error instanceof Error
          ? error.message
          : String(error);
    return new Error(`the Hub refused a request for ${this.name}: ${reason}`);
  }
}
