import fc from "fast-check";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../../../env/agent.ts";
import { assignRoles } from "../../../env/roles/assign.ts";
import { playEpisode } from "../../../env/rollout.ts";
import { simulate } from "../../../env/simulate.ts";
import type { Row } from "../../../spec/index.ts";
import { referenceSpec } from "../../fixtures/reference-spec.ts";
import { situationOf, withDefaultAxes } from "../../fixtures/situations.ts";
import { SLOW_BEFORE_THE_FIX } from "../../support/hostile.ts";
import {
  completion,
  OpenAICompatibleServer,
  type ReceivedRequest,
  type Scripted,
} from "../../support/openai-compatible-server.ts";

const retail = Agent.from(withDefaultAxes(referenceSpec));
let server: OpenAICompatibleServer;
/** The test server playing one role, as a model of that role's name (one model in two roles is a warning). */
const backend = (role: Role) => ({
  provider: "openai-compatible" as const,
  model: `${role}-model`,
  baseURL: server.url,
  max_retries: 0,
  timeout_ms: 2_000,
});
/** An error that names the backend of the role, as rows name it. */
const named = (role: Role) => new RegExp(`${role}-model@http://127\\.0\\.0\\.1:\\d+/v1: `);

beforeAll(async () => {
  server = await OpenAICompatibleServer.start();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

type Role = "agent" | "writer" | "user";

/** Which role a request came from, by what it carries. */
const roleOf = (r: ReceivedRequest): Role =>
  r.tools
    ? "agent"
    : String(r.messages[0]?.content).startsWith("You write the first message")
      ? "writer"
      : "user";

/** Sane answers for the roles not under test: the agent says hello, the person is done. */
const sane: Record<Role, Scripted> = {
  agent: completion({ content: "Hello! How can I help you today?" }),
  writer: completion({ content: "Hi, I need help with my order." }),
  user: completion({ content: "Thanks, that is all. ###STOP###" }),
};

/** The server scripted to answer `reply` to `role`'s requests and sanely to the others'. */
function answer(role: Role, reply: Scripted): void {
  server.otherwise((r) => (roleOf(r) === role ? reply : sane[roleOf(r)]));
}

/** A run of one row with every role played by the test server: the row and the run's warnings. */
async function runWith(role: Role, reply: Scripted): Promise<{ row: Row; warnings: string[] }> {
  answer(role, reply);
  const data = await simulate(retail, {
    rows: 1,
    maxTurns: 2,
    logprobs: true,
    agent: backend("agent"),
    simulator: backend("writer"),
    userModel: backend("user"),
  });
  const rows = await data.rows();
  expect(rows).toHaveLength(1);
  return { row: rows[0] as Row, warnings: data.warnings };
}

/** One episode with every role played by the test server, played as a run plays it (no planning). */
async function rowWith(role: Role, reply: Scripted): Promise<Row> {
  answer(role, reply);
  const roles = assignRoles({
    agent: backend("agent"),
    simulator: backend("writer"),
    userModel: backend("user"),
    logprobs: true,
  });
  return playEpisode(retail, situation, roles.agent, roles.writer, roles.user, 2);
}
const situation = situationOf(retail, {});

/** A completion body with the first choice changed by `edit`. */
function edited(edit: (choice: Record<string, unknown>) => void, base = completion({})): Scripted {
  const body = structuredClone(base.body) as { choices: Record<string, unknown>[] };
  edit(body.choices[0] as Record<string, unknown>);
  return { body };
}

const scored = completion({
  content: "Hello there",
  logprobs: [
    { token: "Hello", logprob: -0.25, top: { Hi: -1.5 } },
    { token: " there", logprob: -0.5 },
  ],
  completionTokens: 2,
});

describe("backend replies of any shape", () => {
  it("uses a turn whose logprobs come without top_logprobs, as servers send them when not asked", async () => {
    const reply = edited((choice) => {
      const { content } = choice.logprobs as { content: Record<string, unknown>[] };
      for (const token of content) delete token.top_logprobs;
    }, scored);
    const { row, warnings } = await runWith("agent", reply);
    expect(row.episode.ended_by).not.toBe("error");
    expect(
      row.messages.find((m) => m.role === "assistant" && m.content === "Hello there"),
    ).toMatchObject({
      logprob: -0.75,
      token_logprobs: [-0.25, -0.5],
    });
    expect(warnings).toEqual([]);
  });

  it('drops the logprob, with a warning, when a token\'s "logprob" is null or missing; the row is kept', async () => {
    for (const broken of [null, undefined]) {
      const reply = edited((choice) => {
        const [first] = (choice.logprobs as { content: Record<string, unknown>[] }).content;
        (first as Record<string, unknown>).logprob = broken;
      }, scored);
      const { row, warnings } = await runWith("agent", reply);
      expect(row.episode.ended_by).not.toBe("error");
      const turn = row.messages.find((m) => m.role === "assistant" && m.content === "Hello there");
      expect(turn).toMatchObject({ n_tokens: 2 });
      expect(turn).not.toHaveProperty("logprob");
      expect(warnings).toEqual([expect.stringMatching(/agent turns carry no logprob/)]);
    }
  });

  it("records a reply with no choices, no message, numeric content or an HTML body as the agent's error, naming the backend", async () => {
    const cases: [Scripted, RegExp][] = [
      [{ body: { id: "x", object: "chat.completion" } }, /the reply has no choices$/],
      [
        { body: { choices: [] } },
        /the reply's choices is an empty list; expected at least one choice/,
      ],
      [edited((c) => delete c.message), /the reply has no choices\[0\]\.message$/],
      [
        edited((c) => {
          c.message = { role: "assistant", content: 42 };
        }),
        /the reply's choices\[0\]\.message\.content is a number \(42\); expected a string or null/,
      ],
      [
        {
          raw: "<html><body>502 Bad Gateway</body></html>",
          headers: { "content-type": "text/html" },
        },
        /the reply is not JSON: "<html><body>502 Bad Gateway<\/body><\/html>"/,
      ],
      [{ raw: '{"choices": [' }, /the reply is not valid JSON/],
      [
        { raw: "", headers: { "content-type": "text/plain" } },
        /the reply is not JSON: it is empty/,
      ],
    ];
    for (const [reply, why] of cases) {
      const row = await rowWith("agent", reply);
      expect(row.episode.ended_by).toBe("error");
      expect(row.episode.errors).toEqual([expect.stringMatching(/^agent: /)]);
      expect(row.episode.errors[0]).toMatch(named("agent"));
      expect(row.episode.errors[0]).toMatch(why);
      expect(row.episode.errors[0]).not.toMatch(/Cannot read properties/);
    }
  });

  it("records the same shapes from the person's model as the user's error, and from the writer as its fallback", async () => {
    const html: Scripted = {
      raw: "<!doctype html><title>oops</title>",
      headers: { "content-type": "text/html" },
    };
    const user = await rowWith("user", html);
    expect(user.episode.ended_by).toBe("error");
    expect(user.episode.errors).toEqual([
      expect.stringMatching(
        /^user: user-model@http:\/\/127\.0\.0\.1:\d+\/v1: the reply is not JSON/,
      ),
    ]);
    const writer = await rowWith("writer", { body: { choices: [{}] } });
    expect(writer.models.simulator).toBe("offline");
    expect(writer.episode.writer_fallback).toEqual({
      writer: expect.stringMatching(/^writer-model@/),
      error: expect.stringMatching(/^writer-model@.*: the reply has no choices\[0\]\.message$/),
    });
  });
});

/** JSON values of every kind, small. */
const anyJson = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 12 }),
  fc.constant([]),
  fc.constant({}),
);
/** A field that is mostly right, sometimes missing, null or of another type. */
const maybe = <T>(right: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 12, arbitrary: right },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: anyJson },
  );
