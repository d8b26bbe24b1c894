import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { main } from "../../bin/rehearse.ts";
import { Agent, OfflineAgent, rollout } from "../../index.ts";
import { EnvClient } from "../../sdk-client/index.ts";
import { CLI, ROOT } from "../support/cli.ts";

const SPEC = "examples/retail-orders.json";

describe("rehearse serve", () => {
  it("prints the URL, serves until interrupted, then stops cleanly (in process)", async () => {
    let out = "";
    let err = "";
    let interrupt: () => void = () => {};
    let exitCode: Promise<number> = Promise.resolve(-1);
    const listening = new Promise<string>((resolve) => {
      const running = main(
        ["serve", "--spec", SPEC, "--port", "0", "--rows", "4", "--max-sessions", "8"],
        {
          out: (text) => {
            out += text;
            const url = /WebSocket (ws:\/\/\S+?)[;)]/.exec(out)?.[1];
            if (url) resolve(url);
          },
          err: (text) => {
            err += text;
          },
          onInterrupt: (stop) => {
            interrupt = stop;
            return () => {};
          },
        },
      );
      exitCode = running;
    });
    const url = await listening;
    expect(out).toMatch(/^serving retail/);
    const client = new EnvClient(url);
    const first = await client.reset();
    expect(first.done).toBe(false);
    await client.close();
    interrupt();
    expect(await exitCode).toBe(0);
    expect(err).toMatch(/stopped/);
  });

  it("refuses flags it cannot honour by name, exit code 2, before listening", async () => {
    let err = "";
    const code = await main(
      [
        "serve",
        "--spec",
        SPEC,
        "--max-sessions",
        "0",
        "--token",
        "short",
        "--port",
        "99999",
        "--keep-bytes",
        "1000",
      ],
      { out: () => {}, err: (text) => (err += text), onInterrupt: () => () => {} },
    );
    expect(code).toBe(2);
    expect(err).toMatch(/--max-sessions/);
    expect(err).toMatch(/--token/);
    expect(err).toMatch(/--port/);
    expect(err).toMatch(/--keep-bytes: expected at least 1 MiB/);
    expect(err).not.toMatch(/\n\s+at /);
  });

  it("grades on an engine thread and stops on SIGTERM as a real process, exit code 0", async () => {
    const child = spawn(
      CLI[0],
      [
        ...CLI.slice(1),
        ...["serve", "--spec", SPEC, "--port", "0", "--rows", "4", "--threads", "1"],
        ...["--grader", "examples/grader.ts"],
      ],
      {
        cwd: ROOT,
        env: { ...process.env, REHEARSE_TOKEN: "token-from-the-environment" },
      },
    );
    let out = "";
    let err = "";
    child.stderr.on("data", (chunk) => (err += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (chunk) => {
        out += chunk;
        const found = /on (http:\/\/\S+) /.exec(out)?.[1];
        if (found) resolve(found);
      });
      child.once("exit", () => reject(new Error(`exited early: ${err}`)));
    });
    expect(out).toMatch(/token required, 1 engine thread\)/);
    expect((await fetch(`${url}/metrics`)).status).toBe(401);
    const client = new EnvClient(`${url.replace("http", "ws")}/ws`, {
      token: "token-from-the-environment",
    });
    await rollout(client, new OfflineAgent().start(await Agent.load(SPEC), 1), { seed: 1 });
    expect((await client.reward()).grader?.reason).toEqual(expect.any(String));
    await client.close();
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(err).toMatch(/stopped/);
  }, 30_000);
});
