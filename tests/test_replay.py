"""``mase replay``: a recorded episode as one self-contained HTML page, checked in Chromium.

The page tests run the page in headless Chromium (Debian's ``chromium`` package). ``.ci/run``
installs it and sets ``MASE_REQUIRE_CHROMIUM=1``: there they run or fail; elsewhere, without
Chromium, they are skipped. What the browser must show comes from the rules (five rooms and
seven doors, nine bomb phases; a seat per player and five quests; an answer per debater and
round), not from the page's own code.

The page's default view holds only what every seat saw in common: the tests of what the drawing
shows run on the analyst's page (``view="analyst"``), and those of the default page check that
no secret is in its file at all.
"""

import html
import json
import os
import re

import pytest

import mase
from mase.cli import main
from mase.llm import LLMConfig, offline_server
from mase.replay import ANALYST, browser, replay_html, write_replay

CHROMIUM = browser.find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None and not os.environ.get("MASE_REQUIRE_CHROMIUM"),
    reason="Chromium is not installed (Debian: apt-get install chromium)",
)

#: Each built-in task with a drawing: how its episode is recorded (a team of offline-model
#: seats where the task has a model, so messages, beliefs and probe answers are on the page),
#: and the elements its last step must show: class -> how many (or the metric that says).
CASES = {
    "mase/SearchRescue-v0": (
        {"team": "llm", "probes": True, "belief": True},
        {"room": 5, "door": 7, "agent": 3, "phase": 9},
    ),
    "mase/Avalon-v0": ({"team": "llm", "probes": True}, {"seat": 5, "quest": 5}),
    "mase/Debate-v0": ({"team": "llm"}, {"answer": 3 * 2}),
    "mase/MenuDesign-v0": ({"team": "scripted"}, {"deliberation": 1}),
    "mase/Craft-v0": ({"team": "scripted"}, {"inventories": 1, "recipes": 1}),
    "mase/AgentVerse-v0": ({"team": "scripted"}, {"iteration": "iterations"}),
}


def record(env_id, out, team="scripted", **flags):
    """One recorded episode of ``env_id`` in ``out``; LLM seats play on the task's offline model."""
    if team == "llm":
        with offline_server(env_id) as server:
            config = LLMConfig(base_url=server.base_url, cache=False)
            mase.evaluate(env_id, team, episodes=1, out=out, record=True, llm=config, **flags)
    else:
        mase.evaluate(env_id, team, episodes=1, out=out, record=True, **flags)
    return json.loads((out / "episodes.jsonl").read_text())


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each task's recorded episode and its analyst's page: env id -> (record, page path)."""
    made = {}
    for env_id, (options, _) in CASES.items():
        out = tmp_path_factory.mktemp(env_id.split("/")[1])
        made[env_id] = (record(env_id, out, **options), write_replay(out, view=ANALYST))
    return made


@pytest.fixture(scope="module")
def common(pages):
    """Each task's default page (the common view): env id -> page path."""
    return {
        env_id: write_replay(page.parent, out=page.parent / "common.html")
        for env_id, (_, page) in pages.items()
    }


def embedded(page):
    """The episode a page embeds."""
    found = re.search(r'id="episode">(.*?)</script>', page.read_text(), re.S).group(1)
    return json.loads(found)


def count(dom, name):
    return len(re.findall(rf'class="[^"]*\b{name}\b[^"]*"', dom))


# -- the page, without a browser -----------------------------------------------------------------


def test_the_cli_writes_the_page_and_says_where(tmp_path, capsys):
    record("mase/SearchRescue-v0", tmp_path)
    assert main(["replay", str(tmp_path), "--episode", "0", "--out", str(tmp_path / "r.html")]) == 0
    assert str(tmp_path / "r.html") in capsys.readouterr().out
    page = (tmp_path / "r.html").read_text()
    assert "window.MASE_DRAW" in page and "mase/SearchRescue-v0" in page


def test_an_episode_recorded_without_frames_is_a_clear_error(tmp_path, capsys):
    mase.evaluate("mase/SearchRescue-v0", "random", episodes=1, out=tmp_path)
    assert main(["replay", str(tmp_path)]) == 2
    assert "mase eval --record" in capsys.readouterr().err


def test_an_episode_that_is_not_there_names_those_that_are(tmp_path):
    record("mase/Debate-v0", tmp_path)
    with pytest.raises(ValueError, match=r"no finished episode 7 \(it holds: 0\)"):
        write_replay(tmp_path, episode=7)


def test_a_directory_of_several_evaluations_lists_them(tmp_path):
    for team in ("a", "b"):
        record("mase/Debate-v0", tmp_path / team)
    with pytest.raises(ValueError, match="holds 2 evaluations") as caught:
        write_replay(tmp_path)
    assert str(tmp_path / "a") in str(caught.value) and str(tmp_path / "b") in str(caught.value)
    assert write_replay(tmp_path / "b").is_file()


