import { z } from "zod";
import { ConditionKindSchema, WorldKindSchema } from "./axes.ts";

/** A fault scheduled on the situation's tool by the `condition` axis, and when it fired. */
export const FaultSchema = z.object({
  tool: z.string(),
  kind: ConditionKindSchema.exclude(["ok"]),
  /** The call of this tool (1 = first) at which the fault fires. */
  at_call: z.int().min(1),
  /** A persistent fault (permission_denied) answers every later call of the tool too. */
  persistent: z.boolean(),
  /** Calls of the tool (1-based) that the fault answered. */
  fired: z.array(z.int().min(1)),
});
export type Fault = z.infer<typeof FaultSchema>;

/** One stored record: flat JSON fields, its id under the entity's id field. */
export const WorldRecordSchema = z.record(z.string(), z.unknown());
export type WorldRecord = z.infer<typeof WorldRecordSchema>;

/** What the person holds: their identity, the identifiers they can quote, and what they are after. */
export const PersonDetailsSchema = z.object({
  name: z.string(),
  email: z.string(),
  phone: z.string(),
  /** Identifier parameters the person can give, by parameter name (a wrong one where the world axis says so). */
  ids: z.record(z.string(), z.string()),
  /** A plain description of the record the request is about, for a person who does not quote ids. */
  about: z.string(),
  /** Facts the person believes, which may disagree with the world (a total, a balance), by field. */
  claims: z.record(z.string(), z.unknown()),
  /** Identifiers the person hesitates between, by parameter, where two records fit what they mean. */
  candidates: z.record(z.string(), z.array(z.string())),
  /**
   * Every other detail the person can state about themselves, by field, as they would say it:
   * `first_name`, `last_name`, `date_of_birth`, `zip`, `address`, and any detail their own record
   * is looked up by (a membership number). Wrong only where the world axis says so.
   */
  details: z.record(z.string(), z.string()),
});
export type PersonDetails = z.infer<typeof PersonDetailsSchema>;

/** The world as a row records it: which axis value shaped it, the subject and what was done to it. */
export const WorldStateSchema = z.object({
  world: WorldKindSchema,
  person: z.object({ customer_id: z.string(), name: z.string(), email: z.string() }),
  subject: z.object({
    entity: z.string(),
    /** The identifier the person holds for it, if any. */
    id: z.string().nullable(),
    /** Whether that identifier names a stored record. */
    exists: z.boolean(),
    status: z.string().nullable(),
  }),
  /** What the world axis did, in words and ids: the missing id, the duplicate, the conflicting field… */
  shaped: z.record(z.string(), z.unknown()),
  /** Stored records per collection. */
  records: z.record(z.string(), z.int().min(0)),
});
export type WorldState = z.infer<typeof WorldStateSchema>;

/** Everything needed to rebuild a world exactly where it was: records, counters, calls and faults. */
export const WorldSnapshotSchema = z.object({
  version: z.literal(1),
  spec_hash: z.string(),
  situation_id: z.string(),
  seed: z.int().min(0),
  collections: z.record(z.string(), z.array(WorldRecordSchema)),
  created: z.int().min(0),
  calls: z.record(z.string(), z.int().min(0)),
  faults: z.array(FaultSchema),
  handed_off: z.boolean(),
  state: WorldStateSchema,
  person: PersonDetailsSchema,
});
export type WorldSnapshot = z.infer<typeof WorldSnapshotSchema>;
