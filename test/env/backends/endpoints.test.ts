import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OPENAI_ENDPOINT, parseBackend } from "../../../env/backends/backend.ts";
import { ChatClient } from "../../../env/backends/chat.ts";
import { endpointOf } from "../../../env/backends/endpoint.ts";
import { assignRoles } from "../../../env/roles/assign.ts";
import { InputError } from "../../../env/util/errors.ts";
import { OpenAICompatibleServer } from "../../support/openai-compatible-server.ts";

const endpoint = (spec: string) => endpointOf(parseBackend(spec, "agent"));

/** Sets environment variables for one test and puts the old values back after it. */
const saved = new Map<string, string | undefined>();
function setEnv(name: string, value: string | undefined): void {
  if (!saved.has(name)) saved.set(name, process.env[name]);
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
});

describe("endpointOf: one server however it is spelled", () => {
  it("treats this machine's aliases, host case, trailing slashes and default ports as one server", () => {
    const spellings = [
      "m@http://127.0.0.1:8000/v1",
      "m@http://localhost:8000/v1/",
      "m@http://LocalHost:8000/v1//",
      "m@http://[::1]:8000/v1",
      "m@http://0.0.0.0:8000/v1",
    ];
    expect(new Set(spellings.map(endpoint))).toEqual(new Set(["http://localhost:8000/v1"]));
    expect(endpoint("m@http://Models.Example.COM:80/v1/")).toBe("http://models.example.com/v1");
    expect(endpoint("m@https://models.example.com:443/v1")).toBe("https://models.example.com/v1");
  });

  it("keeps apart what really differs: port, path, scheme and a non-default port", () => {
    const distinct = [
      "m@http://localhost:8000/v1",
      "m@http://localhost:8001/v1",
      "m@http://localhost:8000/v2",
      "m@https://localhost:8000/v1",
      "m@http://models.example.com:8080/v1",
      "m@http://models.example.com/v1",
    ].map(endpoint);
    expect(new Set(distinct).size).toBe(distinct.length);
  });

  it("puts an openai model at OpenAI's endpoint, or at OPENAI_BASE_URL when it is set", () => {
    setEnv("OPENAI_BASE_URL", undefined);
    expect(endpoint("openai:gpt-4.1")).toBe(OPENAI_ENDPOINT);
    expect(endpoint("openai:gpt-4.1")).toBe(endpoint("gpt-4.1@https://api.openai.com:443/v1/"));
    setEnv("OPENAI_BASE_URL", " http://127.0.0.1:9000/v1/ ");
    expect(endpoint("openai:gpt-4.1")).toBe("http://localhost:9000/v1");
  });

  it("has no endpoint for what runs here", () => {
    expect(endpointOf(parseBackend("offline", "agent"))).toBeNull();
    expect(endpointOf(parseBackend("typesafe:offline", "judge"))).toBeNull();
  });
});

describe("typesafe: specs name their server when parsed", () => {
  it("refuses typesafe:<model> with no URL at parse time, naming the role and the accepted forms", () => {
    expect(() => parseBackend("typesafe:jev-latest", "judge")).toThrow(InputError);
    expect(() => parseBackend("typesafe:jev-latest", "judge")).toThrow(
      /judge: "typesafe:jev-latest" names no server to read logprobs from; expected "typesafe:<model>@<base-url>"/,
    );
    expect(() => parseBackend({ provider: "typesafe", model: "jev" }, "judge")).toThrow(
      /judge\.baseURL: expected the server's URL for provider "typesafe"/,
    );
  });

  it("accepts a URL, OpenAI's endpoint, or the offline decision model", () => {
    expect(parseBackend("typesafe:jev@http://127.0.0.1:8000/v1/", "judge")).toMatchObject({
      provider: "typesafe",
      model: "jev",
      baseURL: "http://127.0.0.1:8000/v1",
      name: "typesafe:jev@http://127.0.0.1:8000/v1",
    });
    setEnv("OPENAI_BASE_URL", undefined);
    expect(parseBackend("typesafe:openai:gpt-4.1-mini", "judge")).toMatchObject({
      provider: "typesafe",
      model: "gpt-4.1-mini",
      baseURL: OPENAI_ENDPOINT,
      apiKeyEnv: "OPENAI_API_KEY",
      name: "typesafe:openai:gpt-4.1-mini",
    });
    expect(parseBackend({ provider: "typesafe", model: "offline" }, "judge")).toMatchObject({
      provider: "typesafe",
      name: "typesafe:offline",
    });
  });

  it("refuses typesafe:openai:<model> without a key when its client is made, not at the first call", () => {
    setEnv("OPENAI_API_KEY", undefined);
    const backend = parseBackend("typesafe:openai:gpt-4.1-mini", "judge");
    expect(() => new ChatClient(backend, "judge")).toThrow(
      /typesafe:openai:gpt-4\.1-mini needs an API key in the environment variable OPENAI_API_KEY/,
    );
  });

  it("refuses a base URL that does not parse", () => {
    expect(() => parseBackend("m@http://[oops/v1", "agent")).toThrow(
      /agent: "http:\/\/\[oops\/v1" is not a URL/,
    );
    expect(() => parseBackend("typesafe:m@http://[oops/v1", "judge")).toThrow(/is not a URL/);
  });

  it("makes no client for a backend that names no server", () => {
    for (const spec of ["offline", "typesafe:offline"])
      expect(() => new ChatClient(parseBackend(spec, "judge"), "judge")).toThrow(
        /judge: .*offline names no server to call/,
      );
  });
});

describe("same_model compares the model on its normalised endpoint", () => {
  let server: OpenAICompatibleServer;
  beforeAll(async () => {
    server = await OpenAICompatibleServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());
  const port = () => new URL(server.url).port;

  it("records one model served at 127.0.0.1 and at localhost/ as one model in two roles", () => {
    const roles = assignRoles({
      agent: `m@http://127.0.0.1:${port()}/v1`,
      userModel: `m@http://LOCALHOST:${port()}/v1/`,
    });
    expect(roles.degraded.same_model).toEqual({
      model: `m@http://127.0.0.1:${port()}/v1`,
      roles: ["agent", "userModel"],
    });
    expect(roles.warnings).toEqual([
      expect.stringMatching(/plays agent and userModel: .*pass a different model to userModel/),
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it("records openai:<model> and the same model at OpenAI's endpoint as one", () => {
    setEnv("OPENAI_API_KEY", "sk-test");
    setEnv("OPENAI_BASE_URL", undefined);
    const roles = assignRoles({
      agent: "openai:gpt-4.1",
      simulator: { provider: "openai-compatible", model: "gpt-4.1", baseURL: OPENAI_ENDPOINT },
      userModel: "gpt-4.1@https://API.openai.com:443/v1/",
    });
    expect(roles.degraded.same_model).toEqual({
      model: "openai:gpt-4.1",
      roles: ["agent", "simulator", "userModel"],
    });
  });

  it("keeps apart another port, another model, and the offline roles", () => {
    expect(
      assignRoles({
        agent: `m@http://127.0.0.1:${port()}/v1`,
        userModel: `m@http://127.0.0.1:${Number(port()) + 1}/v1`,
      }).degraded,
    ).toEqual({});
    expect(
      assignRoles({
        agent: `m@http://localhost:${port()}/v1`,
        userModel: `n@http://localhost:${port()}/v1`,
      }).degraded,
    ).toEqual({});
    expect(
      assignRoles({ agent: "offline", simulator: "offline", userModel: "offline" }).degraded,
    ).toEqual({});
  });
});
