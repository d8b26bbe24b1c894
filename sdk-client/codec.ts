import { Packr } from "msgpackr";
import { type ServerMessage, ServerMessageSchema } from "../spec/index.ts";

/** How frames go over the wire: JSON text frames, or MessagePack binary frames (the same envelope). */
export type WireEncoding = "json" | "msgpack";

/**
 * Standard MessagePack, as the server and Python's `msgpack` read and write it; msgpackr's
 * shared-reference extensions are refused, as the server refuses them (a tiny frame could decode
 * into an exponentially large object).
 */
const packr = new Packr({ useRecords: false, encodeUndefinedAsNil: true, structuredClone: false });

/** One client message as a frame of the chosen encoding. */
export function encodeFrame(message: object, encoding: WireEncoding): string | Buffer {
  return encoding === "json" ? JSON.stringify(message) : packr.pack(message);
}

/**
 * A server frame read and checked against the wire contract; a frame that does not read or does
 * not fit is an Error naming what was wrong.
 */
export function decodeFrame(
  data: Buffer | ArrayBuffer | Buffer[],
  isBinary: boolean,
): ServerMessage {
  const bytes = Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(data);
  const value: unknown = isBinary ? packr.unpack(bytes) : JSON.parse(bytes.toString());
  const parsed = ServerMessageSchema.safeParse(value);
  if (!parsed.success)
    throw new Error(
      `the server sent a message outside the wire contract: ${parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join(".") || "(message)"}: ${issue.message}`)
        .join("; ")}`,
    );
  return parsed.data;
}
