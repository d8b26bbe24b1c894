import { upgradeWebSocket } from "@hono/node-server";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { WebSocket } from "ws";
import { z } from "zod";
import { InputError, issuesOf, messageOf } from "../env/index.ts";
import { conversationsOf } from "../exporters/index.ts";
import pkg from "../package.json" with { type: "json" };
import {
  FreezeRequestSchema,
  type FreezeResult,
  ObservationSchema,
  SessionStateSchema,
  StepActionSchema,
} from "../spec/index.ts";
import { carriesToken } from "./limits.ts";

/** What the routes read from the running server. */
export interface AppContext {
  token?: string;
  /** The agent's name and system prompt, for `GET /metadata`. */
  agent: { name: string; system_prompt: string };
  metricsText(): Promise<string>;
  freeze(request: z.infer<typeof FreezeRequestSchema>): Promise<FreezeResult>;
  /** The report page of the finished episodes held for the next freeze, for `GET /report` (`?conversations=N|all` lists more or fewer). */
  report(conversations?: number): Promise<string>;
  /** Takes a WebSocket once its upgrade is accepted. */
  accept(socket: WebSocket): void;
  /** Why the server cannot serve episodes (every engine thread stopped), or null when it can. */
  unhealthy?(): string | null;
}

/** JSON Schemas of OpenEnv's three (`GET /schema`), made once from spec/. */
const SCHEMAS = {
  action: z.toJSONSchema(StepActionSchema, { io: "input" }),
  observation: z.toJSONSchema(ObservationSchema, { io: "input" }),
  state: z.toJSONSchema(SessionStateSchema, { io: "input" }),
};

/**
 * The server's one hono app: `GET /health` (open to all; 503 when no engine thread is left), then, behind the bearer token when one
 * is set, `GET /metadata`, `GET /schema`, `GET /metrics`, `GET /report`, `POST /v1/freeze` and the
 * WebSocket `/ws`.
 */
export function createApp(context: AppContext): Hono {
  const app = new Hono();
  app.get("/health", (c) => {
    const reason = context.unhealthy?.() ?? null;
    return reason === null
      ? c.json({ status: "healthy" })
      : c.json({ status: "unhealthy", reason }, 503);
  });
  app.use("*", async (c, next) => {
    if (context.token && !carriesToken(c.req.header("authorization"), context.token))
      return c.json(
        {
          error:
            "missing or wrong token: send Authorization: Bearer <token> (or the token as a URL's password)",
        },
        401,
        { "WWW-Authenticate": 'Bearer realm="rehearse"' },
      );
    await next();
  });
  app.get("/metadata", (c) =>
    c.json({
      name: `rehearse: ${context.agent.name}`,
      description: context.agent.system_prompt,
      version: pkg.version,
    }),
  );
  app.get("/schema", (c) => c.json(SCHEMAS));
  app.get("/metrics", async (c) =>
    c.text(await context.metricsText(), 200, { "content-type": "text/plain; version=0.0.4" }),
  );
  app.get("/report", async (c) => {
    const asked = c.req.query("conversations");
    const conversations = asked === undefined ? undefined : conversationsOf(asked);
    if (conversations === null)
      return c.json(
        {
          error: `conversations: expected a whole number of conversations to list, or all, not ${JSON.stringify(asked)}`,
        },
        400,
      );
    try {
      return c.html(await context.report(conversations));
    } catch (error) {
      return c.json({ error: messageOf(error) }, 500);
    }
  });
  app.post("/v1/freeze", bodyLimit({ maxSize: 64 * 1024 }), async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch (error) {
      return c.json({ error: `expected a JSON body: ${messageOf(error)}` }, 400);
    }
    const parsed = FreezeRequestSchema.safeParse(body);
    if (!parsed.success)
      return c.json({ error: "invalid freeze request", errors: issuesOf(parsed.error, body) }, 400);
    try {
      return c.json(await context.freeze(parsed.data));
    } catch (error) {
      if (error instanceof InputError)
        return c.json({ error: error.message, errors: error.issues }, 409);
      return c.json({ error: messageOf(error) }, 500);
    }
  });
  app.get(
    "/ws",
    upgradeWebSocket(() => ({
      onOpen: (_event, ws) => context.accept(ws.raw as WebSocket),
    })),
  );
  return app;
}
