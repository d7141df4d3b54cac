"""Chess questions: move validity (BIG-bench ``chess_state_tracking``) and move quality.

Validity: given a game as UCI moves and then a start square, name a square the piece on it can
legally move to. :func:`legal_squares` computes the answers with the ``chess`` package (the
``debate`` extra); it reproduces BIG-bench's targets from the move prefix, and
:func:`validity_questions` makes fresh positions of the same kind from random legal games.

Move quality (the paper's chess Δpawn): given a game so far, propose the next move
(:func:`move_questions`); the score is Stockfish's evaluation (Debian's ``stockfish``
package, driven through ``chess.engine``: :class:`Judge`) after the move for the side that
played it, in centipawns, and its change from before the move. The paper's exact scoring is
not in its text; this is MASE's reading of "pawn score", stated so.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mase.envs.debate.questions import SQUARES, Question

VALIDITY_PREFIX = (
    "For each of the following (in-progress) chess games, please complete the notation for the "
    "last shown move by filling in the destination square:"
)


def _chess():
    try:
        import chess
    except ImportError as error:  # an optional part: say how to get it
        raise ImportError(
            "chess questions need the 'chess' package: pip install 'mase-suite[debate]'"
        ) from error
    return chess


def board_after(moves: Sequence[str]) -> Any:
    """The ``chess.Board`` after the UCI ``moves`` from the start position.

    Raises:
        ValueError: a move that is not legal where it is played.
    """
    chess = _chess()
    board = chess.Board()
    for ply, uci in enumerate(moves, 1):
        move = chess.Move.from_uci(uci)
        if move not in board.legal_moves:
            raise ValueError(f"move {ply} ({uci}) is not legal in {board.fen()}")
        board.push(move)
    return board


def legal_squares(moves: Sequence[str], start: str, castling: bool = False) -> tuple[str, ...]:
    """The squares the piece on ``start`` can legally move to after ``moves`` (board order).

    BIG-bench's targets leave castling out (a king that may castle is not said to reach g1,
    c1, g8 or c8 by it: 1 of real_short's 1,000 examples, 4 of synthetic_short's); so does
    this by default, which reproduces every target of the three files. ``castling=True``
    counts the king's castling squares too.

    >>> legal_squares(["e2e4", "e7e5"], "g1")
    ('e2', 'f3', 'h3')
    """
    chess = _chess()
    board = board_after(moves)
    origin = chess.parse_square(start)
    found = {
        chess.square_name(m.to_square)
        for m in board.legal_moves
        if m.from_square == origin and (castling or not board.is_castling(m))
    }
    return tuple(sorted(found, key=SQUARES.index))


def read_validity_input(text: str) -> tuple[list[str], str]:
    """A ``chess_state_tracking`` input: its UCI moves, and the start square it ends with."""
    tokens = text.split()
    if not tokens or len(tokens[-1]) != 2:
        raise ValueError(f"a chess input ends with a start square: {text[-40:]!r}")
    return tokens[:-1], tokens[-1]


def random_game(rng: random.Random, plies: tuple[int, int]) -> tuple[Any, list[str]]:
    """A random legal game of ``plies`` moves (fewer if it ends): its board and UCI moves."""
    board, moves = _chess().Board(), []
    for _ in range(rng.randint(*plies)):
        legal = list(board.legal_moves)
        if not legal:
            break
        move = rng.choice(legal)
        moves.append(move.uci())
        board.push(move)
    return board, moves


def validity_questions(
    n: int = 100, seed: int = 0, plies: tuple[int, int] = (10, 40)
) -> list[Question]:
    """``n`` fresh validity questions: a random legal game of ``plies`` moves, then a piece.

    The piece is one of the side to move's with a legal move (every such piece is equally
    likely); the answer set is exact (:func:`legal_squares`).
    """
    chess = _chess()
    rng = random.Random(seed)
    out: list[Question] = []
    while len(out) < n:
        board, moves = random_game(rng, plies)
        origins = sorted({m.from_square for m in board.legal_moves})
        if not origins:  # mate or stalemate: no question here
            continue
        start = chess.square_name(rng.choice(origins))
        text = " ".join([*moves, start])
        out.append(
            Question(
                id=f"chess_validity/{len(out)}",
                source="chess_validity",
                prompt=f"{VALIDITY_PREFIX}\n{text}",
                answer=legal_squares(moves, start),
                kind="square",
                choices=SQUARES,
                extra={"input": text},
            )
        )
    return out


MOVE_PROMPT = (
    "Here is a chess game so far, in UCI notation: {moves}. It is {side} to move. What is the "
    "best next move? Give it in UCI notation (such as e2e4) at the end of your response."
)


def move_questions(
    n: int = 100, seed: int = 0, plies: tuple[int, int] = (16, 40), games: Sequence[str] = ()
) -> list[Question]:
    """``n`` move-quality questions: a game so far, and the move to play (kind ``"move"``).

    The games are ``games`` (each UCI moves, space-separated: a BIG-bench
    ``chess_state_tracking`` file's inputs are real games, :func:`games_of`), cut at a random
    ply of ``plies``, or random legal games when none are given. Any legal move is an answer
    (``answer``: all of them); how good it is, the engine says (:class:`Judge`).
    """
    chess = _chess()
    rng = random.Random(seed)
    out: list[Question] = []
    tries = 0
    while len(out) < n:
        tries += 1
        if tries > 100 * n:
            raise ValueError("no position with a legal move in the games given")
        if games:
            moves = games[(tries - 1) % len(games)].split()
            moves = moves[: min(len(moves), rng.randint(*plies))]
        else:
            moves = random_game(rng, plies)[1]
        board = board_after(moves)
        legal = tuple(sorted(m.uci() for m in board.legal_moves))
        if not legal:
            continue
        side = "White" if board.turn == chess.WHITE else "Black"
        out.append(
            Question(
                id=f"chess_moves/{len(out)}",
                source="chess_moves",
                prompt=MOVE_PROMPT.format(moves=" ".join(moves) or "(no moves yet)", side=side),
                answer=legal,
                kind="move",
                extra={"moves": list(moves)},
            )
        )
    return out


def games_of(path: str) -> list[str]:
    """The games of a BIG-bench ``chess_state_tracking`` file: its inputs, less the last square."""
    task = json.loads(Path(path).read_text(encoding="utf-8"))
    return [" ".join(read_validity_input(e["input"])[0]) for e in task.get("examples", [])]


def find_engine(path: str | None = None) -> str:
    """The Stockfish executable: ``path``, else ``stockfish`` on the PATH or Debian's place.

    Raises:
        FileNotFoundError: none; the message names the package that provides one.
    """
    found = path or shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
    if not found:
        raise FileNotFoundError(
            "chess move quality needs the Stockfish engine: install Debian's 'stockfish' "
            "package (apt-get install stockfish), or pass its path"
        )
    return found


class Judge:
    """Stockfish, through ``chess.engine``: a move's evaluation change in pawns.

    Args:
        path: the engine's executable (default: ``stockfish`` on the PATH).
        depth: the search depth of each evaluation.

    The engine runs in a process of its own with a thread that keeps the interpreter alive:
    close it (``with Judge() as judge: ...``).

    Raises:
        FileNotFoundError: no engine; the message names the package that provides one.
    """

    def __init__(self, path: str | None = None, depth: int = 12):
        _chess()
        import chess.engine

        self.engine = chess.engine.SimpleEngine.popen_uci(find_engine(path))
        self.limit = chess.engine.Limit(depth=depth)

    def pawns(self, board: Any) -> float:
        """The evaluation of ``board`` for the side that just moved, in pawns."""
        info = self.engine.analyse(board, self.limit)
        return -info["score"].relative.score(mate_score=10_000) / 100.0

    def delta(self, board: Any, uci: str) -> float | None:
        """How much ``uci`` gains for the side to move, in pawns (``None``: not a legal move)."""
        chess = _chess()
        try:
            move = chess.Move.from_uci(uci)
        except ValueError:
            return None
        if move not in board.legal_moves:
            return None
        before = -self.pawns(board)  # the side to move's evaluation now
        after = board.copy()
        after.push(move)
        return self.pawns(after) - before

    def score(self, moves: Sequence[str], uci: str) -> tuple[float, float] | None:
        """A move's quality after ``moves``, for the side that plays it, in centipawns.

        Returns ``(pawn_score, delta)``: the evaluation after the move, and its change from
        the evaluation before it (``None``: not a legal move there).
        """
        board = board_after(moves)
        delta = self.delta(board, uci)
        if delta is None:
            return None
        after = board.copy()
        after.push(_chess().Move.from_uci(uci))
        return round(100 * self.pawns(after), 1), round(100 * delta, 1)

    def close(self) -> None:
        """Stop the engine."""
        self.engine.quit()

    def __enter__(self) -> Judge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
