"""The web table's speed: a person's click to the next state on screen, and 8 games at once.

Headless Chromium (Debian's chromium and chromium-driver, under selenium) opens each person's
page; a script in the page plays it by clicking the page's own buttons (a real click event,
through the page's handler) 50 ms after its turn shows, so every browser plays at once. The
page times each click (``performance.now()`` as the move is sent) and the frame that shows the
next state (a ``requestAnimationFrame`` after it is drawn), so the figures are the browser's
own, from click to pixels:

- ``click to next state``: to the first state drawn after the click (the person's own move
  played and sent back);
- ``click to next turn``: to the seat's next turn, after the bot seats moved too.

Each game is search and rescue: a person in ``alpha``, the scripted bots in ``bravo`` and
``charlie``, on loopback. The same run plays 1 game alone and then 8 at once, and reports
the goal beside them (under 100 ms median per move on 2 cores, with all 8 games responsive),
the moves per second served, and, as a reference for the server's share, the same games with
the bots alone and no server (``mase.evaluate``).

With ``--screenshots DIR`` it also writes a seat's page at three moments of a search and
rescue game and of a 5-player Avalon game (``DIR/search_rescue-{start,middle,end}.png``,
``DIR/avalon-*.png``).

Run: python benchmarks/web_latency.py [--games 8] [--episodes 2] [--screenshots docs/web]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

import mase
from mase.replay.browser import find_chromium
from mase.runner.store import read_records
from mase.web import WebGame, WebServer

ENV_ID = "mase/SearchRescue-v0"
TEAM = {"alpha": "human", "bravo": "scripted", "charlie": "scripted"}
GOAL_MS = 100.0

#: The page's player: clicks a legal move (or says a line) 50 ms after its turn shows.
AUTOPLAY = """
window.MASE_AUTOPLAY = setInterval(function () {
  var body = document.body, turn = document.getElementById('turn');
  if (body.getAttribute('data-finished') === 'true') { return; }
  if (turn.getAttribute('data-you') !== 'true') { return; }
  var seq = body.getAttribute('data-seq');
  if (window.MASE_ANSWERED === seq) { return; }
  if (window.MASE_SEEN !== seq) {
    window.MASE_SEEN = seq;
    window.MASE_SEEN_AT = performance.now();
    return;
  }
  if (performance.now() - window.MASE_SEEN_AT < 50) { return; }
  window.MASE_ANSWERED = seq;
  var buttons = document.querySelectorAll('#moves button');
  if (buttons.length) { buttons[Number(seq) % buttons.length].click(); return; }
  document.getElementById('reply').value = 'I am on the good side.';
  document.getElementById('send').click();
}, 5);
"""


def open_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = find_chromium()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,900"):  # fmt: skip
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))


def timings(driver) -> tuple[list[float], list[float]]:
    """(click to next state, click to next turn) of every click on the page, in ms."""
    seat = driver.execute_script("return window.MASE_SEAT")
    shown = seat["shown"]  # [seq, time, your turn]
    state, turn = [], []
    for seq, clicked in seat["clicks"]:
        after = [s for s in shown if s[0] > seq and s[1] >= clicked]
        if after:
            state.append(after[0][1] - clicked)
        mine = [s for s in after if s[2]]
        if mine:
            turn.append(mine[0][1] - clicked)
    return state, turn


def moves_played(folders: list[str]) -> int:
    """The moves of every finished episode recorded in ``folders``."""
    return sum(len(r["turns"]) for f in folders for r in read_records(Path(f, "episodes.jsonl")))


def tables(games: int, episodes: int, root: str) -> list[WebGame]:
    return [WebGame(ENV_ID, TEAM, episodes=episodes, seed=100 * g, out=f"{root}/{g}")
            for g in range(games)]  # fmt: skip


def play(drivers, games: int, episodes: int) -> dict:
    """``games`` games at once, each with a browser in its person's seat."""
    root = tempfile.mkdtemp(prefix="mase-web-")
    tables_ = tables(games, episodes, root)
    with WebServer(tables_) as server:
        start = time.perf_counter()
        for g, driver in enumerate(drivers[:games]):
            driver.get(server.links(g)["alpha"])
        for driver in drivers[:games]:
            driver.execute_script(AUTOPLAY)
        for table in tables_:
            table.finished.wait(600)
        wall = time.perf_counter() - start
        per_game = [timings(d) for d in drivers[:games]]
    assert all(not t.error for t in tables_), [t.error for t in tables_]
    moves = moves_played([t.out for t in tables_])
    shutil.rmtree(root)
    state = [x for s, _ in per_game for x in s]
    return {
        "games": games,
        "clicks": len(state),
        "state_median": statistics.median(state),
        "state_p95": statistics.quantiles(state, n=20)[-1],
        "turn_median": statistics.median([x for _, t in per_game for x in t]),
        "worst_game_median": max(statistics.median(s) for s, _ in per_game),
        "moves_per_s": moves / wall,
        "wall": wall,
    }


