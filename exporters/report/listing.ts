import type { Row } from "../../spec/index.ts";
import { type ListedRow, listedRow, statusOf } from "./figures.ts";

/** Conversations a report lists unless told otherwise: about 8 MB of page, which a browser opens at once. */
export const LISTED_BY_DEFAULT = 2_000;

/** Which conversations a page lists: how many it holds, of how many rows, and how they were chosen. */
export interface Listing {
  rows: ListedRow[];
  /** Every row of the dataset, listed or not. */
  total: number;
  /** The rows that did not pass (failing, ungraded, simulator faults), listed or not. */
  notPassing: number;
  /** The most the page lists (`Infinity` for every row). */
  limit: number;
}

/**
 * Chooses, while the rows stream by, the conversations a page lists: every one while there are at
 * most `limit`; past it, the rows that did not pass (failing, ungraded, simulator faults: what a
 * report is opened to read) first, then passing ones, each in the dataset's order, and the chosen
 * shown in the dataset's order. Holds at most twice `limit` conversations, whatever the rows.
 */
export class ConversationListing {
  readonly #limit: number;
  readonly #flagged: [number, ListedRow][] = [];
  readonly #passing: [number, ListedRow][] = [];
  #seen = 0;
  #notPassing = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(row: Row): void {
    const at = this.#seen++;
    const passed = statusOf(row) === "pass";
    if (!passed) this.#notPassing++;
    const kept = passed ? this.#passing : this.#flagged;
    if (kept.length < this.#limit) kept.push([at, listedRow(row)]);
  }

  result(): Listing {
    const passing = this.#passing.slice(0, Math.max(0, this.#limit - this.#flagged.length));
    const rows = [...this.#flagged, ...passing].sort((a, b) => a[0] - b[0]).map(([, row]) => row);
    return { rows, total: this.#seen, notPassing: this.#notPassing, limit: this.#limit };
  }
}

/** Reads a count of conversations to list as written on a command line or in a query: a whole number, or `all`; null if it is neither. */
export function conversationsOf(text: string): number | null {
  const trimmed = text.trim();
  if (trimmed === "all") return Number.POSITIVE_INFINITY;
  return /^\d+$/.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? Number(trimmed) : null;
}
