import { hash } from "node:crypto";

/** What is left to write: a value (under its key, for `toJSON`), text, or the end of a container. */
type Task =
  | { kind: "value"; key: string; value: unknown; converted?: boolean }
  | { kind: "text"; text: string }
  | { kind: "leave"; container: object };

/**
 * JSON with object keys sorted at every depth, so equal values always serialise the same. It
 * writes what `JSON.stringify` writes, but walks the value with a stack of its own: a value nested
 * thousands of levels deep serialises instead of overflowing the call stack.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const open = new Set<object>();
  const tasks: Task[] = [{ kind: "value", key: "", value }];
  for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
    if (task.kind === "text") {
      out.push(task.text);
      continue;
    }
    if (task.kind === "leave") {
      open.delete(task.container);
      continue;
    }
    const v = task.converted ? task.value : jsonValue(task.key, task.value);
    if (v === null || typeof v !== "object") {
      out.push(primitive(v) ?? "null");
      continue;
    }
    if (open.has(v)) throw new TypeError("Converting circular structure to JSON");
    open.add(v);
    // Tasks run last-in first-out: the closing bracket goes on first, the first member last.
    tasks.push({ kind: "leave", container: v });
    if (Array.isArray(v)) {
      tasks.push({ kind: "text", text: "]" });
      for (let i = v.length - 1; i >= 0; i--) {
        tasks.push({ kind: "value", key: String(i), value: v[i] });
        if (i > 0) tasks.push({ kind: "text", text: "," });
      }
      out.push("[");
      continue;
    }
    const members: Task[] = [];
    for (const key of sortedKeys(v)) {
      const member = jsonValue(key, (v as Record<string, unknown>)[key]);
      if (member === undefined || typeof member === "function" || typeof member === "symbol")
        continue;
      if (members.length > 0) members.push({ kind: "text", text: "," });
      members.push({ kind: "text", text: `${JSON.stringify(key)}:` });
      // Converted already, to know whether to skip it: `toJSON` is called once, as JSON does.
      members.push({ kind: "value", key, value: member, converted: true });
    }
    tasks.push({ kind: "text", text: "}" });
    for (let i = members.length - 1; i >= 0; i--) tasks.push(members[i] as Task);
    out.push("{");
  }
  return out.join("");
}

/** A value as JSON sees it: with its `toJSON` applied (a date becomes its ISO string). */
function jsonValue(key: string, value: unknown): unknown {
  if (value !== null && typeof value === "object" && "toJSON" in value)
    if (typeof value.toJSON === "function") return value.toJSON(key);
  return value;
}

/** An array index as an object key: JavaScript lists such keys first, in numeric order. */
const INDEX = /^(?:0|[1-9]\d{0,9})$/;

/**
 * An object's keys in the order the hashes were first made with: sorted, then laid out as an
 * object lays its keys out (array indices first, by number), so every existing hash holds.
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value).sort();
  const indices = keys.filter((k) => INDEX.test(k) && Number(k) < 2 ** 32 - 1);
  if (indices.length === 0) return keys;
  const rest = keys.filter((k) => !indices.includes(k));
  return [...indices.sort((a, b) => Number(a) - Number(b)), ...rest];
}

/** A primitive's JSON text; undefined for what JSON leaves out (undefined, functions, symbols). */
function primitive(value: unknown): string | undefined {
  if (typeof value === "bigint") throw new TypeError("Do not know how to serialize a BigInt");
  return JSON.stringify(value);
}

/** Hex SHA-256 of a string (one-shot: a third of a hash object's cost, and every row id takes one). */
export function sha256(text: string): string {
  return hash("sha256", text, "hex");
}

/** A 32-bit FNV-1a hash of a string: a quick, stable fingerprint, not a secure one. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
