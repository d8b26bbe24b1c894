import { readdirSync, statSync } from "node:fs";
import { Agent } from "../../../env/agent.ts";
import { simulate } from "../../../env/simulate.ts";
import type { Quality, Row } from "../../../spec/index.ts";

/**
 * The offline runs of the corpus that the roles' checks read, simulated once per worker: vitest's
 * workers keep this module from one file to the next (isolate: false), so files that read the same
 * spec in one worker share its run.
 */

/** The specs written apart from the examples (DESIGN §16), whose runs the quality table measures. */
export const SPECS = "test/fixtures/specs/";
/** Every spec of the corpus: the examples and the fixture specs. */
export const CORPUS = [
  ...readdirSync("examples")
    .filter((f) => f.endsWith(".json"))
    .map((f) => `examples/${f}`),
  ...readdirSync(SPECS)
    .filter((f) => f.endsWith(".json"))
    .map((f) => `${SPECS}${f}`),
].sort();

export const RETAIL = "examples/retail-orders.json";
export const FINANCE = "examples/personal-finance.json";
export const HELPDESK = "examples/it-helpdesk.json";
export const HOTEL = `${SPECS}hotel.json`;

/** Rows simulated per corpus spec, shared by every check that reads a run (≥ 300, ≥ 500 for openings). */
export const ROWS = 500;
/** The work of the roles' other checks, in bytes of spec: about what a fixture spec's run costs. */
const OTHER_CHECKS = 40_000;
export const HEAVY = 150_000;

/**
 * The corpus in two parts of about equal work, each checked by a file of its own so that two
 * workers share the simulation. The second part is checked beside the roles' other checks, which
 * read runs of the retail, finance, helpdesk and hotel specs: it holds those (their runs are made
 * once), and a share of work for the other checks; the other specs go, largest first, to the part
 * with less (a spec's size stands for the work of simulating it).
 */
export const CORPUS_PARTS: [string[], string[]] = (() => {
  const size = (path: string) => statSync(path).size;
  const parts: [string[], string[]] = [[], [RETAIL, FINANCE, HELPDESK, HOTEL]];
  const work = [0, parts[1].reduce((sum, path) => sum + size(path), OTHER_CHECKS)];
  const rest = CORPUS.filter((path) => !parts[1].includes(path));
  for (const path of rest.sort((a, b) => size(b) - size(a) || a.localeCompare(b))) {
    const part = (work[0] as number) <= (work[1] as number) ? 0 : 1;
    parts[part].push(path);
    work[part] = (work[part] as number) + size(path);
  }
  return [parts[0].sort(), parts[1].sort()];
})();

const agents = new Map<string, Promise<Agent>>();
/** A spec's agent, loaded once. */
export const agentOf = (path: string): Promise<Agent> => {
  let agent = agents.get(path);
  if (!agent) {
    agent = Agent.load(path);
    agents.set(path, agent);
  }
  return agent;
};

/** What a run yields for the checks: its rows, and its own measures of them. */
export interface Run {
  rows: Row[];
  quality: Quality | null;
  warnings: string[];
}

const runs = new Map<string, Promise<Run>>();
/**
 * One offline run of a spec, simulated once and shared between tests: the roles' checks and the
 * quality table read the same rows, so the corpus is simulated once.
 */
export const runOf = (path: string, slipRate?: number, rows = ROWS): Promise<Run> => {
  const key = `${path} ${slipRate ?? "default"} ${rows}`;
  let run = runs.get(key);
  if (!run) {
    run = simulate(path, { rows, ...(slipRate === undefined ? {} : { slipRate }) }).then(
      async (data) => ({ rows: await data.rows(), quality: data.quality, warnings: data.warnings }),
    );
    runs.set(key, run);
  }
  return run;
};
/** The rows of one offline run of a spec (see {@link runOf}). */
export const rowsOf = async (path: string, slipRate?: number, rows = ROWS): Promise<Row[]> =>
  (await runOf(path, slipRate, rows)).rows;

/** The first message of the conversation proper (after any earlier contact). */
export const startOf = (row: Row) => 1 + row.episode.history_turns;

/** The index of the person's last message before message `i` (in the conversation proper), or -1. */
export const lastUserBefore = (row: Row, i: number): number => {
  for (let j = i - 1; j >= startOf(row); j--) if (row.messages[j]?.role === "user") return j;
  return -1;
};

/**
 * Whether a deliberate slip accounts for the agent's message `i`: recorded on it, or on an earlier
 * message since the person last spoke (the same slipped call made again after a timeout).
 */
export const slipCovers = (row: Row, i: number): boolean => {
  const since = lastUserBefore(row, i);
  return row.episode.slips.some((s) => s.message > since && s.message <= i);
};

/** The first few cases and their count, for a failure message that shows them. */
export const summary = <T>(cases: T[]) => ({ count: cases.length, first: cases.slice(0, 5) });
export const none = { count: 0, first: [] };

/** Every string inside a value, through lists and objects. */
export function strings(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(strings);
  return typeof value === "string" ? [value] : [];
}
