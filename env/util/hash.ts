import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth, so equal values always serialise the same. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) sorted[key] = (v as Record<string, unknown>)[key];
    return sorted;
  });
}

/** Hex SHA-256 of a string. */
export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
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
