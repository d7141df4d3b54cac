"""The knowledge tracker is task-free: any events, any fact keys, any message reader.

Search and rescue's scenarios from the paper's annotation criteria are in
``tests/envs/search_rescue/test_knowledge.py``.
"""

import doctest

import mase.knowledge
from mase.claims import from_parser
from mase.events import Event
from mase.knowledge import KnowledgeTracker


def test_tracker_is_generic_and_its_examples_run():
    alpha_alone = frozenset({"alpha"})
    events = [
        Event("look", "alpha", {("door",): "open"}, alpha_alone, 1),
        Event("message", "alpha", {}, frozenset({"alpha", "bravo"}), 1, note="door=shut"),
    ]

    def parse(text):
        key, value = text.split("=")
        return {(key,): value}

    k = KnowledgeTracker.from_events(events, from_parser(parse))
    truth = {("door",): "open"}
    assert k.introspection("alpha", ("door",), truth)
    assert k.false_belief("bravo", ("door",), truth)  # alpha lied
    assert not k.second_order("bravo", "alpha", ("door",), truth)
    result = doctest.testmod(mase.knowledge)
    assert result.attempted > 0 and result.failed == 0
