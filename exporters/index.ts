/**
 * The training exports: turn a graded dataset into the files trainers read — SFT rows with a loss
 * mask, preference pairs, RL groups — and check it for leakage against an eval set. Each export
 * writes JSONL or Parquet atomically, with a sidecar saying what was exported from what.
 *
 * @example
 * import { loadDataset } from "../env/index.ts";
 * import { exportSft, exportPreference, exportDataset, decontaminate } from "./index.ts";
 * const data = await loadDataset("data.graded.jsonl");
 * await exportSft(data, "sft.parquet", { maskMode: "final" });
 * await exportPreference(data, "pairs.jsonl");
 * await exportDataset(data, "groups.jsonl", { k: 4 });
 * const { kept, removed } = await decontaminate(data, "eval.jsonl");
 *
 * @module
 */
export {
  type Decontaminated,
  type DecontaminateOptions,
  decontaminate,
  exportDecontaminated,
  normalised,
  refuseParquetName,
} from "./decontaminate.ts";
export { type Embedder, embedderOf } from "./embedder.ts";
export {
  checkEnvironmentOutput,
  type EnvironmentOutputCheck,
  type ExportedEnvironment,
  exportEnvironment,
} from "./environment/index.ts";
export { conversationText, type EvalSet } from "./eval-set.ts";
export {
  describeHubRepo,
  type HubRevision,
  loadFromHub,
  type PushResult,
  passRateText,
  pushToHub,
} from "./hub/index.ts";
export { writeJsonl } from "./jsonl.ts";
export { type CoverageMatch, NgramIndex, wordsOf } from "./ngram-index.ts";
export { type ParquetColumn, ROW_GROUP_ROWS, writeParquet } from "./parquet.ts";
export {
  buildPreferencePairs,
  exportPreference,
  PREFERENCE_COLUMNS,
  type PreferencePair,
  type PreferencePairs,
} from "./preference.ts";
export {
  type ReportOptions,
  renderReport,
  type WrittenReport,
  writeReport,
} from "./report/index.ts";
export { conversationsOf, LISTED_BY_DEFAULT } from "./report/listing.ts";
export {
  exportDataset,
  RL_COLUMNS,
  type RlGroup,
  type RlGroups,
  selectForRl,
} from "./rl-groups.ts";
export { exportSft, SFT_COLUMNS } from "./sft.ts";
export { sidecarPath } from "./sidecar.ts";
export type { ExportSource } from "./source.ts";
export { tokensOf } from "./tokens.ts";
