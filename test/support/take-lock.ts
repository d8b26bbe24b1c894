// Takes the output lock at argv[2] in a process of its own, holds it 800 ms, and prints what it got.
import { OutputLock } from "../../env/output-lock.ts";

try {
  const lock = await OutputLock.take(process.argv[2] as string, "out.jsonl");
  await new Promise((resolve) => setTimeout(resolve, 800));
  await lock.release();
  process.stdout.write("held");
} catch {
  process.stdout.write("refused");
}
