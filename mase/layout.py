"""What a seat's observation vector holds, block by block, and the facts the two views carry.

A task's vector view and its text view are two writings of one observation. Information parity
means no fact is in one and missing from the other: everything the text states (the seat's
start knowledge, the history it has seen, what it was told) can be read back from the vector,
and the vector holds nothing the text does not state. A task shows it with three hooks on
:class:`mase.task.TaskEnv`:

==========================================  ===================================================
hook                                        meaning
==========================================  ===================================================
``vector_layout(agent)``                    a :class:`VectorLayout`: the vector's blocks in
                                            order, each with its size and content (the task's
                                            documentation page prints it as a table)
``text_knowledge(agent, text)``             the facts a text observation states, read with
                                            the task's own parsers: ``{fact key: value}``
``vector_knowledge(agent, vector)``         the facts an observation vector holds, decoded
                                            into the same keys and values
==========================================  ===================================================

:func:`mase.checks.check_parity` plays seeded episodes and compares the two at every seat and
turn. Free text enters both as the claims the task's reader reads from it
(:func:`message_claims`), keyed ``("told", sender, *fact key)`` (:func:`told_facts`). Where a
history has to be bounded to fit a fixed vector, the text keeps the same bound and the block
says so (``Block.bound``).

Example:
    >>> import numpy as np
    >>> layout = VectorLayout([Block("round", 1, "round / max_rounds"),
    ...                        Block("room", 3, "own room (one-hot)")])
    >>> vector = layout.pack({"round": [0.5], "room": [0, 1, 0]})
    >>> layout.size, layout.split(vector)["room"].tolist()
    (4, [0.0, 1.0, 0.0])
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mase.events import FactKey
from mase.protocol import quote, split_messages

#: The first element of the key of a fact a message claimed: ``("told", sender, *key)``.
TOLD = "told"


@dataclass(frozen=True)
class Block:
    """One block of an observation vector.

    Attributes:
        name: the block's name (unique in its layout).
        size: how many numbers it holds.
        content: what they mean, in one sentence (the documentation's table cell).
        bound: where the block keeps a bounded history, the bound in words (the text view
            keeps the same one); empty when nothing is left out.
    """

    name: str
    size: int
    content: str
    bound: str = ""


class VectorLayout:
    """An observation vector's blocks, in order: their sizes, offsets and meanings."""

    def __init__(self, blocks: Iterable[Block]):
        self.blocks = tuple(blocks)
        names = [b.name for b in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"block names must be unique, got {names}")
        self.slices: dict[str, slice] = {}
        at = 0
        for block in self.blocks:
            if block.size < 0:
                raise ValueError(f"block {block.name!r} has a negative size {block.size}")
            self.slices[block.name] = slice(at, at + block.size)
            at += block.size
        #: The vector's length.
        self.size = at

    def __iter__(self):
        return iter(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def split(self, vector: Sequence[float] | np.ndarray) -> dict[str, np.ndarray]:
        """The vector cut into its blocks, ``{name: values}`` (views of the given array)."""
        vector = np.asarray(vector)
        if vector.shape[-1] != self.size:
            raise ValueError(f"the layout holds {self.size} numbers, the vector {vector.shape[-1]}")
        return {name: vector[..., s] for name, s in self.slices.items()}

    def pack(self, parts: Mapping[str, Any]) -> np.ndarray:
        """One float32 vector from every block's values (each the block's size)."""
        missing = [b.name for b in self.blocks if b.name not in parts]
        extra = sorted(set(parts) - set(self.slices))
        if missing or extra:
            raise ValueError(f"blocks missing: {missing}; not in the layout: {extra}")
        out = []
        for block in self.blocks:
            values = np.asarray(parts[block.name], dtype=np.float32).ravel()
            if values.size != block.size:
                raise ValueError(
                    f"block {block.name!r} holds {block.size} numbers, got {values.size}"
                )
            out.append(values)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def rows(self) -> list[list[str]]:
        """The documentation table's rows: block, size, content (with its bound, if any)."""
        rows = []
        for block in self.blocks:
            content = block.content + (f" Bounded: {block.bound}" if block.bound else "")
            rows.append([block.name, str(block.size), content])
        return rows

    def markdown(self) -> str:
        """The layout as a Markdown table."""
        lines = ["| block | size | content |", "|---|---|---|"]
        lines += [f"| {name} | {size} | {content} |" for name, size, content in self.rows()]
        return "\n".join(lines)


def read_prefix(env: Any, agent: str, vector: np.ndarray, width: int) -> np.ndarray:
    """The first ``width`` numbers of a vector longer than a trained model's, cut at a block's end.

    A model trained before blocks were appended to a task's vector reads the old prefix. Where
    the task has a layout, ``width`` must end a block: a cut inside one means the model was
    trained on another vector altogether, a ``ValueError``. A vector no longer than ``width``
    is returned as it is (the model's own check of its size decides).
    """
    vector = np.asarray(vector)
    if vector.shape[-1] <= width:
        return vector
    try:
        layout = env.unwrapped.vector_layout(agent)
    except NotImplementedError:
        layout = None
    if layout is not None and width not in {s.stop for s in layout.slices.values()}:
        raise ValueError(
            f"the model reads {width} numbers, which end inside a block of the task's "
            f"{vector.shape[-1]}-number vector: it was trained on another vector"
        )
    return vector[..., :width]


def shown_message(text: str) -> str:
    """A message as an observation shows it (one line, double quotes made single)."""
    return quote(text)[1:-1]


def message_claims(env: Any, sender: str, text: str) -> dict[FactKey, Any]:
    """The facts the task's reader reads from a message as it is shown.

    Both views read claims this way, from what the seat was shown and nothing else: the
    text view from its message lines, the vector view from the inbox.
    """
    return dict(env.read_claims(sender, shown_message(text), {}).facts)


def told_facts(claims: Iterable[tuple[str, Mapping[FactKey, Any]]]) -> dict[tuple, Any]:
    """``("told", sender, *key) -> value`` of each sender's claims, in order (later wins)."""
    told: dict[tuple, Any] = {}
    for sender, facts in claims:
        for key, value in facts.items():
            told[(TOLD, sender, *key)] = value
    return told


def text_told(env: Any, text: str) -> dict[tuple, Any]:
    """The claims of the message lines a text observation lists, as :func:`told_facts`."""
    _, lines = split_messages(text)
    return told_facts(
        (sender, dict(env.read_claims(sender, said, {}).facts)) for sender, said in lines
    )


def inbox_told(env: Any, agent: str) -> dict[tuple, Any]:
    """The claims of the messages ``agent``'s observation lists now, as :func:`told_facts`."""
    return told_facts(
        (e.actor, message_claims(env, e.actor, e.note)) for e in env.received_messages(agent)
    )
