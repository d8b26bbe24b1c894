import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the recording server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

interface Commit {
  id: string;
  parent: string | null;
  title: string;
  description: string;
  files: Map<string, Buffer>;
}

interface Repo {
  commits: Map<string, Commit>;
  branches: Map<string, string>;
}

/**
 * A recording test double of the Hugging Face Hub's HTTP API: a local server answering the routes
 * `@huggingface/hub` calls for dataset repositories (repo info, create, commits list, resolve with
 * byte ranges, preupload, NDJSON commit) in the shapes the Hub answers, holding commits in memory,
 * and recording every request so a test can check what the client sent. `failNext` makes the next
 * request to a route fail, as a Hub outage part way through a push would.
 */
export class RecordingHubServer {
  readonly requests: RecordedRequest[] = [];
  readonly #repos = new Map<string, Repo>();
  readonly #failures = new Map<string, number>();
  readonly #server: Server;
  url = "";

  constructor(readonly token = "hf_test_token") {
    this.#server = createServer((request, response) => {
      this.#handle(request, response).catch((error: unknown) => {
        reply(response, 500, { error: String(error) });
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((done) => this.#server.listen(0, "127.0.0.1", done));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    await new Promise<void>((done) => this.#server.close(() => done()));
  }

  /** Makes the next request whose route is `route` ("commit", "preupload", "resolve", …) answer 500. */
  failNext(route: string): void {
    this.#failures.set(route, (this.#failures.get(route) ?? 0) + 1);
  }

  /** The files of a branch's newest commit, for assertions. */
  files(repo: string, branch = "main"): Map<string, Buffer> {
    const held = this.#repos.get(repo);
    const head = held?.branches.get(branch);
    const files = head ? held?.commits.get(head)?.files : undefined;
    return files ?? new Map();
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", this.url);
    const body = await readBody(request);
    this.requests.push({
      method: request.method ?? "GET",
      path: url.pathname,
      query: url.search,
      headers: request.headers,
      body: body.toString("utf8"),
    });
    const route = routeOf(request.method ?? "GET", url.pathname);
    if (!route)
      return reply(response, 404, { error: `no route ${request.method} ${url.pathname}` });
    const failing = this.#failures.get(route.name) ?? 0;
    if (failing > 0) {
      this.#failures.set(route.name, failing - 1);
      return reply(response, 500, {
        error: "Internal Error - the recording server was told to fail",
      });
    }
    const writes = route.name === "create" || route.name === "preupload" || route.name === "commit";
    if (writes && request.headers.authorization !== `Bearer ${this.token}`)
      return reply(response, 401, { error: "Invalid credentials in Authorization header" });
    const repo = route.repo ? this.#repos.get(route.repo) : undefined;

    switch (route.name) {
      case "create": {
        const asked = JSON.parse(body.toString("utf8")) as {
          name: string;
          organization?: string;
          type: string;
        };
        const name = `${asked.organization}/${asked.name}`;
        if (asked.type !== "dataset")
          return reply(response, 400, { error: "expected type dataset" });
        if (this.#repos.has(name))
          return reply(response, 409, { error: "You already created this dataset repo" });
        this.#repos.set(name, { commits: new Map(), branches: new Map() });
        return reply(response, 200, { url: `${this.url}/datasets/${name}`, name });
      }
      case "info":
        return repo
          ? reply(response, 200, { id: route.repo, _id: route.repo, likes: 0 })
          : reply(response, 404, { error: "Repository not found" });
      case "commits": {
        const head = repo && commitOf(repo, route.revision ?? "main");
        if (!head) return reply(response, 404, { error: "Revision not found" }, "RevisionNotFound");
        const list: Commit[] = [];
        for (
          let at: Commit | undefined = head;
          at;
          at = at.parent ? repo.commits.get(at.parent) : undefined
        )
          list.push(at);
        const limit = Number(url.searchParams.get("limit") ?? 100);
        return reply(
          response,
          200,
          list.slice(0, limit).map((found) => ({
            id: found.id,
            title: found.title,
            message: `${found.title}\n\n${found.description}`,
            authors: [{ user: "rehearse", avatar: "" }],
            date: "2026-12-01T00:00:00.000Z",
          })),
        );
      }
      case "resolve": {
        const at = repo && commitOf(repo, route.revision ?? "main");
        if (!at) return reply(response, 404, { error: "Revision not found" }, "RevisionNotFound");
        const file = at.files.get(route.file ?? "");
        if (!file) return reply(response, 404, { error: "Entry not found" }, "EntryNotFound");
        return sendRange(response, file, request.headers.range);
      }
      case "preupload": {
        if (!repo) return reply(response, 404, { error: "Repository not found" });
        const asked = JSON.parse(body.toString("utf8")) as { files: { path: string }[] };
        return reply(response, 200, {
          files: asked.files.map((file) => ({
            path: file.path,
            uploadMode: "regular",
            shouldIgnore: false,
          })),
        });
      }
      case "commit": {
        if (!repo) return reply(response, 404, { error: "Repository not found" });
        return this.#commit(repo, route.revision ?? "main", body.toString("utf8"), response);
      }
    }
  }

  #commit(repo: Repo, branch: string, ndjson: string, response: ServerResponse): void {
    const lines = ndjson
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line) as { key: string; value: Record<string, unknown> });
    const header = lines.find((line) => line.key === "header")?.value;
    if (!header) {
      reply(response, 400, { error: "the commit has no header line" });
      return;
    }
    const head = repo.branches.get(branch) ?? null;
    const parent = (header.parentCommit as string | undefined) ?? head;
    if (parent !== head) {
      reply(response, 412, {
        error: "A commit has happened since. Please refresh and try again.",
      });
      return;
    }
    const files = new Map(head ? repo.commits.get(head)?.files : undefined);
    for (const line of lines) {
      if (line.key === "file")
        files.set(String(line.value.path), Buffer.from(String(line.value.content), "base64"));
      else if (line.key === "deletedFile") files.delete(String(line.value.path));
      else if (line.key !== "header") {
        reply(response, 400, { error: `unexpected commit line "${line.key}"` });
        return;
      }
    }
    const id = createHash("sha1").update(`${head}\n${ndjson}`).digest("hex");
    repo.commits.set(id, {
      id,
      parent: head,
      title: String(header.summary),
      description: String(header.description ?? ""),
      files,
    });
    repo.branches.set(branch, id);
    reply(response, 200, { commitOid: id, commitUrl: `${this.url}/commit/${id}`, hookOutput: "" });
  }
}

