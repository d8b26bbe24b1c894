import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, type LazyCommand } from "../../bin/rehearse.ts";
import { rehearse } from "../support/cli.ts";

/** The command's required flags, each with a value: commander asks for them before it looks at unknown ones. */
async function requiredFlags(entry: LazyCommand): Promise<string[]> {
  const program = new Command();
  (await entry.load())(
    program,
    { out: () => {}, err: () => {}, onInterrupt: () => () => {} },
    () => {},
  );
  const options = program.commands[0]?.options ?? [];
  return options
    .filter((option) => option.mandatory)
    .flatMap((option) => [option.long as string, "x"]);
}

describe("every command's help and refusals", () => {
  it("has a table of commands to check", () => {
    expect(COMMANDS.map((command) => command.name)).toEqual(
      expect.arrayContaining(["simulate", "grade", "replay", "plan", "serve", "export", "merge"]),
    );
  });

  for (const entry of COMMANDS) {
    const { name, usage } = entry;
    it(`${name} --help exits 0 with its usage and an example of itself`, async () => {
      const help = await rehearse(name, "--help");
      expect(help).toMatchObject({ code: 0, stderr: "" });
      expect(help.stdout.startsWith(`Usage: rehearse ${name} ${usage}\n`)).toBe(true);
      expect(help.stdout).toMatch(new RegExp(`\\nExample:\\n  rehearse ${name} \\S`));
    });

    it(`${name} refuses an unknown flag with exit 2 and one line naming it`, async () => {
      const run = await rehearse(name, ...(await requiredFlags(entry)), "--no-such-flag");
      expect(run).toMatchObject({ code: 2, stdout: "" });
      expect(run.stderr).toBe("error: unknown option '--no-such-flag'\n");
    });
  }
});
