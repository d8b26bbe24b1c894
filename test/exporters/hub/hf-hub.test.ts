import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dataset, simulate } from "../../../env/index.ts";
import grade from "../../../examples/grader.ts";
import { loadFromHub, pushToHub } from "../../../exporters/hub/index.ts";
import type { HubManifest } from "../../../spec/index.ts";
import { RecordingHubServer } from "../../support/recording-hub-server.ts";

let hub: RecordingHubServer;
let first: Dataset;
let second: Dataset;

beforeAll(async () => {
  hub = await new RecordingHubServer().start();
  first = await simulate("examples/retail-orders.json", { rows: 20, seed: 5 });
  await first.grade({ grader: grade });
  second = await simulate("test/fixtures/specs/telecom.json", { rows: 25, seed: 6 });
});

afterAll(async () => {
  await hub.close();
});

const REPO = "hf://datasets/acme/support-agent";

describe("pushToHub and loadFromHub on the Hugging Face Hub (a recording test double of its API)", () => {
  it("creates the repository and commits through the Hub's commit API", async () => {
    hub.requests.length = 0;
    const pushed = await pushToHub(first, {
      repo: REPO,
      split: "train",
      hubUrl: hub.url,
      token: hub.token,
    });
    expect(pushed.repo).toBe(REPO);
    const routes = hub.requests.map((request) => `${request.method} ${request.path}`);
    expect(routes).toEqual([
      "GET /api/datasets/acme/support-agent",
      "POST /api/repos/create",
      "POST /api/datasets/acme/support-agent/preupload/main",
      "POST /api/datasets/acme/support-agent/commit/main",
    ]);
    const [, create, preupload, commit] = hub.requests;
    expect(JSON.parse(create?.body ?? "")).toMatchObject({
      name: "support-agent",
      organization: "acme",
      type: "dataset",
    });
    expect(create?.headers.authorization).toBe(`Bearer ${hub.token}`);
    const asked = JSON.parse(preupload?.body ?? "") as {
      files: { path: string; size: number; sample: string }[];
    };
    expect(asked.files.map((file) => file.path).sort()).toEqual([
      "README.md",
      "data/train-00000-of-00001.parquet",
      "meta/train.json",
      "rehearse.json",
    ]);
    for (const file of asked.files) {
      expect(file.size).toBeGreaterThan(0);
      expect(Buffer.from(file.sample, "base64").length).toBe(Math.min(512, file.size));
    }
    expect(commit?.headers["content-type"]).toBe("application/x-ndjson");
    const lines = (commit?.body ?? "")
      .split("\n")
      .map((line) => JSON.parse(line) as { key: string; value: Record<string, unknown> });
    expect(lines[0]).toEqual({
      key: "header",
      value: {
        summary: expect.stringMatching(/^train: 20 rows, pass rate [\d.]+%, support \d+$/),
        description: expect.stringContaining("First push"),
      },
    });
    for (const line of lines.slice(1)) {
      expect(line.key).toBe("file");
      expect(line.value).toEqual({
        path: expect.any(String),
        content: expect.any(String),
        encoding: "base64",
      });
    }
    const card = hub.files("acme/support-agent").get("README.md")?.toString("utf8");
    expect(card).toContain("  - split: train\n    path: data/train-*.parquet");

    const back = await loadFromHub(REPO, "train", { hubUrl: hub.url });
    expect(await back.rows()).toEqual(await first.rows());
    expect(back.meta).toEqual(first.meta);
  });

  it("replaces a split, names its parent commit, and loads each push by revision", async () => {
    const before = await pushToHub(first, {
      repo: REPO,
      split: "eval",
      hubUrl: hub.url,
      token: hub.token,
    });
    hub.requests.length = 0;
    const after = await pushToHub(second, {
      repo: REPO,
      split: "train",
      hubUrl: hub.url,
      token: hub.token,
    });
    expect(after.replaced).toBe(before.revision);
    const commit = hub.requests.find((request) => request.path.endsWith("/commit/main"));
    const lines = (commit?.body ?? "")
      .split("\n")
      .map((line) => JSON.parse(line) as { key: string; value: Record<string, unknown> });
    expect(lines[0]?.value.parentCommit).toBe(before.revision);
    expect(lines[0]?.value.summary).toMatch(
      /^train: 25 rows \(was 20\), pass rate ungraded \(was [\d.]+%\), support \d+ \(was \d+\)$/,
    );
    const files = [...hub.files("acme/support-agent").keys()].sort();
    expect(files).toEqual([
      "README.md",
      "data/eval-00000-of-00001.parquet",
      "data/train-00000-of-00001.parquet",
      "meta/eval.json",
      "meta/train.json",
      "rehearse.json",
    ]);
    const manifest = JSON.parse(
      hub.files("acme/support-agent").get("rehearse.json")?.toString() ?? "",
    ) as HubManifest;
    expect(manifest.history.map((push) => push.split)).toEqual(["train", "eval", "train"]);
    expect(
      await (
        await loadFromHub(REPO, "train", { hubUrl: hub.url, revision: before.revision })
      ).rows(),
    ).toEqual(await first.rows());
    expect(await (await loadFromHub(REPO, "train", { hubUrl: hub.url })).rows()).toEqual(
      await second.rows(),
    );
  });

  it("says why when the Hub fails part way, and the previous revision stays", async () => {
    const head = await loadFromHub(REPO, "train", { hubUrl: hub.url });
    hub.failNext("commit");
    await expect(
      pushToHub(first, { repo: REPO, split: "train", hubUrl: hub.url, token: hub.token }),
    ).rejects.toThrow(
      /the Hub refused a request for hf:\/\/datasets\/acme\/support-agent: 500 Internal Error/,
    );
    expect(await (await loadFromHub(REPO, "train", { hubUrl: hub.url })).rows()).toEqual(
      await head.rows(),
    );
  });

  it("refuses a push without a token, a bad address, and a revision the Hub does not have", async () => {
    const saved = process.env.HF_TOKEN;
    delete process.env.HF_TOKEN;
    try {
      await expect(
        pushToHub(first, { repo: "hf://datasets/acme/new-one", split: "train", hubUrl: hub.url }),
      ).rejects.toThrow(/token: pushing to the Hub needs a token: set HF_TOKEN or pass token/);
    } finally {
      if (saved !== undefined) process.env.HF_TOKEN = saved;
    }
    await expect(pushToHub(first, { repo: "hf://models/acme/x", split: "train" })).rejects.toThrow(
      /expected hf:\/\/datasets\/<owner>\/<name>/,
    );
    await expect(loadFromHub(REPO, "train", { hubUrl: hub.url, revision: "nope" })).rejects.toThrow(
      /revision: "nope" names no commit/,
    );
  });
});
