import { z } from "zod";
import { AgentSpecSchema, ToolDefinitionSchema } from "./agent.ts";
import { DatasetMetaSchema } from "./dataset.ts";
import { ObservationSchema, ResetRequestSchema, StepResultSchema } from "./episode.ts";
import { GradeReportSchema, GradeSchema, LabelSchema } from "./grade.ts";
import { AssistantMessageSchema } from "./messages.ts";
import { RowSchema } from "./row.ts";
import { CoverageSchema, SituationSchema } from "./situation.ts";
import { WorldSnapshotSchema, WorldStateSchema } from "./world.ts";

/** Every top-level contract, by the file name its JSON Schema is written under. */
export const TOP_LEVEL_CONTRACTS = {
  "agent-spec": AgentSpecSchema,
  "tool-definition": ToolDefinitionSchema,
  situation: SituationSchema,
  coverage: CoverageSchema,
  "world-state": WorldStateSchema,
  "world-snapshot": WorldSnapshotSchema,
  row: RowSchema,
  "dataset-meta": DatasetMetaSchema,
  "assistant-message": AssistantMessageSchema,
  "reset-request": ResetRequestSchema,
  observation: ObservationSchema,
  "step-result": StepResultSchema,
  grade: GradeSchema,
  "grade-report": GradeReportSchema,
  label: LabelSchema,
} as const;

/** JSON Schemas (draft 2020-12) for every top-level contract, generated from the zod schemas. */
export function jsonSchemas(): Record<keyof typeof TOP_LEVEL_CONTRACTS, unknown> {
  const out = {} as Record<keyof typeof TOP_LEVEL_CONTRACTS, unknown>;
  for (const [name, schema] of Object.entries(TOP_LEVEL_CONTRACTS)) {
    out[name as keyof typeof TOP_LEVEL_CONTRACTS] = z.toJSONSchema(schema, { io: "input" });
  }
  return out;
}
