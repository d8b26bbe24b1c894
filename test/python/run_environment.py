"""Loads an exported rehearse environment and plays each of its examples against a rehearse server.

The model replays recorded assistant turns (a JSON file: task id → the assistant messages), so the
conversation and reward can be compared with the run that recorded them. Prints one JSON object:
task id → {reward, completion, grade}.

usage: run_environment.py <package folder> <ws url> <turns.json> <split>
"""

import asyncio
import importlib.util
import json
import sys
from pathlib import Path


async def main() -> None:
    folder, url, turns_file, split = sys.argv[1:5]
    module_file = next(Path(folder).glob("*.py"))
    spec = importlib.util.spec_from_file_location(module_file.stem, module_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    env = module.load_environment(server_url=url, split=split)
    turns = json.loads(Path(turns_file).read_text())
    results = {}
    for example in env.dataset:
        info = json.loads(example["info"])
        recorded = list(turns[info["task_id"]])

        async def model(messages):
            return recorded.pop(0)

        state = await env.rollout(model, example)
        results[info["task_id"]] = {
            "reward": state["reward"],
            "completion": state["completion"],
            "grade": state.get("rehearse_grade"),
        }
    print(json.dumps(results))


asyncio.run(main())
