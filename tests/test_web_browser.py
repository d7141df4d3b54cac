"""The web table in real browsers: headless Chromium under selenium (``web_browser``).

A scripted person plays whole games by clicking the page's buttons and typing in its text
box, as a person would. What each page received is read from Chrome's own log of websocket
frames, outside the page and the server, and scanned for every other seat's secret; the
secrets come from the game's records (the role facts of events the seat was never in the
audience of), stated in the task's own fact sentences.
"""

import json

import pytest
from web_browser import (
    Person,
    frames_received,
    needs_browser,
    open_browser,
    play_together,
    screenshot,
    wait_for,
)
from web_clients import DealOptions, same_until_seen

import mase
from mase.envs.avalon import language_model as avalon_mind
from mase.llm import LLMConfig
from mase.llm.server import OfflineServer
from mase.runner.store import read_records
from mase.web import WebGame, WebServer

pytestmark = needs_browser

SR = "mase/SearchRescue-v0"


@pytest.fixture
def browsers():
    opened = []

    def new():
        opened.append(open_browser())
        return opened[-1]

    yield new
    for driver in opened:
        driver.quit()


def _png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000, path


def test_a_person_plays_a_whole_search_and_rescue_game_beside_mappo_and_cbs(browsers, tmp_path):
    game = WebGame(SR, {"alpha": "human", "bravo": "mappo", "charlie": "cbs"}, out=tmp_path / "run")
    with WebServer([game]) as server:
        driver = browsers()
        person = Person(driver, server.links()["alpha"])
        shots = [screenshot(driver, tmp_path / "start.png")]
        play_together(
            [person],
            every=lambda k: k == 5 and shots.append(screenshot(driver, tmp_path / "middle.png")),
        )
        shots.append(screenshot(driver, tmp_path / "end.png"))
        page = person.look()
    for shot in shots:
        _png(shot)
    assert page["errors"] == [] and page["finished"]
    assert "Game over" in driver.find_element("id", "turn").text
    (record,) = read_records(tmp_path / "run" / "episodes.jsonl")
    mine = [t for t in record["turns"] if t["agent"] == "alpha"]
    assert len(mine) == person.moves  # every click was a move, and the record holds each


def test_a_closed_tab_reopens_where_the_game_is(browsers):
    game = WebGame(SR, {"alpha": "human", "bravo": "scripted", "charlie": "scripted"})
    with WebServer([game]) as server:
        driver = browsers()
        link = server.links()["alpha"]
        person = Person(driver, link)
        for _ in range(4):
            person.my_turn()
            person.act()
        before = person.my_turn()["seq"], driver.find_element("id", "obs").text
        driver.get("about:blank")  # the tab is closed: its socket goes
        person = Person(driver, link)  # and opened again from its link (its first state drawn)
        assert (person.look()["seq"], driver.find_element("id", "obs").text) == before
        play_together([person])
    assert game.finished.is_set() and not game.error


def test_hostile_frames_and_tokens_from_a_browser_get_refusals_on_the_page(browsers):
    game = WebGame(SR, {"alpha": "human", "bravo": "human", "charlie": "random"})
    with WebServer([game]) as server:
        driver = browsers()
        link = server.links()["alpha"]
        person = Person(driver, link)
        person.my_turn()
        notice = lambda: driver.find_element("id", "notice").text  # noqa: E731

        def refused(script, words):
            driver.execute_script(script)
            wait_for(lambda: words in notice(), what=f"a refusal with {words!r}")

        refused("MASE_SEAT.socket.send('{not json')", "not JSON")
        refused("MASE_SEAT.socket.send(new Uint8Array([0, 255]))", "binary")
        long_move = "{type: 'move', text: 'x'.repeat(5000), seq: Number(document.body.dataset.seq)}"
        refused(f"MASE_SEAT.socket.send(JSON.stringify({long_move}))", "characters")
        reply = driver.find_element("id", "reply")
        reply.send_keys("dance the tango")
        driver.find_element("id", "send").click()
        wait_for(lambda: "Not a legal move" in notice())  # the task's own reason
        assert person.act()  # and the seat tries again
        # a wrong token, and a second tab on a seat already open
        other = browsers()
        other.get(link.rsplit("/", 1)[0] + "/not-a-token")
        assert "no seat of this server" in other.find_element("id", "refused").text
        other.get(link)
        wait_for(lambda: "another tab" in other.find_element("id", "turn").text)
        assert person.look()["errors"] == []


