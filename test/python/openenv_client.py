"""A plain Python client speaking OpenEnv's WebSocket envelope to a rehearse server.

It uses only `websockets` and `msgpack` (Debian's python3-websockets and python3-msgpack), as an
OpenEnv client would: {"type": "reset" | "step" | "state", "data": ...} out, {"type":
"observation" | "state" | "error", "data": ...} back. It plays one episode with a scripted policy
(a lookup, then a question, in turn) and prints what it saw as one JSON line.

    python3 openenv_client.py ws://127.0.0.1:8000/ws json|msgpack SEED [TOKEN]
"""

import asyncio
import json
import sys

import msgpack
import websockets


async def main(url: str, encoding: str, seed: int, token: str) -> None:
    if token:
        # The token as the URL's password: websockets sends it as Basic auth, as OpenEnv's client would.
        url = url.replace("ws://", f"ws://rehearse:{token}@", 1)

    async with websockets.connect(url, max_size=16 * 1024 * 1024) as ws:

        async def ask(message: dict) -> dict:
            if encoding == "msgpack":
                await ws.send(msgpack.packb(message, use_bin_type=True))
                raw = await ws.recv()
                assert isinstance(raw, bytes), "a MessagePack request must get a binary reply"
                return msgpack.unpackb(raw, raw=False)
            await ws.send(json.dumps(message))
            raw = await ws.recv()
            assert isinstance(raw, str), "a JSON request must get a text reply"
            return json.loads(raw)

        # A frame that does not parse is answered, and the connection stays open.
        if encoding == "msgpack":
            await ws.send(b"\xc1")
            bad = msgpack.unpackb(await ws.recv(), raw=False)
        else:
            await ws.send("{not json")
            bad = json.loads(await ws.recv())
        unknown = await ask({"type": "jump"})

        reply = await ask({"type": "reset", "data": {"seed": seed}})
        assert reply["type"] == "observation", reply
        result = reply["data"]
        conversation = list(result["observation"]["messages"])
        tools = [tool["function"]["name"] for tool in result["observation"]["tools"]]
        turn = 0
        while not result["done"]:
            turn += 1
            if turn % 2 == 1:
                message = {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"py_{turn}",
                            "type": "function",
                            "function": {"name": "get_order", "arguments": json.dumps({"order_id": f"W{turn:07d}"})},
                        }
                    ],
                }
            else:
                message = {"role": "assistant", "content": "Could you tell me the order id, please?"}
            reply = await ask({"type": "step", "data": {"message": message}})
            assert reply["type"] == "observation", reply
            result = reply["data"]
            conversation.append(message)
            conversation.extend(result["observation"]["messages"])

        state = await ask({"type": "state"})
        grade = await ask({"type": "reward", "id": "grade"})
        await ws.send(json.dumps({"type": "close"}))

    print(
        json.dumps(
            {
                "encoding": encoding,
                "bad_frame": bad["data"]["code"],
                "unknown_type": unknown["data"]["code"],
                "tools": tools,
                "conversation": conversation,
                "reward": result["reward"],
                "done": result["done"],
                "truncated": result["observation"]["truncated"],
                "metadata": result["observation"]["metadata"],
                "state": state["data"],
                "grade": grade["data"],
                "grade_id": grade.get("id"),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else ""))