const logprob = fc.double({ min: -20, max: 0, noNaN: true });
const token = fc.record({
  token: maybe(fc.string({ maxLength: 6 })),
  logprob: maybe(logprob),
  top_logprobs: maybe(
    fc.array(fc.record({ token: maybe(fc.string({ maxLength: 6 })), logprob: maybe(logprob) }), {
      maxLength: 3,
    }),
  ),
});
const toolCall = fc.record({
  id: maybe(fc.string({ maxLength: 8 })),
  type: maybe(fc.constantFrom("function", "custom")),
  function: maybe(
    fc.record({
      name: maybe(fc.constantFrom("get_order", "list_orders", "nope", "")),
      arguments: maybe(fc.constantFrom("{}", '{"order_id":"W1234567"}', "not json", "")),
    }),
  ),
});
const message = fc.record({
  role: maybe(fc.constant("assistant")),
  content: maybe(
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
      { weight: 2, arbitrary: fc.constantFrom("Thanks! ###STOP###", "", "   ") },
      // Past every role's cap: 16 KiB for a person or an opening, 256 KiB for the agent's turn.
      { weight: 1, arbitrary: fc.constantFrom(20_000, 300_000).map((n) => "x".repeat(n)) },
    ),
  ),
  tool_calls: fc.option(fc.array(toolCall, { maxLength: 2 }), { nil: undefined }),
});
const choice = fc.record({
  message: maybe(message),
  logprobs: fc.option(fc.record({ content: maybe(fc.array(token, { maxLength: 3 })) }), {
    nil: undefined,
  }),
});
const body = fc.record({
  choices: maybe(fc.array(maybe(choice), { minLength: 1, maxLength: 2 })),
  usage: maybe(fc.record({ completion_tokens: maybe(fc.nat(5)) })),
  model: maybe(fc.constant("test-model-0125")),
});
/** A reply every role can use, but for its logprobs, which may be partial, null or of the wrong type. */
const wellFormed = fc
  .tuple(
    fc.constantFrom(
      "Hello, how can I help?",
      "Thanks, that is all. ###STOP###",
      "Where is W1234567?",
    ),
    fc.option(fc.array(token, { maxLength: 3 }), { nil: undefined }),
  )
  .map(
    ([content, tokens]): Scripted => ({
      body: {
        choices: [
          {
            index: 0,
            message: { role: "assistant", content },
            logprobs: tokens === undefined ? null : { content: tokens },
          },
        ],
        usage: { completion_tokens: tokens?.length ?? 3 },
      },
    }),
  );

