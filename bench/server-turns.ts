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
