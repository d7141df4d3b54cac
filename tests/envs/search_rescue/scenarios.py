"""Hand-placed search-and-rescue worlds and scripted turns, shared by the scenario tests.

Paper layout: rooms 0, 3, 5, 6, 8; doors 0-3, 0-5, 0-6, 0-8, 3-8, 5-6, 6-8. Cutters: alpha
red+green, bravo green+blue, charlie blue+red.
"""

from mase.envs.search_rescue import world

#: bomb id -> (room, sequence)
BOMBS = {1: (0, ("red",)), 2: (3, ("red", "green")), 3: (5, ("green", "blue")), 4: (6, ("blue",))}
BOMBS[5] = (8, ("red", "green", "blue"))
INSPECT = ("inspect",)


def place(env, alpha: int, bravo: int, charlie: int):
    """Put the agents in the given rooms and the bombs of :data:`BOMBS` in theirs."""
    base = env.unwrapped
    base.world.positions.update(alpha=alpha, bravo=bravo, charlie=charlie)
    base.world.bombs = [world.Bomb(i, room, seq) for i, (room, seq) in BOMBS.items()]
    return env


def play(env, *turns):
    """Take turns in order; a turn is an action or ``(action, message)``.

    Actions are ``("go", room)``, ``("inspect",)`` or ``("cut", colour)``.
    """
    layout = env.unwrapped.layout
    for turn in turns:
        if isinstance(turn[0], tuple):
            action, message = turn
            env.step({"action": layout.action_index(*action), "message": message})
        else:
            env.step(layout.action_index(*turn))
