import type { Command } from "commander";
import { datasetPaths, loadDataset, shownPath } from "../env/index.ts";
import { exportDecontaminated, refuseParquetName, sidecarPath } from "../exporters/index.ts";
import { type BackendSpec, DecontaminateCommandOptionsSchema } from "../spec/index.ts";
import { EXIT, type Io } from "./io.ts";
import { backend, optionsFrom } from "./options.ts";
import { checkOutFlag } from "./out-flag.ts";

/** The flags as commander parsed them: the plain options unchecked, the embedder, the output switch. */
interface DecontaminateFlags extends Record<string, unknown> {
  embedder?: BackendSpec;
  json?: boolean;
}

/** `rehearse decontaminate`: drops the rows that leak an eval set, and says which rule caught each. */
export function decontaminateCommand(program: Command, io: Io, done: (code: number) => void): void {
  program
    .command("decontaminate")
    .description(
      "remove rows that leak an eval set (same task id, same text, an 8-word n-gram near copy, and with --embedder cosine ≥ 0.85); each removal is listed in <out>.export.json",
    )
    .requiredOption("--in <file>", "JSONL dataset")
    .requiredOption(
      "--eval <file>",
      "JSONL eval set: rehearse rows, or records with text or messages (and task_id to match by id)",
    )
    .requiredOption("--out <file>", "JSONL file for the rows kept")
    .option(
      "--embedder <backend>",
      'an OpenAI-compatible embeddings endpoint: "openai:<model>", "<model>@<base-url>", or a JSON object',
      backend,
    )
    .option("--overwrite", "replace --out if it exists")
    .option("--json", "print the sidecar as JSON")
    .addHelpText(
      "after",
      "\nExample:\n  rehearse decontaminate --in data.jsonl --eval eval.jsonl --out clean.jsonl\n",
    )
    .action(async (flags: DecontaminateFlags) => done(await run(flags, io)));
}

async function run(flags: DecontaminateFlags, io: Io): Promise<number> {
  const options = optionsFrom(DecontaminateCommandOptionsSchema, flags, "decontaminate");
  refuseParquetName(options.out, { what: "decontaminate flags", field: "--out" });
  await checkOutFlag(options.out, {
    what: "decontaminate flags",
    overwrite: options.overwrite === true,
    reads: [options.in, datasetPaths(options.in).meta, options.eval],
    writes: [options.out, sidecarPath(options.out)],
  });
  const data = await loadDataset(options.in);
  const sidecar = await exportDecontaminated(data, options.eval, options.out, {
    ...(flags.embedder ? { embedder: flags.embedder } : {}),
  });
  if (flags.json) {
    io.out(`${JSON.stringify(sidecar, null, 2)}\n`);
    return EXIT.ok;
  }
  const counts = sidecar.filters.map((f) => `${f.name} ${f.removed}`).join(" · ");
  io.out(
    [
      `kept      ${sidecar.rows} of ${sidecar.source.rows} rows → ${shownPath(options.out)}`,
      `removed   ${counts} (against ${sidecar.eval?.items ?? 0} eval items)`,
      ...(sidecar.removed ?? [])
        .slice(0, 5)
        .map(
          (r) =>
            `  ${r.id}: ${r.rule} matched ${r.eval_id}${r.rule === "ngram" || r.rule === "embedding" ? ` (${r.score.toFixed(3)})` : ""}`,
        ),
      `sidecar   ${shownPath(sidecarPath(options.out))} (every removed row, its rule and eval item)`,
      "",
    ].join("\n"),
  );
  return EXIT.ok;
}
