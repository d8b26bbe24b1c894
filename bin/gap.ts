import type { Command } from "commander";
import { Agent, type CoverageGap, coverageGap, readTextFile } from "../env/index.ts";
import { type BackendSpec, GapCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { backend, optionsFrom } from "./options.ts";

/** `rehearse gap`: what the agent's policy and tools leave uncovered, given example asks. */
export function gapCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("gap")
    .description(
      "given example user asks, report which asks no tool serves, which tools no ask reaches, which asks the rules say nothing about, and which rules no situation would test",
    )
    .argument("[asks...]", "example asks, each one argument (or --asks <file>)")
    .requiredOption("--spec <file>", "the agent spec: its tools, system prompt and policy")
    .option("--asks <file>", "a file of example asks, one per line")
    .option(
      "--judge <backend>",
      "ask a model instead of matching words (stamped like any judge)",
      backend,
    )
    .option("--json", "print the report as JSON")
    .addHelpText(
      "after",
      '\nExample:\n  rehearse gap --spec agent.json "Where is my parcel?" "Do you price match?"\n',
    )
    .action(async (given: string[], flags: Record<string, unknown>) => {
      const options = optionsFrom(GapCommandOptionsSchema, flags, "gap");
      const fromFile = options.asks ? (await readTextFile(options.asks, "--asks")).split("\n") : [];
      const agent = await Agent.load(options.spec);
      const gap = await coverageGap([...given, ...fromFile], {
        tools: [...agent.spec.tools],
        systemPrompt: agent.system_prompt,
        policy: agent.spec.policy,
        ...(flags.judge ? { judge: flags.judge as BackendSpec } : {}),
      });
      io.out(flags.json ? `${JSON.stringify(gap, null, 2)}\n` : printed(gap));
      done(EXIT.ok);
    });
}

function printed(gap: CoverageGap): string {
  const list = (items: string[]) =>
    items.length === 0 ? "none" : items.map((item) => `"${item}"`).join(", ");
  return [
    ...gap.asks.map(
      (entry) =>
        `ask       "${entry.ask}" → ${entry.tools.join(", ") || "no tool"}; rules: ${entry.rules.join(", ") || "none"}`,
    ),
    "",
    `unserved  ${list(gap.unserved_asks)}`,
    `unreached ${gap.unreached_tools.join(", ") || "none"}`,
    `unruled   ${list(gap.unruled_asks)}`,
    `untested  ${gap.untested_rules.map((rule) => `${rule.rule} (${rule.why})`).join("; ") || "none"}`,
    `judge     ${gap.judge_meta.model ?? "offline"} (${gap.judge_meta.judge}@${gap.judge_meta.version})`,
    "",
  ].join("\n");
}