def test_no_evaluation_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="no episodes.jsonl"):
        write_replay(tmp_path)


def test_the_model_calls_prompts_stay_out_of_the_page(pages):
    data, page = pages["mase/SearchRescue-v0"]
    assert any(seat.get("calls") for seat in data["seats"].values())
    seats = embedded(page)["record"]["seats"]
    assert seats and all("calls" not in seat for seat in seats.values())
    assert all("metrics" in seat for seat in seats.values())


# -- the page in Chromium ------------------------------------------------------------------------


@needs_chromium
@pytest.mark.parametrize("env_id", CASES)
def test_the_page_loads_without_errors_and_the_slider_moves_the_drawing(pages, env_id):
    data, page = pages[env_id]
    result = browser.selftest(page)
    assert result["errors"] == []
    assert result["steps"] == len(data["turns"]) > 0
    assert result["drawn_by_task"] and result["scene_elements"] > 0
    assert result["slider_moved"] and result["scene_changed"]
    assert result["playing"] and result["played_to"] >= 1  # the play button steps on its own


@needs_chromium
@pytest.mark.parametrize("env_id", CASES)
def test_the_last_step_shows_the_tasks_elements(pages, env_id):
    data, page = pages[env_id]
    _, expected = CASES[env_id]
    dom = browser.dom(page, step=len(data["turns"]))
    for name, n in expected.items():
        assert count(dom, name) == (data["metrics"][n] if isinstance(n, str) else n), name
    assert f"step {len(data['turns'])} of {len(data['turns'])}" in dom


@needs_chromium
def test_messages_beliefs_and_probes_show_with_their_true_answers(pages):
    data, page = pages["mase/SearchRescue-v0"]
    probe = next(p for p in data["probes"] if p.get("reply") is not None)
    step = next(
        k + 1
        for k, t in enumerate(data["turns"])
        if (t["round"], t["agent"]) == (probe["round"], probe["asked"])
    )
    dom = browser.dom(page, step=step)
    assert probe["question"] in dom
    assert f"true answer: {json.dumps(probe['truth'])}" in dom
    assert "read as:" in dom  # a message with what its claim reader took from it
    assert "recall of the oracle" in dom  # the acting agent's belief score


@needs_chromium
def test_avalon_roles_show_on_the_analysts_page_and_hide_with_the_toggle(pages):
    data, page = pages["mase/Avalon-v0"]
    roles = data["frames"][-1]["scene"]["secret"]["roles"]
    shown = browser.dom(page, step=1)  # the analyst's page opens with its secrets shown
    hidden = browser.dom(page, step=1, secrets=False)
    assert all(role in shown for role in roles)
    assert not any(f">{role}" in hidden for role in roles)
    assert "Analyst's view" in shown


@needs_chromium
def test_model_text_is_shown_as_text_never_run(pages, tmp_path):
    data, _ = pages["mase/Debate-v0"]
    hostile = '</script><script>document.title="pwned"</script><img src=x onerror=alert(1)>'
    data = json.loads(json.dumps(data))
    data["turns"][0]["action"] = hostile
    data["frames"][1]["text"] = hostile
    page = tmp_path / "hostile.html"
    page.write_text(replay_html(data, {"env_id": "mase/Debate-v0", "team": "llm"}, view=ANALYST))
    dom = browser.dom(page, step=1)
    assert "&lt;/script&gt;&lt;script&gt;document.title" in dom  # shown as text
    page_itself = re.sub(r'(id="episode">).*?(</script>)', r"\1\2", dom, flags=re.S)
    assert "<img" not in page_itself  # no element was made of it
    assert "<title>mase/Debate-v0" in dom  # and no script of it ran
    assert browser.selftest(page)["errors"] == []


@needs_chromium
def test_a_screenshot_is_a_picture_of_the_page(pages, tmp_path):
    _, page = pages["mase/SearchRescue-v0"]
    png = browser.screenshot(page, tmp_path / "sar.png", step=5, size=(1000, 700))
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1000, 700)
    assert len(data) > 30_000  # a drawing, not a blank page
    image = pytest.importorskip("matplotlib.image").imread(png)[:, :, :3]
    pixels = (image * 255).round().astype(int).reshape(-1, 3)
    drawn = {tuple(p) for p in pixels}
    # the bombs' phases in the three cutter colours, and the page's header band
    for colour in ((0xD6, 0x28, 0x28), (0x2A, 0x9D, 0x3F), (0x25, 0x63, 0xEB), (0x23, 0x39, 0x5D)):
        assert colour in drawn, colour


