import { MinHeap } from "./heap.ts";

/** What {@link coverageOrder} orders: each row's pairs and which of them still count. */
export interface OrderInput {
  /** The pair numbers of each row (distinct within a row). */
  pairs: readonly (readonly number[])[];
  /** 1 for every pair worth visiting. */
  target: Uint8Array;
  /** How often each pair was visited before; not changed. */
  seen: Int32Array;
  /**
   * 1 for a fault row. When given, fault rows are spread through the order in proportion: the
   * prefix of length t holds at most ⌈faults · t / rows⌉ of them while a row of another kind is left.
   */
  faults?: Uint8Array;
}

/**
 * Orders rows so that every prefix visits as many new target pairs as it can: each place takes the
 * row that adds the most unvisited target pairs, ties to the lowest row number. Gains only fall, so
 * each row sits in a heap under its gain and is re-filed when a pair it holds gets visited: the
 * order costs O(pairs · log rows) where rescanning every row for every place cost O(rows²).
 */
export function coverageOrder({ pairs, target, seen, faults }: OrderInput): number[] {
  const n = pairs.length;
  let width = 0;
  for (const row of pairs) width = Math.max(width, row.length);
  const open = (p: number) => target[p] === 1 && seen[p] === 0;
  const gain = new Int32Array(n);
  const holders = holdersOf(pairs, target, seen);
  const heaps = [new MinHeap(), new MinHeap()];
  const kind = (cell: number) => (faults?.[cell] === 1 ? 1 : 0);
  // Smaller key first: the larger gain, then the lower row.
  const key = (cell: number) => (width - (gain[cell] as number)) * n + cell;
  const taken = new Uint8Array(n);
  const visited = new Uint8Array(holders.size);
  let faultTotal = 0;
  for (let cell = 0; cell < n; cell++) {
    for (const p of pairs[cell] as readonly number[])
      if (open(p)) gain[cell] = (gain[cell] as number) + 1;
    faultTotal += kind(cell);
    (heaps[kind(cell)] as MinHeap).push(key(cell));
  }
  const spread = faults !== undefined && faultTotal > 0;
  const top = (heap: MinHeap): number => {
    // Entries filed under an older gain, or of rows already placed, are dropped as they surface.
    while (heap.size > 0) {
      const k = heap.peek();
      const cell = k % n;
      if (taken[cell] === 0 && k === key(cell)) return k;
      heap.pop();
    }
    return Number.POSITIVE_INFINITY;
  };
  const order: number[] = [];
  let faultsPlaced = 0;
  let othersLeft = n - faultTotal;
  while (order.length < n) {
    const capped =
      spread &&
      faultsPlaced + 1 > Math.ceil((faultTotal * (order.length + 1)) / n) &&
      othersLeft > 0;
    const other = top(heaps[0] as MinHeap);
    const fault = capped ? Number.POSITIVE_INFINITY : top(heaps[1] as MinHeap);
    const cell = Math.min(other, fault) % n;
    taken[cell] = 1;
    if (kind(cell) === 1) faultsPlaced++;
    else othersLeft--;
    order.push(cell);
    for (const p of pairs[cell] as readonly number[]) {
      const slot = holders.slot(p);
      if (slot < 0 || visited[slot] === 1) continue;
      visited[slot] = 1;
      for (const holder of holders.of(slot)) {
        if (taken[holder] === 1) continue;
        gain[holder] = (gain[holder] as number) - 1;
        (heaps[kind(holder)] as MinHeap).push(key(holder));
      }
    }
  }
  return order;
}

/** For every open pair some row holds, the rows that hold it (compressed, one slot per pair). */
function holdersOf(pairs: readonly (readonly number[])[], target: Uint8Array, seen: Int32Array) {
  const slotOf = new Int32Array(target.length).fill(-1);
  const counts: number[] = [];
  for (const row of pairs) {
    for (const p of row) {
      if (target[p] !== 1 || seen[p] !== 0) continue;
      if (slotOf[p] === -1) {
        slotOf[p] = counts.length;
        counts.push(0);
      }
      const slot = slotOf[p] as number;
      counts[slot] = (counts[slot] as number) + 1;
    }
  }
  const start = new Int32Array(counts.length + 1);
  for (let s = 0; s < counts.length; s++)
    start[s + 1] = (start[s] as number) + (counts[s] as number);
  const fill = start.slice(0, counts.length);
  const cells = new Int32Array(start[counts.length] as number);
  pairs.forEach((row, cell) => {
    for (const p of row) {
      const slot = slotOf[p] as number;
      if (slot < 0) continue;
      cells[fill[slot] as number] = cell;
      fill[slot] = (fill[slot] as number) + 1;
    }
  });
  return {
    size: counts.length,
    slot: (p: number) => slotOf[p] as number,
    of: (slot: number) => cells.subarray(start[slot] as number, start[slot + 1] as number),
  };
}
