import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { modulesLoaded } from "../../bench/startup.ts";
import { COMMANDS } from "../../bin/rehearse.ts";
import { ROOT, rehearse } from "../support/cli.ts";

/** The project's own files among loaded module URLs, relative to the root (packages left out). */
const projectFiles = (urls: string[]) =>
  urls
    .filter((url) => url.startsWith(`file://${ROOT}/`) && !url.includes("/node_modules/"))
    .map((url) => url.slice(`file://${ROOT}/`.length));

const SOURCE_CLI = ["--import", "tsx", join(ROOT, "bin/rehearse.ts")];

describe("rehearse loads only the command it runs", () => {
  it("lists every command in the help as its module registers it", async () => {
    for (const entry of COMMANDS) {
      const program = new Command();
      (await entry.load())(
        program,
        { out: () => {}, err: () => {}, onInterrupt: () => () => {} },
        () => {},
      );
      const [command] = program.commands;
      // The help lists the table's words: they must be the module's own.
      const where = `COMMANDS in bin/rehearse.ts, entry ${entry.name}, against its module`;
      expect(command?.name(), where).toBe(entry.name);
      expect(command?.usage(), where).toBe(entry.usage);
      expect(command?.description(), where).toBe(entry.description);
    }
  });

  it("starts --version and --help from the sources without the engine", async () => {
    for (const flag of ["--version", "--help"])
      expect(projectFiles(await modulesLoaded([...SOURCE_CLI, flag])).sort(), flag).toEqual([
        "bin/io.ts",
        "bin/rehearse.ts",
        "package.json",
      ]);
    // The same count sees a command's module and the engine when that command runs.
    const plan = projectFiles(await modulesLoaded([...SOURCE_CLI, "plan", "--help"]));
    expect(plan).toContain("bin/plan.ts");
    expect(plan).toContain("env/index.ts");
  });

  it("loads the command for `help <command>` as for `<command> --help`", async () => {
    const help = await rehearse("help", "plan");
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await rehearse("plan", "--help")).stdout);
    expect(help.stdout).toMatch(/^Usage: rehearse plan \[options\]\n/);
  });

  it("refuses an unknown command with exit 2, naming the command it resembles", async () => {
    const run = await rehearse("simulat", "--spec", "examples/retail-orders.json");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown command 'simulat'");
    expect(run.stderr).toContain("simulate");
  });
});