def served(games: int, episodes: int) -> float:
    """Moves per second served with ``games`` games at once.

    Each person's seat is a websocket client that answers each of its turns at once (no
    browser, no thinking).
    """
    from websockets.sync.client import connect

    root = tempfile.mkdtemp(prefix="mase-web-")
    tables_ = tables(games, episodes, root)

    def person(link: str) -> None:
        with connect(link.replace("http://", "ws://").replace("/seat/", "/ws/")) as socket:
            while True:
                message = json.loads(socket.recv(timeout=60))
                if message["type"] == "finished":
                    return
                if message["type"] == "state" and message["turn"]["you"] and not message["over"]:
                    move = message["legal"][message["seq"] % len(message["legal"])]
                    socket.send(json.dumps({"type": "move", "text": move, "seq": message["seq"]}))

    with WebServer(tables_) as server:
        start = time.perf_counter()
        threads = [threading.Thread(target=person, args=(server.links(g)["alpha"],))
                   for g in range(games)]  # fmt: skip
        for t in threads:
            t.start()
        for t in threads:
            t.join(600)
        wall = time.perf_counter() - start
    moves = moves_played([t.out for t in tables_])
    shutil.rmtree(root)
    return moves / wall


def bots_alone(games: int, episodes: int) -> float:
    """Moves per second of the same games with bots in every seat and no server."""
    root = tempfile.mkdtemp(prefix="mase-bots-")
    start = time.perf_counter()
    for g in range(games):
        mase.evaluate(ENV_ID, "scripted", episodes=episodes, seed=100 * g, record=True,
                      out=f"{root}/{g}")  # fmt: skip
    wall = time.perf_counter() - start
    moves = moves_played([f"{root}/{g}" for g in range(games)])
    shutil.rmtree(root)
    return moves / wall


def line(result: dict) -> str:
    return (
        f"  {result['games']} game(s): click to next state median {result['state_median']:.1f} ms "
        f"(p95 {result['state_p95']:.1f}, worst game's median {result['worst_game_median']:.1f}); "
        f"click to next turn median {result['turn_median']:.1f} ms; {result['clicks']} clicks; "
        f"{result['moves_per_s']:.0f} moves/s served"
    )


def screenshots(driver, folder: Path) -> None:
    """A seat's page at the start, the middle and the end of two games.

    Search and rescue (a person beside mappo and cbs) and 5-player Avalon (a person among the
    bots and the deduction player).
    """
    folder.mkdir(parents=True, exist_ok=True)
    cases = [
        ("search_rescue", ENV_ID, {"alpha": "human", "bravo": "mappo", "charlie": "cbs"},
         {}, "alpha"),
        ("avalon", "mase/Avalon-v0", {"alpha": "scripted", "bravo": "human", "charlie":
         "scripted", "delta": "deduction", "echo": "scripted"},
         {"roles": "avalonbench-5", "discussion": 1}, "bravo"),
    ]  # fmt: skip
    for name, env_id, team, env_args, seat in cases:
        game = WebGame(env_id, team, env_kwargs=env_args, seed=3)
        with WebServer([game]) as server:
            driver.get(server.links()[seat])
            time.sleep(1.0)
            driver.save_screenshot(str(folder / f"{name}-start.png"))
            driver.execute_script(AUTOPLAY.replace("< 50", "< 400"))
            time.sleep(4.0 if name == "avalon" else 2.5)
            driver.execute_script("clearInterval(window.MASE_AUTOPLAY)")
            time.sleep(0.5)
            driver.save_screenshot(str(folder / f"{name}-middle.png"))
            driver.execute_script(AUTOPLAY)
            game.finished.wait(300)
            time.sleep(0.5)
            driver.save_screenshot(str(folder / f"{name}-end.png"))
        print(f"screenshots: {folder}/{name}-{{start,middle,end}}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--episodes", type=int, default=2, help="episodes per game")
    parser.add_argument("--screenshots", type=Path, help="also write pages' screenshots here")
    args = parser.parse_args()
    drivers = [open_browser() for _ in range(args.games)]
    try:
        print(f"web table on loopback, {os.cpu_count()} CPU(s); {ENV_ID}, {TEAM}")
        print(line(play(drivers, 1, args.episodes)))
        print(line(play(drivers, args.games, args.episodes)))
        print(f"  reference: the goal, under {GOAL_MS:.0f} ms median per move with all "
              f"{args.games} games responsive")  # fmt: skip
        print(f"  throughput, {args.games} games at once, each person a websocket client "
              f"answering at once: {served(args.games, args.episodes):.0f} moves/s; the same "
              f"games' bots alone, no server: {bots_alone(args.games, args.episodes):.0f} "
              "moves/s")  # fmt: skip
        if args.screenshots:
            screenshots(drivers[0], args.screenshots)
    finally:
        for driver in drivers:
            driver.quit()


if __name__ == "__main__":
    main()
