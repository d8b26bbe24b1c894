"""A stand-in for Hugging Face's datasets package in rehearse's tests: only Dataset.from_list."""

from __future__ import annotations

from typing import Any

STAND_IN = True


class Dataset:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    @classmethod
    def from_list(cls, rows: list[dict[str, Any]]) -> "Dataset":
        return cls(list(rows))

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> dict[str, Any]:
        return self.rows[index]

    def __iter__(self):
        return iter(self.rows)