def _secret_sentences(record, base, seat):
    """The role facts of other seats that ``seat`` was never shown, in the task's words."""
    shown = {json.dumps(f) for e in record["events"] if seat in e["audience"] for f in e["facts"]}
    secrets = {}
    for event in record["events"]:
        for key, value in event["facts"]:
            if key[0] == "role" and key[1] != seat and json.dumps([key, value]) not in shown:
                secrets[json.dumps([key, value])] = base.facts_text({tuple(key): value})
    return secrets


def _avalon_in_five_browsers(browsers, out, seed, options):
    """A 7-seat Avalon game: five people in browsers, a bot, an offline LLM seat.

    Returns the game, its record, and each person's frames received and page sources.
    """
    env_args = {"roles": "avalonplay-7", "discussion": 1}
    seats = list(mase.make("mase/Avalon-v0", **env_args).possible_agents)
    people = seats[:5]
    team = {s: "human" for s in people} | {seats[5]: "scripted", seats[6]: "llm"}
    deal = (lambda env: DealOptions(env, options),)
    with OfflineServer(avalon_mind.respond) as model:
        llm = LLMConfig(base_url=model.base_url, cache=False)
        game = WebGame("mase/Avalon-v0", team, seed=seed, env_kwargs=env_args, llm=llm, out=out,
                       wrappers=deal)  # fmt: skip
        with WebServer([game]) as server:
            links = server.links()
            drivers = {s: browsers() for s in people}
            players = [Person(drivers[s], links[s]) for s in people]
            received = {s: [] for s in people}
            pages = {s: [] for s in people}

            def look(k):
                if k % 15 == 0:
                    for s in people:
                        received[s] += frames_received(drivers[s])
                        pages[s].append(drivers[s].page_source)
                if k == 30:
                    screenshot(drivers[people[0]], out / "avalon-middle.png")

            play_together(players, every=look)
            for s, player in zip(people, players, strict=True):
                received[s] += frames_received(drivers[s])
                pages[s].append(drivers[s].page_source)
                assert player.look()["errors"] == []
    assert not game.error
    (record,) = read_records(out / "episodes.jsonl")
    return game, record, received, pages


def test_five_browsers_play_whole_avalon_games_and_no_page_gets_another_seats_secret(
    browsers, tmp_path
):
    """Two games dealt roles one person's seat cannot tell apart, the same scripted people.

    Every page's frames (Chrome's log) and DOM are scanned for the other seats' roles in the
    task's words; and the blind seat's frames must be byte-identical between the twin games
    until an event it was shown differs.
    """
    base = mase.make("mase/Avalon-v0", roles="avalonplay-7", discussion=1).unwrapped
    ((blind, deal_a, deal_b),) = base.hidden_twins(0)
    assert blind in base.possible_agents[:5]
    runs = [
        _avalon_in_five_browsers(browsers, tmp_path / name, 0, deal)
        for name, deal in (("a", deal_a), ("b", deal_b))
    ]
    scanned = 0
    for game, record, received, pages in runs:
        tokens = {s: p.token for s, p in game.seats.items()}
        for s in received:
            assert received[s], s
            text = "\n".join(received[s] + pages[s]).lower()
            secrets = _secret_sentences(record, base, s)
            assert secrets, s  # every seat has others' roles it must not see
            for fact, sentence in secrets.items():
                assert sentence.lower() not in text, f"{s}'s page holds {sentence!r}"
                assert fact.lower().replace(" ", "") not in text.replace(" ", ""), (s, fact)
                scanned += 1
            for other, token in tokens.items():  # another seat's key is never sent to this one
                assert other == s or token.lower() not in text, (s, other)
    assert scanned >= 2 * 5 * 5
    (_, _, frames_a, _), (_, _, frames_b, _) = runs
    assert same_until_seen(frames_a[blind], frames_b[blind]) >= 5  # 6: then its events differ


BUILT_IN = sorted(i for package in mase.tasks.packages() for i in package.envs)


@pytest.mark.parametrize("env_id", BUILT_IN)
def test_a_person_plays_a_whole_game_of_every_built_in_task_in_chromium(env_id, browsers, tmp_path):
    seats = list(mase.make(env_id).possible_agents)
    team = {s: "random" for s in seats} | {seats[0]: "human"}
    game = WebGame(env_id, team, out=tmp_path)
    with WebServer([game]) as server:
        driver = browsers()
        person = Person(driver, server.links()[seats[0]])
        play_together([person], every=lambda k: k == 3 and screenshot(driver, tmp_path / "3.png"))
        page = person.look()
    assert page["finished"] and page["errors"] == [] and not game.error, env_id
    assert person.moves >= 1
    (record,) = read_records(tmp_path / "episodes.jsonl")
    assert any(t["agent"] == seats[0] for t in record["turns"])
