/**
 * The engine's front door: everything outside env/ (exporters, server, CLI) imports from here.
 * Plan situations, build worlds, run episodes (in process with `simulate`, or one at a time with
 * `Episode` and `rollout`), and grade rows.
 *
 * @example
 * import { Agent, Episode, rollout, OfflineAgent, planSituations } from "./env/index.ts";
 * const agent = await Agent.load("examples/retail-orders.json");
 * const [situation] = planSituations(agent, { rows: 1, seed: 7 }).cells;
 * const episode = new Episode({ spec: agent, situation });
 * const { last } = await rollout(episode, new OfflineAgent().start(agent, situation.seed));
 * console.log(last.reward, episode.reward().checks);
 *
 * @module
 */
export { Agent } from "./agent.ts";
export { type Axes, type AxisValue, NO_RULE } from "./axes.ts";
export { type Backend, familyOf, parseBackend } from "./backends/backend.ts";
export { PairwiseCounter } from "./coverage.ts";
export {
  type CoveringArray,
  type CoveringOptions,
  type CoveringProblem,
  coveringArray,
  type ValuePair,
} from "./covering/index.ts";
export { Dataset, loadDataset } from "./dataset.ts";
export {
  type AskCoverage,
  type BehaviourRule,
  behaviourOf,
  behaviourRule,
  type CoverageGap,
  type CoverageGapOptions,
  chooseTemplate,
  coverageGap,
  DRAFT_TEMPLATES,
  type Draft,
  type DraftOptions,
  type DraftTemplate,
  draftAgent,
} from "./draft/index.ts";
export {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TOOL_CALLS,
  Episode,
  EpisodeError,
  type EpisodeOptions,
} from "./episode.ts";
export {
  attachLabels,
  calibrationStamp,
  judgeAgreement,
  PASS_THRESHOLD,
} from "./grade/agreement.ts";
export { conductChecks } from "./grade/conduct.ts";
export { DECISION_UNSURE_BAND, decisionJudge } from "./grade/decision.ts";
export { audit, type GradeOptions, type Grader, gradeRows } from "./grade/grade.ts";
export { graderFrom } from "./grade/grader-module.ts";
export { DEFAULT_RUBRIC, JUDGE_VERSION, judgeIdentity } from "./grade/identity.ts";
export { llmGrade, pairwiseJudge, rubricJudge } from "./grade/judges.ts";
export { type GradedRow, gradeReport, passHatK } from "./grade/report.ts";
export { simulatorChecks } from "./grade/simulator.ts";
export { checkDatasetOutput, type DatasetOutputCheck, datasetPaths } from "./jsonl.ts";
export { type MergeOptions, mergeShards } from "./merge.ts";
export { END_MARKERS, userBrief } from "./people/brief.ts";
export { type Persona, samplePersona } from "./people/persona.ts";
export {
  describePlan,
  type FlipReport,
  MAX_LISTED_SITUATIONS,
  type Plan,
  Planner,
  type PlanSummary,
  planSituations,
  situationId,
  type WalkSummary,
} from "./plan.ts";
export { QualityTally, touchedSituation } from "./quality.ts";
export {
  firstDifference,
  type ReplayOptions,
  type RowDifference,
  type RowReplay,
  replayRow,
} from "./replay.ts";
export { Rng, type Seed } from "./rng.ts";
export { assignRoles, FallbackWriter, type RoleChoices, type Roles } from "./roles/assign.ts";
export { ModelAgent } from "./roles/model-agent.ts";
export { ModelUser } from "./roles/model-user.ts";
export { ModelWriter } from "./roles/model-writer.ts";
export { OfflineAgent } from "./roles/offline-agent.ts";
export { offlineUser } from "./roles/offline-user.ts";
export { OfflineWriter } from "./roles/offline-writer.ts";
export type {
  AgentPolicy,
  AgentSession,
  AgentTurn,
  EpisodeSetup,
  Opening,
  SituationWriter,
  UserSession,
  UserSimulator,
  UserTurn,
} from "./roles/types.ts";
export { playEpisode, type RolloutResult, rollout } from "./rollout.ts";
export { rowJson } from "./row-json.ts";
export { type BudgetEntry, type TraceBudget, traceBudget } from "./search/budget.ts";
export {
  type BatchReport,
  type MutationRecord,
  type SearchOptions,
  type SearchResult,
  searchFailures,
} from "./search/loop.ts";
export { type Mutation, mutations } from "./search/mutate.ts";
export {
  type SimulateOptions,
  SimulationInterrupted,
  simulate,
  WORKER_MIN_EPISODES,
} from "./simulate.ts";
export {
  oneSituation,
  reseeded,
  SituationPool,
  type SituationSource,
  splitOf,
} from "./situations.ts";
export {
  conditionOf,
  coordinateOfCalls,
  type IngestedTraces,
  type IngestOptions,
  ingestTraces,
  keyOf,
  tracePicture,
  wilson,
  worldOf,
} from "./traces/index.ts";
export * from "./training.ts";
export {
  BackendError,
  InputError,
  type InputIssue,
  issuesOf,
  messageOf,
  SpecError,
} from "./util/errors.ts";
export {
  checkOutputFolder,
  checkOutputPath,
  makeFolder,
  type OutputCheck,
  readJsonFile,
  readTextFile,
  reasonOf,
  shownPath,
  writeFileAtomic,
  writeFilesAtomic,
} from "./util/files.ts";
export { canonicalJson, sha256 } from "./util/hash.ts";
export { onLongWork, stillWorking } from "./util/long-work.ts";
export { threadModule } from "./workers/module.ts";
export { defaultWorkers } from "./workers/pool.ts";
export { createWorld, type ToolAnswer, World, type WorldOptions } from "./world/index.ts";
