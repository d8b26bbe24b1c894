/** A binary min-heap of numbers: orders that re-file an item under a new key push it again. */
export class MinHeap {
  #items: number[] = [];

  /** How many entries it holds. */
  get size(): number {
    return this.#items.length;
  }

  /** The smallest entry (undefined when empty). */
  peek(): number {
    return this.#items[0] as number;
  }

  /** Adds an entry. */
  push(value: number): void {
    const items = this.#items;
    let at = items.length;
    items.push(value);
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[at] = items[parent] as number;
      at = parent;
    }
    items[at] = value;
  }

  /** Removes the smallest entry. */
  pop(): void {
    const items = this.#items;
    const last = items.pop() as number;
    if (items.length === 0) return;
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= items.length) break;
      const right = left + 1;
      const child =
        right < items.length && (items[right] as number) < (items[left] as number) ? right : left;
      if ((items[child] as number) >= last) break;
      items[at] = items[child] as number;
      at = child;
    }
    items[at] = last;
  }
}
