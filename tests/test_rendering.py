"""``render_mode="rgb_array"``: each task's scene drawn as its replay page draws it.

Gymnasium's ``check_env`` (warnings as errors) and PettingZoo's ``render_test`` run on every
registered task; the frames keep one size for a whole episode (video recorders need it), change
exactly when the scene does, and show what the scene holds: in search and rescue an agent's
marker is in the room the agent is in, and a bomb's label turns green when it is defused.
"""

import functools
import json
import math
import sys
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test

import mase
import mase.canvas
from mase import rendering
from mase.agents import make_policy
from mase.envs.search_rescue import render as sar_render

pytestmark = pytest.mark.skipif(not rendering.AVAILABLE, reason="matplotlib is not installed")

TASKS = mase.list_envs("mase")


def frame_shape(env_id):
    """The frame size a task's drawing declares, as numpy writes an image's shape."""
    drawing = rendering.resolve(mase.registry.env_creator(env_id)[0].drawing)
    return (drawing.height, drawing.width, 3)


@pytest.mark.parametrize("env_id", TASKS)
def test_gymnasium_check_env_on_the_single_agent_view_warns_nothing(env_id, capsys):
    env = gymnasium.make(env_id, render_mode="rgb_array")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)  # every render mode, render_fps declared
        env.reset(seed=0)
        frame = env.render()  # gymnasium's passive checker looks at the first frame
    assert frame.shape == frame_shape(env_id) and frame.dtype == np.uint8
    fps = env.unwrapped.metadata["render_fps"]
    assert fps == mase.make(env_id).metadata["render_fps"] and fps > 0


@pytest.mark.parametrize("env_id", TASKS)
def test_pettingzoo_render_test(env_id, capsys):
    shape = frame_shape(env_id)
    render_test(functools.partial(mase.make, env_id), {"rgb_array": lambda f: f.shape == shape})


def scene_text(env):
    return json.dumps(env.unwrapped.scene(), sort_keys=True, default=str)


@pytest.mark.parametrize("env_id", TASKS)
def test_frames_keep_their_size_and_change_exactly_when_the_scene_does(env_id):
    env = mase.make(env_id, render_mode="rgb_array")
    env.reset(seed=1)
    kind = "scripted" if env.unwrapped.scripted_policy else "random"
    team = {a: make_policy(kind, env) for a in env.possible_agents}
    for seat, policy in team.items():
        policy.reset(seat, env, seed=1)
    shape = frame_shape(env_id)
    before = (scene_text(env), env.render())
    changes = 0
    for turn, agent in enumerate(env.agent_iter(500)):
        obs, _, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else team[agent].act(obs, info))
        if turn < 20 or not env.agents:  # the first turns, and the episode's end
            now = (scene_text(env), env.render())
            assert now[1].shape == shape and now[1].dtype == np.uint8
            assert (now[0] != before[0]) == (not np.array_equal(now[1], before[1]))
            changes += now[0] != before[0]
            before = now
    assert changes > 1


# -- search and rescue: the picture shows where the agents are and which bombs are defused -------

ALPHA = np.array([0x26, 0x46, 0x53])  # alpha's marker (the first agent colour of replay.js)
DEFUSED = np.array([0x17, 0x70, 0x2B])  # a defused bomb's label


def pixels_of(frame, colour):
    """(row, column) of every pixel of exactly ``colour`` (within antialiasing's reach)."""
    return np.argwhere(np.abs(frame.astype(int) - colour).max(axis=-1) <= 4)


def in_room(points, centre):
    return np.hypot(points[:, 1] - centre[0], points[:, 0] - centre[1]) < sar_render.ROOM


def one_phase_bomb_for_alpha(env):
    """A seed whose world has a one-phase bomb of a colour alpha cuts, and that bomb."""
    for seed in range(100):
        env.reset(seed=seed)
        world, layout = env.unwrapped.world, env.unwrapped.layout
        for bomb in world.bombs:
            if len(bomb.sequence) == 1 and bomb.sequence[0] in layout.cutters["alpha"]:
                if world.positions["alpha"] != bomb.room:
                    return bomb
    raise AssertionError("no seed deals a one-phase bomb alpha can cut")


def test_search_rescue_picture_follows_alpha_and_shows_the_bomb_it_defuses():
    env = mase.make("mase/SearchRescue-v0", render_mode="rgb_array")
    bomb = one_phase_bomb_for_alpha(env)
    base = env.unwrapped
    layout = base.layout
    centres = sar_render.room_centres(layout.rooms)
    seen_rooms = set()
    while base.world.bombs[bomb.id - 1].status != "defused":
        agent = env.agent_selection
        if agent != "alpha":
            env.step(0)  # the teammates inspect (or waste the turn)
            continue
        frame = env.render()
        marker = pixels_of(frame, ALPHA)
        here = base.world.positions["alpha"]
        assert len(marker) > 100 and in_room(marker, centres[here]).all()
        for room, centre in centres.items():
            assert room == here or not in_room(marker, centre).any()
        label = pixels_of(frame, DEFUSED)
        assert not in_room(label, centres[bomb.room]).any()  # not defused yet: not green
        seen_rooms.add(here)
        if here == bomb.room:
            env.step(layout.action_index("cut", bomb.sequence[0]))
        else:
            dist = layout.distances()
            step = min(layout.neighbours[here], key=lambda r: dist[r][bomb.room])
            env.step(layout.action_index("go", step))
    assert len(seen_rooms) >= 2  # alpha's marker was seen to move
    label = pixels_of(env.render(), DEFUSED)
    assert in_room(label, centres[bomb.room]).sum() > 20


