import { Packr } from "msgpackr";
import { issuesOf } from "../env/index.ts";
import {
  CLIENT_MESSAGE_TYPES,
  type ClientMessage,
  ClientMessageSchema,
  plainStepMessage,
  type RequestId,
  RequestIdSchema,
  type ServerMessage,
  type WireError,
  type WireErrorCode,
} from "../spec/index.ts";

/** How a frame was sent, and how its reply goes back: JSON in text frames, MessagePack in binary ones. */
export type Encoding = "json" | "msgpack";

/**
 * Standard MessagePack (no msgpackr records, undefined as nil), so Python's `msgpack`, or any
 * other implementation, reads what the server writes and writes what it reads. msgpackr's
 * shared-reference extensions are refused: with them, a frame of a few hundred bytes can decode
 * into an object with exponentially many paths, and checking it would stall the server for seconds.
 */
const packr = new Packr({ useRecords: false, encodeUndefinedAsNil: true, structuredClone: false });

/** A frame read into a message, or the error reply it earns (with the request id when one could be read). */
export type Decoded =
  | { ok: true; message: ClientMessage }
  | { ok: false; error: WireError; id?: RequestId };

const KNOWN_TYPES = new Set<string>(CLIENT_MESSAGE_TYPES);

/**
 * Reads one frame: bytes that do not parse are INVALID_JSON (for MessagePack too: OpenEnv has one
 * code for an unreadable frame), a type we do not speak is UNKNOWN_TYPE, and a message of a known
 * type with wrong fields is VALIDATION_ERROR with each problem at its path.
 */
export function decodeFrame(frame: Buffer | string, encoding: Encoding): Decoded {
  let value: unknown;
  try {
    value = encoding === "json" ? JSON.parse(frame.toString()) : packr.unpack(frame as Buffer);
  } catch (error) {
    const what = encoding === "json" ? "Invalid JSON" : "Invalid MessagePack";
    return { ok: false, error: wireError("INVALID_JSON", `${what}: ${reason(error)}`) };
  }
  // msgpackr reads a lone 0xc1 (a byte MessagePack never uses) as a marker object: not a message.
  const prototype =
    value !== null && typeof value === "object" ? Object.getPrototypeOf(value) : undefined;
  if (prototype !== Object.prototype && prototype !== null)
    return {
      ok: false,
      error: wireError("INVALID_JSON", 'expected an object such as {"type": "reset"}'),
    };
  const record = value as Record<string, unknown>;
  // A failed zod parse builds its error: costly for every frame without an id, so only an id given is read.
  const id = record.id === undefined ? null : RequestIdSchema.safeParse(record.id);
  const echo = id?.success ? { id: id.data } : {};
  const type = record.type;
  if (typeof type !== "string" || !KNOWN_TYPES.has(type))
    return {
      ok: false,
      ...echo,
      error: wireError(
        "UNKNOWN_TYPE",
        `Unknown message type: ${shown(type)}; expected one of ${CLIENT_MESSAGE_TYPES.join(", ")}`,
      ),
    };
  const plain = plainStepMessage(record);
  if (plain !== null) return { ok: true, message: plain };
  const parsed = ClientMessageSchema.safeParse(record);
  if (!parsed.success)
    return {
      ok: false,
      ...echo,
      error: {
        ...wireError("VALIDATION_ERROR", `Invalid ${type} message`),
        errors: issuesOf(parsed.error, record),
      },
    };
  return { ok: true, message: parsed.data };
}

/** Writes a reply in the encoding its request came in. */
export function encodeReply(reply: ServerMessage, encoding: Encoding): string | Buffer {
  return encoding === "json" ? JSON.stringify(reply) : packr.pack(reply);
}

/** An error reply's data. */
export function wireError(code: WireErrorCode, message: string): WireError {
  return { message, code };
}

function reason(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 200);
}

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value.slice(0, 64));
  return value === undefined ? "none" : typeof value;
}
