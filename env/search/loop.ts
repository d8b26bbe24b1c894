import type { Row, Situation } from "../../spec/index.ts";
import type { Agent } from "../agent.ts";
import { PASS_THRESHOLD } from "../grade/agreement.ts";
import { type Grader, gradeRows } from "../grade/grade.ts";
import { Rng, type Seed } from "../rng.ts";
import { type Mutation, mutations } from "./mutate.ts";

/** A mutation as the dataset records it: parent → child, the axis moved, and both outcomes. */
export interface MutationRecord {
  parent: string;
  child: string;
  axis: string;
  from: string;
  to: string;
  parent_reward: number;
  child_reward: number | null;
}

/** What one batch was: its rows, how many were mutations, and how many failed the grader. */
export interface BatchReport {
  rows: number;
  mutations: number;
  failing: number;
}

/** What the search did: its rows in the order run, every mutation with its outcome, each batch's figures. */
export interface SearchResult {
  rows: Row[];
  mutations: MutationRecord[];
  batches: BatchReport[];
}

/** Options of the failure search. */
export interface SearchOptions {
  agent: Agent;
  /** Situations of the plain walk, in plan order: what a batch is filled with when no mutation waits. */
  grid: Iterable<Situation>;
  rows: number;
  batch: number;
  grader: Grader;
  /** Runs situations to rows (simulate's own episode runner). */
  run: (situations: readonly Situation[]) => Promise<Row[]>;
  /** Children made of each failing row's situation. */
  children?: number;
  seed?: Seed;
}

/**
 * Spends rows where the customer's grader finds failures: each batch is graded, each failing
 * situation is mutated one axis at a time, and the mutations run first in the next batch (the
 * rest of a batch follows the plain walk). This aims at failures of wording too, which no trigger
 * in the world marks: a failing stance or history keeps failing in its children that move other
 * axes. Every mutation is recorded with its parent's and its own reward.
 */
export async function searchFailures(options: SearchOptions): Promise<SearchResult> {
  const { agent, rows, batch, grader, run } = options;
  const children = options.children ?? 3;
  const rng = new Rng(options.seed ?? 0, "search");
  const walk = options.grid[Symbol.iterator]();
  const waiting: Mutation[] = [];
  const seen = new Set<string>();
  const result: SearchResult = { rows: [], mutations: [], batches: [] };
  const records = new Map<string, MutationRecord>();
  while (result.rows.length < rows) {
    const size = Math.min(batch, rows - result.rows.length);
    const chosen: Situation[] = [];
    let mutated = 0;
    while (chosen.length < size && waiting.length > 0) {
      const next = waiting.shift() as Mutation;
      if (seen.has(next.child.id)) continue;
      seen.add(next.child.id);
      chosen.push(next.child);
      mutated++;
    }
    while (chosen.length < size) {
      const next = walk.next();
      if (next.done) break;
      if (seen.has(next.value.id)) continue;
      seen.add(next.value.id);
      chosen.push(next.value);
    }
    if (chosen.length === 0) break;
    const made = await run(chosen);
    // The rows are graded as `data.grade` grades them: stamped, a grader's error kept on its row.
    await gradeRows(made, { grader });
    let failing = 0;
    for (const [n, row] of made.entries()) {
      const record = records.get(row.task_id);
      if (record) record.child_reward = row.reward ?? null;
      if (row.reward === undefined) continue;
      const grade = { reward: row.reward };
      if (grade.reward >= PASS_THRESHOLD) continue;
      failing++;
      for (const mutation of mutations(
        agent,
        chosen[n] as Situation,
        children,
        rng.fork(row.task_id),
      )) {
        waiting.push(mutation);
        const entry: MutationRecord = {
          parent: mutation.parent.id,
          child: mutation.child.id,
          axis: mutation.axis,
          from: mutation.from,
          to: mutation.to,
          parent_reward: grade.reward,
          child_reward: null,
        };
        records.set(mutation.child.id, entry);
        result.mutations.push(entry);
      }
    }
    result.rows.push(...made);
    result.batches.push({ rows: made.length, mutations: mutated, failing });
  }
  return result;
}
