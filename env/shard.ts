/** One of `count` slices of a run's episodes: those from `first` up to (not including) `end`, in plan order. */
export interface Shard {
  index: number;
  count: number;
  first: number;
  end: number;
}

/**
 * The `index`-th of `count` contiguous slices of a run's `total` episodes (rows × rollouts), as even
 * as whole rows allow: the shards, joined in index order, are the run's rows in plan order.
 */
export function shardOf(shard: { index: number; count: number }, total: number): Shard {
  const { index, count } = shard;
  return {
    index,
    count,
    first: Math.floor((index * total) / count),
    end: Math.floor(((index + 1) * total) / count),
  };
}
