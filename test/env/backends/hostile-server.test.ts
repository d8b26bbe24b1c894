import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBackend } from "../../../env/backends/backend.ts";
import { boundedFetch } from "../../../env/backends/bounded-fetch.ts";
import { ChatClient } from "../../../env/backends/chat.ts";

/** A model server written for these tests: each path is one way of misbehaving. */
const routes: Record<string, (request: IncomingMessage, response: ServerResponse) => void> = {
  "/big": (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end("x".repeat(10_000));
  },
  "/bomb/v1/chat/completions": (_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    response.end(gzipSync(Buffer.alloc(80 << 20)));
  },
  "/bomb": (_request, response) => {
    response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    response.end(gzipSync(Buffer.alloc(20 << 20)));
  },
  "/trickle/v1/chat/completions": (_request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    const drip = setInterval(() => response.write(" "), 50);
    response.on("close", () => clearInterval(drip));
  },
  "/wait": (_request, response) => {
    response.writeHead(429, { "retry-after": "3600", "retry-after-ms": "999999999" });
    response.end("{}");
  },
  "/echo/v1/chat/completions": (request, response) => {
    response.writeHead(401, { "content-type": "application/json" });
    response.end(
      JSON.stringify({ error: { message: `bad key ${request.headers.authorization}` } }),
    );
  },
};

let server: Server;
let base = "";
beforeAll(async () => {
  server = createServer((request, response) => {
    const route = routes[request.url ?? ""];
    if (route) route(request, response);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a model server's reply is bounded", () => {
  it("in bytes: a body over the cap is cut off unread, and so is a gzip body that inflates past it", async () => {
    await expect(boundedFetch(5_000, 1024)(`${base}/big`)).rejects.toThrow(
      "the reply is over 1024 bytes: it was cut off unread",
    );
    // 20 MiB of zeros sent as 20 KB of gzip: the cap counts the bytes as decoded.
    await expect(boundedFetch(5_000, 1 << 20)(`${base}/bomb`)).rejects.toThrow(
      `the reply is over ${1 << 20} bytes`,
    );
  });

  it("in time: a body that trickles forever is cut at the deadline, headers or not", async () => {
    await expect(boundedFetch(300)(`${base}/trickle/v1/chat/completions`)).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("holds a wait the server asks for (retry-after, retry-after-ms) to the deadline", async () => {
    const response = await boundedFetch(1_500)(`${base}/wait`);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(response.headers.get("retry-after-ms")).toBe("1500");
  });
});

describe("ChatClient against a hostile server", () => {
  it("ends a call whose body never finishes at the backend's timeout", async () => {
    const client = new ChatClient(
      parseBackend(
        {
          provider: "openai-compatible",
          model: "m",
          baseURL: `${base}/trickle/v1`,
          timeout_ms: 300,
          max_retries: 0,
        },
        "agent",
      ),
      "agent",
    );
    await expect(client.complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
      /m@http/,
    );
  }, 10_000);

  it("says a reply over the cap was cut off, not only that the connection failed", async () => {
    const client = new ChatClient(
      parseBackend(
        { provider: "openai-compatible", model: "m", baseURL: `${base}/bomb/v1`, max_retries: 0 },
        "agent",
      ),
      "agent",
    );
    await expect(client.complete({ messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
      /m@http.*: Connection error\. \(the reply is over \d+ bytes: it was cut off unread\)/,
    );
  });

  it("blanks out its API key from what the server said", async () => {
    process.env.REHEARSE_TEST_KEY = "sk-live-SECRET-abc123";
    try {
      const backend = parseBackend(
        {
          provider: "openai-compatible",
          model: "m",
          baseURL: `${base}/echo/v1`,
          apiKeyEnv: "REHEARSE_TEST_KEY",
          max_retries: 0,
        },
        "agent",
      );
      const error = await new ChatClient(backend, "agent")
        .complete({ messages: [{ role: "user", content: "hi" }] })
        .catch((e: Error) => e);
      expect(String(error)).toMatch(/bad key Bearer \[redacted\]/);
      expect(String(error)).not.toContain("sk-live-SECRET-abc123");
    } finally {
      delete process.env.REHEARSE_TEST_KEY;
    }
  });

  it("refuses a base URL holding a user name or password, which no call could send and rows would show", () => {
    expect(() => parseBackend("m@http://user:PROXYPASS123@127.0.0.1:9/v1", "agent")).toThrow(
      /base URL holds a user name or password, which no call can send/,
    );
  });
});
