import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { writeThroughTemp } from "./temp-file.ts";

/**
 * Writes records as JSON lines, streaming them as they come (waiting for the disk when its buffer
 * is full), atomically: a temp file renamed over `path` once every line is written. Returns how
 * many lines were written.
 */
export async function writeJsonl(
  path: string,
  records: AsyncIterable<unknown> | Iterable<unknown>,
): Promise<number> {
  return writeThroughTemp(path, async (temp) => {
    const stream = createWriteStream(temp, { flags: "wx" });
    let failure: Error | null = null;
    stream.on("error", (error) => {
      failure = error;
    });
    let count = 0;
    try {
      for await (const record of records) {
        if (failure) throw failure;
        if (!stream.write(`${JSON.stringify(record)}\n`)) await once(stream, "drain");
        count++;
      }
    } finally {
      stream.end();
      // Settles for a stream already closed too (one that failed to open has): `once` would wait for ever.
      await finished(stream).catch(() => {});
    }
    if (failure) throw failure;
    return count;
  });
}