# -- the drawing primitives keep every text inside the frame -------------------------------------


def test_a_line_too_long_for_the_frame_is_drawn_smaller_inside_it():
    canvas = rendering.Canvas(200, 60)
    canvas.text(10, 30, "a label much too long to fit in two hundred pixels " * 3)
    ink = np.argwhere(canvas.pixels().min(axis=-1) < 200)
    assert len(ink) > 50 and ink[:, 1].max() < 199


def test_a_page_too_long_for_the_frame_keeps_to_its_box():
    canvas = rendering.Canvas(320, 240)
    words = "the quick brown fox jumps over the lazy dog " * 6
    parts = [rendering.heading("Title")] + [rendering.text(f"{k}: {words}") for k in range(30)]
    rendering.flow(canvas, parts, keep=1, box=(10, 10, 300, 220))
    pixels = canvas.pixels()
    ink = np.argwhere(pixels.min(axis=-1) < 200)
    assert ink[:, 0].min() >= 10 and ink[:, 0].max() < 230 and ink[:, 1].max() < 310
    assert (pixels[:10] == 255).all() and (pixels[230:] == 255).all()


def test_a_table_too_tall_for_its_room_keeps_its_header_and_latest_rows():
    rows = [["quest", "team"]] + [[str(k), "alpha, bravo"] for k in range(40)]
    whole = rendering.Table(rows).layout(300, 1.0)
    fitted = rendering.Table(rows).layout(300, 1.0, max_height=150)
    assert whole.height > 150 >= fitted.height > 100


def test_a_paragraph_too_tall_for_its_room_stops_inside_it():
    para = rendering.text("word " * 400)
    assert para.layout(300, 1.0).height > 200 >= para.layout(300, 1.0, max_height=200).height


def test_any_text_a_model_may_write_is_drawn_without_a_warning():
    odd = "emoji \U0001f600 漢字 שלום \x00\x07 tab\tend \ud800 zero\u200bwidth " + "x" * 500
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns of each glyph a font lacks
        frame = rendering.text_frame(f"{odd}\n{odd}")
    assert frame.shape == (*reversed(rendering.TEXT_FRAME), 3)


def test_text_with_dollar_signs_is_drawn_as_written():
    """A model's output or a price ("$4.50") once made the rgb_array render typeset math."""
    image = rendering.text_frame("It costs $4.50 and $x^2$ {unbalanced $ sign")
    assert image.shape == (*reversed(rendering.TEXT_FRAME), 3)
    assert image.min() < 128 < image.max()


def test_without_matplotlib_the_error_names_the_plot_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    mase.canvas._matplotlib.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"pip install 'mase-suite\[plot\]'"):
            rendering.Canvas(10, 10)
    finally:
        monkeypatch.undo()
        mase.canvas._matplotlib.cache_clear()


def test_frames_make_a_video_with_gymnasiums_save_video(tmp_path):
    pytest.importorskip("moviepy")
    from gymnasium.utils.save_video import save_video

    env = gymnasium.make("mase/SearchRescue-v0", render_mode="rgb_array")
    env.reset(seed=0)
    frames = [env.render()]
    for _ in range(3):
        env.step(env.action_space.sample())
        frames.append(env.render())
    save_video(frames, str(tmp_path), fps=env.metadata["render_fps"])
    assert list(tmp_path.glob("*.mp4"))


def test_the_geometry_puts_rooms_on_a_ring():
    centres = sar_render.room_centres((0, 3, 5, 6, 8))
    assert centres[0] == pytest.approx((sar_render.CX, sar_render.CY - sar_render.RING))
    distances = [math.dist(c, (sar_render.CX, sar_render.CY)) for c in centres.values()]
    assert distances == pytest.approx([sar_render.RING] * 5)


def test_without_matplotlib_asking_for_rgb_array_names_the_plot_extra(monkeypatch):
    """A base install has no rgb_array mode; asking for it says which extra brings it."""
    monkeypatch.setattr(rendering, "AVAILABLE", False)
    task_class = type(mase.make("mase/SearchRescue-v0").unwrapped)
    monkeypatch.setattr(task_class, "metadata", {**task_class.metadata,
                                                 "render_modes": ["ansi", "human"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"rgb_array.*pip install 'mase-suite\[plot\]'"):
        mase.make("mase/SearchRescue-v0", render_mode="rgb_array")
