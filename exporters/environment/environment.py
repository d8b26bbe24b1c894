"""A rehearse environment for verifiers.

The policy under training plays the agent; a running `rehearse serve` plays everything else: the
situation, the world behind the tools, the person, and the reward. Each example names a planned
situation (`info.task_id`) and its seed; the environment resets a server session to it, sends each
model turn as a step over OpenEnv's WebSocket envelope, returns what the world and the person
answered, ends when the server says done, and its rubric reads the server's reward.
"""

from __future__ import annotations

import json
import os
from typing import Any

import verifiers as vf
from datasets import Dataset

ENV_ID = "__ENV_ID__"
DEFAULT_SERVER_URL = "ws://127.0.0.1:8000/ws"
# The tasks this package was exported with: {"train": [...], "holdout": [...]}.
TASKS: dict[str, list[dict[str, Any]]] = json.loads(__TASKS_JSON__)


class RehearseError(RuntimeError):
    """The server refused a request or answered something this client does not understand."""


async def _connect(url: str, token: str | None, max_size: int) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:  # websockets >= 13
        from websockets.asyncio.client import connect

        return await connect(url, additional_headers=headers, max_size=max_size)
    except ImportError:  # the legacy client (Debian's websockets 10)
        from websockets import connect as legacy_connect

        return await legacy_connect(url, extra_headers=headers, max_size=max_size)


class RehearseSession:
    """One episode on a rehearse server: OpenEnv's reset, step and close, and rehearse's reward."""

    def __init__(self, url: str, token: str | None = None, max_size: int = 16 << 20) -> None:
        self.url, self.token, self.max_size = url, token, max_size
        self.socket: Any = None
        self._next_id = 0

    async def request(self, kind: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
        if self.socket is None:
            self.socket = await _connect(self.url, self.token, self.max_size)
        self._next_id += 1
        frame: dict[str, Any] = {"type": kind, "id": self._next_id}
        if data is not None:
            frame["data"] = data
        await self.socket.send(json.dumps(frame))
        reply = json.loads(await self.socket.recv())
        if reply.get("type") == "error":
            error = reply.get("data", {})
            raise RehearseError(f"{error.get('code')}: {error.get('message')}")
        return reply

    async def reset(self, task_id: str, seed: int) -> dict[str, Any]:
        return (await self.request("reset", {"task_id": task_id, "seed": seed}))["data"]

    async def step(self, message: dict[str, Any]) -> dict[str, Any]:
        return (await self.request("step", {"message": message}))["data"]

    async def reward(self) -> dict[str, Any]:
        return (await self.request("reward"))["data"]

    async def close(self) -> None:
        if self.socket is not None:
            try:
                await self.socket.send(json.dumps({"type": "close"}))
            finally:
                await self.socket.close()
                self.socket = None


def _plain(value: Any) -> Any:
    """A message as JSON: the policy's client may hand back pydantic objects for tool calls."""
    if hasattr(value, "model_dump"):
        return _plain(value.model_dump(exclude_none=True))
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items() if item is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _assistant_turn(message: Any) -> dict[str, Any]:
    plain = _plain(message)
    turn: dict[str, Any] = {"role": "assistant", "content": plain.get("content")}
    if plain.get("tool_calls"):
        turn["tool_calls"] = [
            {
                "id": call["id"],
                "type": "function",
                "function": {
                    "name": call["function"]["name"],
                    "arguments": call["function"]["arguments"]
                    if isinstance(call["function"]["arguments"], str)
                    else json.dumps(call["function"]["arguments"]),
                },
            }
            for call in plain["tool_calls"]
        ]
    return turn


class RehearseEnv(vf.MultiTurnEnv):
    """A multi-turn environment whose world, person and reward live on a rehearse server."""

    def __init__(self, server_url: str, token: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.server_url = server_url
        self.token = token

    async def setup_state(self, state: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        info = state["info"]
        if isinstance(info, str):
            info = json.loads(info)
        session = RehearseSession(self.server_url, self.token)
        opened = await session.reset(info["task_id"], info["seed"])
        expected = [message["content"] for message in state["prompt"]]
        served = [message.get("content") for message in opened["observation"]["messages"]]
        if served != expected:
            await session.close()
            raise RehearseError(
                f"the server opened {info['task_id']} differently from this package's prompt: "
                "serve the spec.json this package was exported with, with the same --rows"
            )
        state["rehearse_session"] = session
        state["rehearse_done"] = bool(opened["done"])
        state["rehearse_reward"] = opened["reward"]
        return state

    async def env_response(
        self, messages: list[dict[str, Any]], state: dict[str, Any], **kwargs: Any
    ) -> list[dict[str, Any]]:
        session: RehearseSession = state["rehearse_session"]
        result = await session.step(_assistant_turn(messages[-1]))
        reply = result["observation"]["messages"]
        if result["done"]:
            state["rehearse_done"] = True
            state["rehearse_reward"] = result["reward"]
            state["rehearse_grade"] = await session.reward()
            state["rehearse_observation"] = result["observation"]
            state["final_env_response"] = reply
            await session.close()
        return reply

    @vf.stop
    async def rehearse_done(self, state: dict[str, Any], **kwargs: Any) -> bool:
        return bool(state.get("rehearse_done"))


def rehearse_reward(state: dict[str, Any], **kwargs: Any) -> float:
    """The server's reward for the episode: the outcome and conduct checks, or the configured grader."""
    reward = state.get("rehearse_reward")
    return float(reward) if reward is not None else 0.0


def load_environment(
    server_url: str | None = None,
    token: str | None = None,
    split: str = "train",
    num_examples: int = -1,
    max_turns: int = __MAX_TURNS__,
    **kwargs: Any,
) -> vf.Environment:
    """The environment: examples from this package's tasks, the world and person on a rehearse server."""
    if split not in TASKS:
        raise ValueError(f"split must be one of {sorted(TASKS)}, got {split!r}")
    tasks = TASKS[split] if num_examples < 0 else TASKS[split][:num_examples]
    dataset = Dataset.from_list(
        [
            {
                "example_id": index,
                "prompt": task["prompt"],
                "answer": "",
                "info": json.dumps({"task_id": task["task_id"], "seed": task["seed"], "oai_tools": task["tools"]}),
                "task": ENV_ID,
            }
            for index, task in enumerate(tasks)
        ]
    )
    rubric = vf.Rubric(funcs=[rehearse_reward], weights=[1.0])
    return RehearseEnv(
        server_url=server_url or os.environ.get("REHEARSE_SERVER_URL", DEFAULT_SERVER_URL),
        token=token or os.environ.get("REHEARSE_TOKEN"),
        dataset=dataset,
        rubric=rubric,
        max_turns=max_turns,
        **kwargs,
    )