/** Replies as servers and proxies send them: JSON of any shape, pages, truncations, and HTTP errors. */
const reply: fc.Arbitrary<Scripted> = fc.oneof(
  { weight: 4, arbitrary: wellFormed },
  { weight: 6, arbitrary: body.map((b): Scripted => ({ body: b })) },
  { weight: 1, arbitrary: anyJson.map((b): Scripted => ({ body: b })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("<html>bad gateway</html>", "", "{", "null", "[1,2", "OK")
      .chain((raw) =>
        fc
          .constantFrom("text/html", "application/json", "text/plain")
          .map((type): Scripted => ({ raw, headers: { "content-type": type } })),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(400, 404, 429, 500, 502),
        fc.constantFrom("<html>down</html>", "{}", ""),
      )
      .map(
        ([status, raw]): Scripted => ({ status, raw, headers: { "content-type": "text/html" } }),
      ),
  },
);

describe("any reply, from any role's backend", () => {
  it(
    "is either used or recorded as that role's error naming the backend: never a thrown run, never a lost row",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Role>("agent", "writer", "user"),
          reply,
          async (role, scripted) => {
            server.reset();
            const row = await rowWith(role, scripted);
            const { episode } = row;
            if (role === "writer") {
              if (episode.writer_fallback)
                expect(episode.writer_fallback.error).toMatch(named(role));
              else expect(row.models.simulator).toMatch(/^writer-model@/);
              return;
            }
            // A logprob the server sent partly or of the wrong type is left out, never a made-up number.
            for (const m of row.messages)
              if (m.role === "assistant" && m.logprob !== undefined)
                expect(m.token_logprobs?.reduce((sum, lp) => sum + lp, 0)).toBe(m.logprob);
            const prefix = role === "agent" ? "agent: " : "user: ";
            for (const error of episode.errors) {
              expect(error).not.toMatch(/Cannot read properties|is not a function|undefined/);
              expect(error.startsWith(prefix)).toBe(true);
              // The agent's turn is the episode's to refuse (its size, its tool calls): the row
              // names the agent's backend in `models.agent`; every other error names it itself.
              if (!/assistant message is invalid/.test(error)) expect(error).toMatch(named(role));
            }
          },
        ),
        { seed: 20_250_601, numRuns: 120 },
      );
    },
    SLOW_BEFORE_THE_FIX,
  );
});
