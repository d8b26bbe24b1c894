/**
 * The agent's turns in the server benchmark, shared by the load generator and the engine-alone
 * baseline so both play the same episodes: a lookup of an order on odd turns, a question on even.
 */
export function benchTurn(turn: number) {
  if (turn % 2 === 0)
    return { role: "assistant" as const, content: "Could you tell me the order id, please?" };
  return {
    role: "assistant" as const,
    content: null,
    tool_calls: [
      {
        id: `call_${turn}`,
        type: "function" as const,
        function: {
          name: "get_order",
          arguments: `{"order_id":"W${String(turn).padStart(7, "0")}"}`,
        },
      },
    ],
  };
}

/** The load generator's reset frame. */
export const RESET_FRAME = JSON.stringify({ type: "reset" });

/** The load generator's step frame for turn `turn`. */
export function stepFrame(turn: number): string {
  return JSON.stringify({ type: "step", data: { message: benchTurn(turn) } });
}

/**
 * Whether a reply ends its episode, read as text, not parsed (the load generator should cost as
 * little as it can, the same for every server): `"done":true` appears as written only as the
 * result's own key.
 */
export function endsEpisode(reply: string): boolean {
  return reply.startsWith('{"type":"observation"') && reply.includes('"done":true');
}
