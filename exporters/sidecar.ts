import { writeFileAtomic } from "../env/index.ts";
import pkg from "../package.json" with { type: "json" };
import type { ExportSidecar } from "../spec/index.ts";

/** Where an export's sidecar lives: beside it, named apart from a dataset's own `.meta.json`. */
export function sidecarPath(out: string): string {
  return `${out}.export.json`;
}

/** The sidecar's fields but the ones every export fills the same way. */
export type SidecarFields = Omit<ExportSidecar, "version" | "generator">;

/** Writes the sidecar of an export (atomically), saying what was exported from what and how. */
export async function writeSidecar(out: string, fields: SidecarFields): Promise<ExportSidecar> {
  const sidecar: ExportSidecar = {
    version: 1,
    generator: `rehearse ${pkg.version}`,
    ...fields,
  };
  await writeFileAtomic(sidecarPath(out), `${JSON.stringify(sidecar, null, 2)}\n`);
  return sidecar;
}
