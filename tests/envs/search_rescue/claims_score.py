"""Score the search-and-rescue claim reader on the hand-annotated paraphrase corpus.

Each message of ``claims_corpus.jsonl`` comes with the facts a careful reader takes it to
state. Both sides are closed under the game's implications (:func:`world.implied_facts`), so a
reading is not charged for spelling a fact one way rather than the other. Precision and recall
are over facts (a fact is a key with its value), pooled over messages. Messages the annotators
tagged ``ambiguous`` are left out of both and scored apart.
"""

from __future__ import annotations

import json
from pathlib import Path

from mase.envs.search_rescue import world
from mase.envs.search_rescue.claims import read_claims

CORPUS = Path(__file__).with_name("claims_corpus.jsonl")
HELD_OUT = Path(__file__).with_name("claims_heldout.jsonl")


def load(path: Path = CORPUS) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def expected(record: dict) -> dict:
    facts = {}
    for fact in record["facts"]:
        *key, value = fact
        facts[tuple(key)] = tuple(value) if isinstance(value, list) else value
    return world.implied_facts(facts)


def score(records: list[dict], ambiguous: bool = False) -> dict:
    """Precision, recall and every disagreement of the reader on ``records``.

    Only the messages tagged ``ambiguous`` when ``ambiguous`` is true, else only the others.
    """
    records = [r for r in records if ("ambiguous" in r.get("tags", ())) == ambiguous]
    hits = said = wanted = 0
    wrong = []
    flagged = 0
    for record in records:
        claims = read_claims(record["sender"], record["text"], record.get("sender_room"))
        got = world.implied_facts(dict(claims.facts))
        want = expected(record)
        good = {k for k, v in got.items() if want.get(k, object()) == v}
        hits += len(good)
        said += len(got)
        wanted += len(want)
        flagged += bool(claims.unread)
        if good != set(got) or good != set(want):
            wrong.append(
                {
                    "id": record["id"],
                    "text": record["text"],
                    "extra": {k: v for k, v in got.items() if k not in good},
                    "missed": {k: v for k, v in want.items() if k not in good},
                    "unread": claims.unread,
                }
            )
    return {
        "messages": len(records),
        "precision": hits / said if said else 1.0,
        "recall": hits / wanted if wanted else 1.0,
        "facts": wanted,
        "flagged": flagged,
        "wrong": wrong,
    }


if __name__ == "__main__":
    import sys

    path = HELD_OUT if "--held-out" in sys.argv else CORPUS
    result = score(load(path))
    for w in result["wrong"]:
        print(w)
    print({k: v for k, v in result.items() if k != "wrong"})
    apart = score(load(path), ambiguous=True)
    print("ambiguous, apart:", {k: v for k, v in apart.items() if k != "wrong"})
