// Takes the output lock at argv[2] in a process of its own and prints what it got; a holder keeps
// the lock until its stdin ends, so that every taker has tried while it is held.
import { OutputLock } from "../../env/output-lock.ts";

let lock: OutputLock | null = null;
try {
  lock = await OutputLock.take(process.argv[2] as string, "out.jsonl");
  process.stdout.write("held");
} catch {
  process.stdout.write("refused");
}
process.stdin.resume();
process.stdin.on("end", async () => {
  await lock?.release();
  process.exit(0);
});
