"""The web table (``mase play --web``), through its real server: uvicorn on loopback, websockets.

Every test talks to the server as a page does (:mod:`web_clients`): a websocket per seat,
JSON frames. What a seat is sent is judged from outside the server: by the bytes its socket
received, against a twin game it cannot tell apart, and by the run's records on disk. The
pages in a real browser are in ``test_web_browser.py``.
"""

import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest
from test_task_contract import TASKS
from web_clients import (
    DealOptions,
    SeatClient,
    first_legal,
    play_all,
    play_out,
    same_until_seen,
    socket_url,
)
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

import mase
from mase.envs.avalon import language_model as avalon_mind
from mase.llm import LLMConfig
from mase.llm.server import OfflineServer
from mase.replay import write_replay
from mase.runner.store import read_records
from mase.web import MAX_REPLY_CHARS, WebGame, WebServer
from mase.web.app import CLOSE_TAKEN, CLOSE_UNKNOWN, MAX_FRAME_BYTES

SR = "mase/SearchRescue-v0"


def closed_code(client: SeatClient) -> int:
    """Read until the server closes the socket; its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            client.next()
    return closed.value.rcvd.code


def test_a_person_plays_a_whole_game_beside_a_trained_policy_and_a_planner(tmp_path):
    game = WebGame(SR, {"alpha": "human", "bravo": "mappo", "charlie": "cbs"}, out=tmp_path)
    with WebServer([game]) as server:
        links = server.links()
        assert set(links) == {"alpha"}
        client = play_out(SeatClient(links["alpha"]))
    moves = [json.loads(f) for f in client.received]
    final = [m for m in moves if m["type"] == "state"][-1]
    assert final["over"] and "reward" in final
    (record,) = read_records(tmp_path / "episodes.jsonl")
    config = json.loads((tmp_path / "config.json").read_text())
    assert config["team"] == "alpha=human,bravo=mappo,charlie=cbs" and config["record"]
    assert record["frames"] and record["metrics"]["rounds"] >= 1
    sent = [t for t in record["turns"] if t["agent"] == "alpha"]
    assert len(sent) == final["turn"]["round"] or len(sent) >= 1
    page = write_replay(tmp_path, view="alpha")  # the records read as any evaluation's
    assert page.is_file() and "alpha" in page.read_text()
    assert not any(place.token in (tmp_path / "episodes.jsonl").read_text()
                   for place in game.seats.values())  # fmt: skip


def test_hostile_frames_get_a_refusal_and_the_seat_plays_on(tmp_path):
    game = WebGame(SR, {"alpha": "human", "bravo": "human", "charlie": "random"})
    with WebServer([game]) as server:  # bravo never moves: after alpha's move, it waits
        link = server.links()["alpha"]
        client = SeatClient(link)
        seq = client.my_turn()["seq"]
        hostile = [
            (b"\x00\xff binary", "binary"),
            ("{not json", "not JSON"),
            (json.dumps([1, 2]), '{"type": "move"'),
            (json.dumps({"type": "shout", "text": "x"}), '{"type": "move"'),
            (json.dumps({"type": "move", "text": 7, "seq": seq}), "a move is text"),
            (json.dumps({"type": "move", "text": "x" * (MAX_REPLY_CHARS + 1), "seq": seq}),
             "characters"),
            (json.dumps({"type": "move", "text": "go to room 0", "seq": seq - 1}), "moved on"),
            (json.dumps({"type": "move", "text": "dance the tango", "seq": seq}),
             "Not a legal move"),
        ]  # fmt: skip
        for payload, why in hostile:
            client.send(payload)
            refusal = client.until(lambda m: m["type"] in ("refused", "state"))
            assert refusal["type"] == "refused" and why in refusal["text"], (payload, refusal)
        client.move(client.state["legal"][0])  # the connection stayed: a legal move is played
        after = client.until(lambda m: m["type"] == "state")
        assert after["seq"] > seq and not after["turn"]["you"]
        client.move("go to room 0")  # out of turn
        assert "not your turn" in client.until(lambda m: m["type"] == "refused")["text"]
        # a frame over the limit is cut off by the server itself, with its close code
        client.send("x" * (MAX_FRAME_BYTES + 1))
        assert closed_code(client) == 1009
        # a wrong token, an odd one, and a second tab on a seat
        for bad in ("nope", "x" * 500, "%C3%A9t%C3%A9"):
            with pytest.raises(urllib.error.HTTPError) as missing:
                urllib.request.urlopen(link.rsplit("/", 1)[0] + "/" + bad)
            assert missing.value.code == 404
            stranger = SeatClient(link[: link.rfind("/") + 1] + bad)
            assert closed_code(stranger) == CLOSE_UNKNOWN
        first, second = SeatClient(link), SeatClient(link)
        first.next()
        assert closed_code(second) == CLOSE_TAKEN
        first.close()
    assert not game.error


def test_a_closed_tab_rejoins_where_the_game_is():
    game = WebGame(SR, {"alpha": "human", "bravo": "scripted", "charlie": "scripted"})
    with WebServer([game]) as server:
        link = server.links()["alpha"]
        tab = SeatClient(link)
        for _ in range(3):
            tab.move(first_legal(tab.my_turn()))
        where = tab.my_turn()
        tab.close()
        time.sleep(0.2)
        again = SeatClient(link)
        rejoined = again.next()
        assert rejoined == where  # the game waited for the seat, and shows it as it was
        play_out(again)
    assert game.finished.is_set() and not game.error


def _bytes_to_every_seat(options, seed):
    env_args = {"roles": "avalonbench-5", "discussion": 1}
    seats = mase.make("mase/Avalon-v0", **env_args).possible_agents
    deal = (lambda env: DealOptions(env, options),)
    game = WebGame("mase/Avalon-v0", {s: "human" for s in seats}, seed=seed,
                   env_kwargs=env_args, wrappers=deal)  # fmt: skip
    with WebServer([game]) as server:
        clients = [SeatClient(link) for link in server.links().values()]
        play_all(clients)
    assert not game.error
    return {c.state["seat"]: c.received for c in clients}


def test_every_byte_a_seat_is_sent_is_the_same_in_twin_deals_it_cannot_tell_apart():
    """Two games dealt roles that the blind seat cannot tell apart, the same scripted people.

    Until an event in the blind seat's audience differs, every frame its socket received must
    be byte-identical: the server sends a seat nothing of what it does not know.
    """
    base = mase.make("mase/Avalon-v0", roles="avalonbench-5", discussion=1).unwrapped
    compared = 0
    for seed in (0, 1):
        ((blind, deal_a, deal_b),) = base.hidden_twins(seed)
        a, b = _bytes_to_every_seat(deal_a, seed), _bytes_to_every_seat(deal_b, seed)
        compared += same_until_seen(a[blind], b[blind])
        assert a != b  # the deals did differ for the other seats
    assert compared > 20


def test_a_stopped_server_resumes_keeping_finished_games_and_replaying_the_unfinished(tmp_path):
    team = {"alpha": "human", "bravo": "scripted", "charlie": "scripted"}
    first = WebGame(SR, team, episodes=2, out=tmp_path)
    with WebServer([first]) as server:
        client = SeatClient(server.links()["alpha"])
        while client.my_turn()["game"]["episode"] == 0:
            client.move(first_legal(client.state))
        start_of_second = next(
            json.loads(f)
            for f in client.received
            if json.loads(f).get("game", {}).get("episode") == 1
        )
        for _ in range(2):  # a few moves into the second game, then the server stops
            client.move(first_legal(client.my_turn()))
    kept = (tmp_path / "episodes.jsonl").read_text()
    assert [r["episode"] for r in read_records(tmp_path / "episodes.jsonl")] == [0]
    tokens = {s: p.token for s, p in first.seats.items()}
    second = WebGame(SR, team, episodes=2, out=tmp_path, resume=True, tokens=tokens)
    with WebServer([second]) as server:
        assert server.links()["alpha"].endswith(tokens["alpha"])  # the same link
        client = SeatClient(server.links()["alpha"])
        again = client.until(lambda m: m["type"] == "state" and m["game"]["episode"] == 1)
        assert again["text"] == start_of_second["text"]  # from its seed, from the start
        play_out(client)
    records = read_records(tmp_path / "episodes.jsonl")
    assert [r["episode"] for r in records] == [0, 1]
    assert json.dumps(records[0], sort_keys=True) == json.dumps(
        json.loads(kept.splitlines()[0]), sort_keys=True
    )  # the finished game was kept, not played again


def test_the_server_answers_while_a_model_seat_waits_on_its_endpoint():
    thinking, release = threading.Event(), threading.Event()

    def slow_mind(messages):
        thinking.set()
        release.wait(60)
        return avalon_mind.respond(messages)

    env_args = {"roles": "avalonbench-5", "discussion": 0}
    seats = mase.make("mase/Avalon-v0", **env_args).possible_agents
    team = {s: "scripted" for s in seats} | {seats[0]: "llm", seats[1]: "human"}
    with OfflineServer(slow_mind) as model:
        llm = LLMConfig(base_url=model.base_url, cache=False, max_retries=0, timeout=120)
        game = WebGame("mase/Avalon-v0", team, env_kwargs=env_args, llm=llm)
        with WebServer([game]) as server:
            assert thinking.wait(60), "the model seat never asked its model"
            start = time.monotonic()
            page = urllib.request.urlopen(server.links()[seats[1]], timeout=10).read()
            client = SeatClient(server.links()[seats[1]])
            state = client.next()
            answered = time.monotonic() - start
            release.set()
            assert b"<html" in page and state["type"] == "state"
            assert not game.finished.is_set()  # the model was still thinking
            assert answered < 10
            play_out(client)
    assert not game.error


def test_a_person_out_of_time_gets_the_fallback_move_and_is_told():
    game = WebGame(SR, {"alpha": "human", "bravo": "random", "charlie": "random"},
                   time_limit=0.05, fallback="scripted")  # fmt: skip
    with WebServer([game]) as server:
        client = SeatClient(server.links()["alpha"])
        told = client.until(lambda m: m["type"] == "notice")
        assert "Time ran out" in told["text"]
        client.until(lambda m: m["type"] == "finished")
    assert not game.error


def test_binding_beyond_loopback_needs_the_flag():
    game = WebGame(SR, {"alpha": "human", "bravo": "random", "charlie": "random"})
    with pytest.raises(ValueError, match="allow_remote"):
        WebServer([game], host="0.0.0.0")
    out = subprocess.run(
        [sys.executable, "-m", "mase.cli", "play", "--web", SR, "--host", "0.0.0.0"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode != 0 and "--allow-remote" in out.stderr


def test_mase_play_web_prints_a_link_per_person_and_records_the_game(tmp_path):
    command = [sys.executable, "-m", "mase.cli", "play", "--web", SR, "--team",
               "alpha=human,bravo=scripted,charlie=human", "--out", str(tmp_path / "run"),
               "--close-after", "0"]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        links = {}
        while len(links) < 2:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            if "/seat/" in line:
                seat, _, link = line.strip().partition(": ")
                links[seat] = link
        play_all([SeatClient(links["alpha"]), SeatClient(links["charlie"])])
        rest, errors = p.communicate(timeout=60)
    assert p.returncode == 0, errors
    assert "records:" in rest
    assert len(read_records(tmp_path / "run" / "episodes.jsonl")) == 1
    saved = json.loads((tmp_path / "run" / "seats.json").read_text())
    assert set(saved) == {"alpha", "charlie"}
    assert oct((tmp_path / "run" / "seats.json").stat().st_mode & 0o777) == "0o600"


@pytest.mark.parametrize("env_id", TASKS)
def test_every_task_is_played_to_its_end_from_a_web_seat(env_id):
    env = mase.make(env_id)
    seats = list(env.possible_agents)
    team = {s: "random" for s in seats} | {seats[-1]: "human"}
    game = WebGame(env_id, team)
    with WebServer([game]) as server:
        client = play_out(SeatClient(server.links()[seats[-1]]))
    states = [m for m in map(json.loads, client.received) if m["type"] == "state"]
    assert states[-1]["over"], env_id
    assert any(s["turn"]["you"] for s in states), env_id
    assert not game.error, game.error


def test_a_name_rebound_to_loopback_reaches_no_seat():
    """A page elsewhere whose name resolves to 127.0.0.1 (DNS rebinding) sends its own Host."""
    game = WebGame(SR, {"alpha": "human", "bravo": "random", "charlie": "random"})
    with WebServer([game]) as server:
        link = server.links()["alpha"]
        request = urllib.request.Request(link, headers={"Host": "attacker.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request)
        assert refused.value.code == 400
        assert urllib.request.urlopen(link).status == 200
        with pytest.raises(InvalidStatus) as handshake:  # the websocket too
            with connect(socket_url(link), additional_headers={"Host": "attacker.example"}):
                pass
        assert handshake.value.response.status_code == 400


def test_the_team_of_a_web_game_names_every_seat_and_its_people():
    import argparse

    from mase.cli.web import web_team

    seats, ask = ["alpha", "bravo", "charlie"], argparse.Namespace
    given = web_team(ask(team="alpha=human,bravo=mappo,charlie=cbs", seat=None), seats, ())
    assert given == {"alpha": "human", "bravo": "mappo", "charlie": "cbs"}
    assert web_team(ask(team="scripted", seat="bravo"), seats, ())["bravo"] == "human"
    assert web_team(ask(team="scripted", seat=None), seats, ()) == {
        "alpha": "human",
        "bravo": "scripted",
        "charlie": "scripted",
    }  # no person named: the first seat is one
    with pytest.raises(SystemExit, match="--seat must be one of"):
        web_team(ask(team="scripted", seat="zulu"), seats, ())
    sided = web_team(ask(team="scripted,good=deduction,alpha=human", seat=None), seats,
                     ("good", "evil"))  # fmt: skip
    assert sided["alpha"] == "human" and sided["bravo"] == {"good": "deduction", "evil": "scripted"}
