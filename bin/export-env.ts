import { loadDataset, shownPath } from "../env/index.ts";
import { checkEnvironmentOutput, exportEnvironment } from "../exporters/index.ts";
import { EnvironmentExportCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { optionsFrom } from "./options.ts";

/** `rehearse export env`: a graded dataset as an installable verifiers environment package. */
export async function exportEnvCommand(flags: Record<string, unknown>, io: Io): Promise<number> {
  const {
    in: input,
    out,
    grader,
    noBand,
    ...rest
  } = optionsFrom(
    EnvironmentExportCommandOptionsSchema,
    {
      ...flags,
      noBand: flags.band === false ? true : undefined,
      band: typeof flags.band === "string" ? flags.band : undefined,
    },
    "export env",
  );
  await checkEnvironmentOutput(out, { overwrite: rest.overwrite === true, style: "flags" });
  const exported = await exportEnvironment(await loadDataset(input), out, {
    ...rest,
    ...(noBand ? { band: null } : {}),
    ...(grader ? { reward: { grader } } : {}),
  });
  const left = exported.left_out;
  io.out(
    flags.json
      ? `${JSON.stringify(exported, null, 2)}\n`
      : [
          `wrote     verifiers environment ${exported.id} to ${shownPath(exported.path)}`,
          `tasks     ${exported.tasks.train} train, ${exported.tasks.holdout} holdout (of ${exported.situations} situations)`,
          `left out  ${left.below_band} below the band, ${left.above_band} above it, ${left.ungraded} ungraded, ${left.eval_split} of the eval split`,
          `serve     rehearse serve --spec ${shownPath(`${exported.path}/spec.json`)} (see its README)`,
          "",
        ].join("\n"),
  );
  return EXIT.ok;
}