interface Route {
  name: "create" | "info" | "commits" | "resolve" | "preupload" | "commit";
  repo?: string;
  revision?: string;
  file?: string;
}

function routeOf(method: string, path: string): Route | null {
  const parts = path
    .split("/")
    .filter((part) => part !== "")
    .map(decodeURIComponent);
  if (method === "POST" && path === "/api/repos/create") return { name: "create" };
  if (parts[0] === "api" && parts[1] === "datasets" && parts.length >= 4) {
    const repo = `${parts[2]}/${parts[3]}`;
    if (parts.length === 4 && method === "GET") return { name: "info", repo };
    const revision = parts[5];
    if (parts[4] === "commits" && method === "GET") return { name: "commits", repo, revision };
    if (parts[4] === "preupload" && method === "POST") return { name: "preupload", repo, revision };
    if (parts[4] === "commit" && method === "POST") return { name: "commit", repo, revision };
  }
  if (parts[0] === "datasets" && parts[3] === "resolve" && method === "GET")
    return {
      name: "resolve",
      repo: `${parts[1]}/${parts[2]}`,
      revision: parts[4],
      file: parts.slice(5).join("/"),
    };
  return null;
}

function commitOf(repo: Repo, revision: string): Commit | undefined {
  return repo.commits.get(repo.branches.get(revision) ?? revision);
}

function sendRange(response: ServerResponse, file: Buffer, range: string | undefined): void {
  const etag = `"${createHash("sha1").update(file).digest("hex")}"`;
  const asked = range?.match(/^bytes=(\d+)-(\d*)$/);
  if (!asked) {
    response.writeHead(200, { "Content-Length": file.length, ETag: etag });
    response.end(file);
    return;
  }
  const start = Number(asked[1]);
  const end = Math.min(asked[2] ? Number(asked[2]) : file.length - 1, file.length - 1);
  const part = file.subarray(start, end + 1);
  response.writeHead(206, {
    "Content-Range": `bytes ${start}-${end}/${file.length}`,
    "Content-Length": part.length,
    ETag: etag,
  });
  response.end(part);
}

function reply(response: ServerResponse, status: number, body: unknown, errorCode?: string): void {
  response.writeHead(status, {
    "Content-Type": "application/json",
    ...(errorCode ? { "X-Error-Code": errorCode } : {}),
  });
  response.end(JSON.stringify(body));
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
