import type { Command } from "commander";
import { Agent } from "../env/index.ts";
import { serve } from "../server/index.ts";
import { DEFAULTS, SERVE_DEFAULTS, ServeOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { reportingLongWork } from "./long-work.ts";
import { number, optionsFrom, seed } from "./options.ts";

/** The flags as commander parsed them: the plain options unchecked, the spec and grader paths. */
interface ServeFlags extends Record<string, unknown> {
  spec: string;
  grader?: string;
}

/** The environment variable the token may come from, so it stays out of the process list. */
export const TOKEN_VARIABLE = "REHEARSE_TOKEN";

/** `rehearse serve`: serves the spec's episodes live over WebSocket until Ctrl-C or SIGTERM. */
export function serveCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("serve")
    .description(
      "serve the agent's episodes live over WebSocket (OpenEnv's envelope) for on-policy RL trainers",
    )
    .requiredOption("--spec <file>", "agent spec (JSON)")
    .option(
      "--port <n>",
      `port to listen on, 0 for any free one (default ${SERVE_DEFAULTS.port})`,
      number,
    )
    .option("--host <host>", `address to listen on (default ${SERVE_DEFAULTS.host})`)
    .option(
      "--token <token>",
      `bearer token every connection must carry (or set ${TOKEN_VARIABLE}); none means open`,
    )
    .option(
      "--max-sessions <n>",
      `sessions held at once (default ${SERVE_DEFAULTS.maxSessions})`,
      number,
    )
    .option(
      "--max-frame-bytes <n>",
      `bytes one frame may take (default ${SERVE_DEFAULTS.maxFrameBytes})`,
      number,
    )
    .option(
      "--idle-ttl <seconds>",
      `seconds a silent connection stays open and a dropped session stays resumable (default ${SERVE_DEFAULTS.idleTtl})`,
      number,
    )
    .option(
      "--step-rate <n>",
      `resets and steps a session may take per second (default ${SERVE_DEFAULTS.stepRate})`,
      number,
    )
    .option(
      "--keep-episodes <n>",
      `finished episodes kept for POST /v1/freeze (default ${SERVE_DEFAULTS.keepEpisodes})`,
      number,
    )
    .option(
      "--keep-bytes <n>",
      `bytes of finished episodes (as JSON lines) kept for POST /v1/freeze (default ${SERVE_DEFAULTS.keepBytes}: 256 MiB)`,
      number,
    )
    .option(
      "--rows <n>",
      `situations planned for resets to deal from (default ${DEFAULTS.rows})`,
      number,
    )
    .option(
      "--seed <seed>",
      `seed of the planned situations (default ${DEFAULTS.seed}, or the spec's world.seed)`,
      seed,
    )
    .option(
      "--max-turns <n>",
      `assistant messages before an episode is cut off (default ${DEFAULTS.maxTurns})`,
      number,
    )
    .option("--freeze-dir <dir>", "folder POST /v1/freeze writes datasets into (default: here)")
    .option(
      "--threads <n>",
      `engine threads that play the episodes while the main thread keeps the sockets, for more than one core (default ${SERVE_DEFAULTS.threads}: all on the main thread)`,
      number,
    )
    .option("--grader <module>", "your grader: its reward becomes each finished episode's reward")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse serve --spec examples/retail-orders.json --port 8000\n",
    )
    .action(async (flags: ServeFlags) => done(await reportingLongWork(io, () => run(flags, io))));
}

async function run(flags: ServeFlags, io: Io): Promise<number> {
  const token = (flags.token as string | undefined) ?? process.env[TOKEN_VARIABLE];
  const options = optionsFrom(
    ServeOptionsSchema,
    { ...flags, ...(token !== undefined ? { token } : {}) },
    "serve",
  );
  const agent = await Agent.load(flags.spec);
  const server = await serve(agent, {
    ...options,
    ...(flags.grader ? { grader: flags.grader } : {}),
  });
  io.out(
    `serving ${agent.name} on ${server.url} (WebSocket ${server.wsUrl}${options.token ? ", token required" : ""}${options.threads ? `, ${options.threads} engine thread${options.threads === 1 ? "" : "s"}` : ""}); Ctrl-C to stop\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = io.onInterrupt(() => {
      stop();
      resolve();
    });
  });
  io.err("stopping: finishing the steps in flight\n");
  await server.close();
  io.err("stopped\n");
  return EXIT.ok;
}
