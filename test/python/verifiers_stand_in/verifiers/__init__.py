"""A stand-in for the verifiers package, used by rehearse's tests where verifiers is not installed.

It is not verifiers: it keeps only the surface an exported rehearse environment touches
(Environment, MultiTurnEnv with setup_state / env_response / stop methods, Rubric, stop) and runs
one rollout the way verifiers' multi-turn loop does: the model answers, stop conditions are
checked, the environment responds, until a stop condition holds or max_turns is reached.
"""

from __future__ import annotations

import inspect
from typing import Any, Awaitable, Callable

STAND_IN = True


def stop(method: Callable[..., Any]) -> Callable[..., Any]:
    method.stop = True
    return method


class Rubric:
    def __init__(self, funcs: list[Callable[..., float]], weights: list[float] | None = None) -> None:
        self.funcs = funcs
        self.weights = weights or [1.0] * len(funcs)

    def score(self, **kwargs: Any) -> float:
        return sum(weight * func(**kwargs) for func, weight in zip(self.funcs, self.weights))


class Environment:
    def __init__(self, dataset: Any = None, rubric: Rubric | None = None, max_turns: int = 10, **kwargs: Any) -> None:
        self.dataset = dataset
        self.rubric = rubric
        self.max_turns = max_turns


class MultiTurnEnv(Environment):
    async def setup_state(self, state: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return state

    async def env_response(self, messages: list[dict[str, Any]], state: dict[str, Any], **kwargs: Any) -> list[dict[str, Any]]:
        raise NotImplementedError

    async def _stopped(self, state: dict[str, Any]) -> bool:
        for _, method in inspect.getmembers(self, predicate=inspect.ismethod):
            if getattr(method, "stop", False) and await method(state=state):
                return True
        return False

    async def rollout(self, model: Callable[[list[dict[str, Any]]], Awaitable[dict[str, Any]]], example: dict[str, Any]) -> dict[str, Any]:
        state: dict[str, Any] = {"prompt": example["prompt"], "info": example["info"], "completion": []}
        state = await self.setup_state(state)
        messages = list(example["prompt"])
        turns = 0
        while not await self._stopped(state) and turns < self.max_turns:
            reply = await model(messages)
            messages.append(reply)
            state["completion"].append(reply)
            turns += 1
            answered = await self.env_response(messages, state)
            messages.extend(answered)
            state["completion"].extend(answered)
        state["reward"] = self.rubric.score(prompt=state["prompt"], completion=state["completion"], state=state, info=state["info"])
        return state