@needs_chromium
def test_with_prompts_each_move_shows_the_model_calls_made_for_it(pages, tmp_path):
    data, _ = pages["mase/SearchRescue-v0"]
    page = tmp_path / "prompts.html"
    config = {"env_id": "mase/SearchRescue-v0", "team": "llm"}
    page.write_text(replay_html(data, config, prompts=True, view=ANALYST))
    # alpha's second move: the calls its policy numbered turn 2
    step = [k + 1 for k, t in enumerate(data["turns"]) if t["agent"] == "alpha"][1]
    calls = [c for c in data["seats"]["alpha"]["calls"] if c["turn"] == 2]
    dom = browser.dom(page, step=step)
    assert f"model calls ({len(calls)})" in dom
    action = next(c for c in calls if c["purpose"] == "action")
    assert html.escape(action["reply"].splitlines()[0], quote=False) in dom
    assert browser.selftest(page)["errors"] == []
    assert "<summary>model calls" not in browser.dom(pages["mase/SearchRescue-v0"][1], step=step)


# -- the default page: what every seat saw in common ---------------------------------------------


def _private_texts(data, seats):
    """Texts only some seats saw: notes of events not every seat saw, observations, beliefs."""
    common = {e["note"] for e in data["events"] if set(seats) <= set(e["audience"])}
    texts = {
        e["note"]
        for e in data["events"]
        if not set(seats) <= set(e["audience"]) and len(e["note"]) > 12 and e["note"] not in common
    }
    for turn in data["turns"]:
        if turn.get("observation"):
            texts.add(turn["observation"])
        action = turn.get("action")
        if isinstance(action, dict) and action.get("belief"):
            texts.add(action["belief"])
    return {t for t in texts if not any(t in c for c in common)}


@pytest.mark.parametrize("env_id", CASES)
def test_the_default_page_holds_no_secret(pages, common, env_id):
    data, _ = pages[env_id]
    seats = list(mase.make(env_id).possible_agents)
    text = common[env_id].read_text()
    page = embedded(common[env_id])
    assert page["view"]["name"] == "common"
    for key in ("probes", "beliefs", "metrics", "seats", "seed", "returns", "messages"):
        assert key not in page["record"], key
    assert all("secret" not in f["scene"] for f in page["record"]["frames"])
    assert all(set(seats) <= set(e["audience"]) for e in page["record"]["events"])
    private = _private_texts(data, seats)
    assert private, "the episode has secrets to keep"
    leaked = [t for t in private if json.dumps(t, ensure_ascii=False)[1:-1] in text]
    assert not leaked, leaked[:3]
    for probe in data.get("probes", []):
        assert probe["question"] not in text  # a question is its seat's alone
    assert f"seed {data['seed']}" not in text


def test_the_default_avalon_page_names_no_role(pages, common):
    data, _ = pages["mase/Avalon-v0"]
    text = common["mase/Avalon-v0"].read_text()
    roles = set(data["frames"][-1]["scene"]["secret"]["roles"])
    seats = set(mase.make("mase/Avalon-v0").possible_agents)
    revealed = json.dumps([e for e in data["events"] if set(e["audience"]) >= seats])
    assert not [r for r in roles if r in text and r not in revealed]
    assert "role is" not in text  # "Alpha's role is Loyal Servant": each seat's own


def test_a_seats_page_holds_its_own_view(pages, tmp_path, capsys):
    data, page = pages["mase/SearchRescue-v0"]
    out = tmp_path / "bravo.html"
    assert main(["replay", str(page.parent), "--seat", "bravo", "--out", str(out)]) == 0
    assert "bravo view" in capsys.readouterr().out
    view = embedded(out)
    assert view["view"]["label"].startswith("Bravo's view")
    text = out.read_text()
    own = [t["observation"] for t in data["turns"] if t["agent"] == "bravo"]
    others = [t["observation"] for t in data["turns"] if t["agent"] != "bravo"]
    assert all(json.dumps(o)[1:-1] in text for o in own[:3])
    assert not any(json.dumps(o)[1:-1] in text for o in others)
    assert all(p["asked"] == "bravo" and "truth" not in p for p in view["record"]["probes"])
    assert all("bravo" in e["audience"] for e in view["record"]["events"])
    with pytest.raises(ValueError, match="no seat 'zulu'"):
        write_replay(page.parent, out=tmp_path / "z.html", view="zulu")


def test_the_cli_writes_the_analysts_page_on_request(pages, tmp_path, capsys):
    data, page = pages["mase/Avalon-v0"]
    out = tmp_path / "all.html"
    assert main(["replay", str(page.parent), "--analyst", "--out", str(out)]) == 0
    assert "analyst view" in capsys.readouterr().out
    assert embedded(out)["record"]["frames"] == data["frames"]
    assert f"seed {data['seed']}" in out.read_text()


@needs_chromium
@pytest.mark.parametrize("env_id", CASES)
def test_the_default_page_loads_and_says_whose_view_it_is(common, env_id):
    result = browser.selftest(common[env_id])
    assert result["errors"] == []
    assert result["slider_moved"] and result["drawn_by_task"]
    dom = browser.dom(common[env_id])
    assert "Common view: only what every seat saw" in dom
    assert 'id="secret-toggle" hidden' in dom  # nothing to show behind a toggle
