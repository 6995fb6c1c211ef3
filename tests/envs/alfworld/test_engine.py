"""The native engine's texts, lists, admissible commands and goals (alfworld's, verbatim)."""

from __future__ import annotations

import pytest

from agentgym_envs.envs.alfworld.world import HELP_TEXT, Engine, demangle, listing, mangle
from tests.envs.alfworld.scenes import goal, probe_scene

ROOM = (
    "a cabinet 3, a cabinet 2, a cabinet 1, a countertop 1, a drawer 1, a fridge 1, a microwave 1, "
    "a sidetable 1, and a sinkbasin 1"
)


def engine(grammar="0.3.3", task=("pick_clean_then_place_in_recep", "Knife", "Drawer"), **kw):
    e = Engine(probe_scene(**kw), goal(*task), grammar)
    e.intro()
    return e


def test_demangling_numbers_sorted_ids_from_the_top():
    ids = [
        mangle(t)
        for t in (
            "Cabinet|+01.20|+00.50|-02.20",
            "Cabinet|-00.40|+00.50|-02.20",
            "Cabinet|-00.70|+00.50|-02.20",
            "Sink|-01.99|+00.91|-01.50|SinkBasin",
            "loc|-5|-7|3|45",
        )
    ]
    names = demangle(ids)
    assert [names[i] for i in ids] == [
        "cabinet 1",
        "cabinet 3",
        "cabinet 2",
        "sinkbasin 1",
        "loc 1",
    ]


def test_lists_use_a_and_the_oxford_comma():
    assert listing([]) == "nothing"
    assert listing(["apple 1"]) == "a apple 1"
    assert listing(["apple 2", "alarmclock 1"]) == "a apple 2, and a alarmclock 1"
    assert listing(["x 1", "y 1", "z 1"], article=False) == "x 1, y 1, and z 1"


def test_intro_lists_receptacles_in_id_order_then_the_task():
    e = Engine(probe_scene(), goal("pick_clean_then_place_in_recep", "Knife", "Drawer"))
    assert e.intro() == (
        "-= Welcome to TextWorld, ALFRED! =-\n\n"
        f"You are in the middle of a room. Looking quickly around you, you see {ROOM}.\n\n"
        "Your task is to: put a clean knife in drawer."
    )


def test_intro_at_a_receptacle_is_the_look_text_and_the_expert_copes():
    import dataclasses

    from agentgym_envs.envs.alfworld.expert import AlfWorldExpert
    from agentgym_envs.envs.alfworld.tasks import AlfworldTask
    from tests.envs.alfworld.scenes import LOC, START

    scene = probe_scene()
    scene = dataclasses.replace(
        scene, start=LOC["counter"], locations=tuple(x for x in scene.locations if x != START)
    )
    g = goal("pick_clean_then_place_in_recep", "Knife", "Drawer")
    assert Engine(scene, g).intro() == (
        "-= Welcome to TextWorld, ALFRED! =-\n\nYou are facing the countertop 1. Next to it, you see nothing.\n\n"
        "Your task is to: put a clean knife in drawer."
    )

    from agentgym_envs.envs.alfworld.env import AlfWorldEnv

    env = AlfWorldEnv()
    env.tasks.get = lambda split, task_id: AlfworldTask(0, "test", scene=scene, goal=g)  # type: ignore[method-assign]
    expert = AlfWorldExpert(env)
    obs, info = env.reset(options={"split": "test", "task_id": 0})
    for _ in range(30):
        obs, _reward, terminated, _, info = env.step(expert(obs, info))
        if terminated:
            break
    assert info["success"]


@pytest.mark.parametrize("grammar,extra", [("0.3.3", []), ("0.4.2", ["help"])])
def test_start_admissible_commands(grammar, extra):
    e = engine(grammar)
    gotos = [
        f"go to {n}"
        for n in (
            "cabinet 1",
            "cabinet 2",
            "cabinet 3",
            "countertop 1",
            "drawer 1",
            "fridge 1",
            "microwave 1",
            "sidetable 1",
            "sinkbasin 1",
        )
    ]
    assert e.admissible() == sorted(gotos + extra + ["inventory", "look"])
    assert (
        e.step("look")
        == "You are in the middle of a room. Looking quickly around you, you see nothing."
    )
    assert e.step("inventory") == "You are not carrying anything."


def test_go_to_texts_in_both_grammars():
    e = engine("0.3.3")
    reply = e.step("go to countertop 1")
    assert reply.startswith("You arrive at loc ") and reply.endswith(
        ". On the countertop 1, you see a apple 2, and a knife 1."
    )
    e = engine("0.4.2")
    assert (
        e.step("go to countertop 1")
        == "You arrive at countertop 1. On the countertop 1, you see a apple 2, and a knife 1."
    )
    assert e.step("go to fridge 1") == "You arrive at fridge 1. The fridge 1 is closed."
    assert (
        e.step("open fridge 1")
        == "You open the fridge 1. The fridge 1 is open. In it, you see a apple 1."
    )
    assert e.step("go to countertop 1").startswith("You arrive at countertop 1.")
    assert (
        e.step("go to fridge 1")
        == "You arrive at fridge 1. The fridge 1 is open. In it, you see a apple 1."
    )
    assert e.step("close fridge 1") == "You close the fridge 1."
    assert e.step("examine fridge 1") == "The fridge 1 is closed."


def test_take_put_and_what_is_admissible_while_holding():
    e = engine("0.3.3")
    e.step("go to countertop 1")
    assert e.admissible() == sorted(
        [c for c in e.admissible() if c.startswith("go to")]
        + [
            "examine countertop 1",
            "inventory",
            "look",
            "take apple 2 from countertop 1",
            "take knife 1 from countertop 1",
        ]
    )
    assert (
        e.step("take knife 1 from countertop 1") == "You pick up the knife 1 from the countertop 1."
    )
    assert e.step("inventory") == "You are carrying: a knife 1."
    assert "take apple 2 from countertop 1" not in e.admissible()
    assert e.step("take apple 2 from countertop 1") == "Nothing happens."
    assert "put knife 1 in/on countertop 1" in e.admissible()
    e.step("go to sinkbasin 1")
    here = [c for c in e.admissible() if not c.startswith("go to")]
    assert here == [
        "clean knife 1 with sinkbasin 1",
        "examine knife 1",
        "examine sinkbasin 1",
        "inventory",
        "look",
        "put knife 1 in/on sinkbasin 1",
    ]
    assert (
        e.step("clean knife 1 with sinkbasin 1") == "You clean the knife 1 using the sinkbasin 1."
    )
    assert e.step("examine knife 1") == "This is a clean knife 1."
    e.step("go to drawer 1")
    assert "put knife 1 in/on drawer 1" not in e.admissible()  # closed
    e.step("open drawer 1")
    assert e.step("put knife 1 in/on drawer 1") == "You put the knife 1 in/on the drawer 1."
    assert e.won


def test_move_grammar_and_help():
    e = engine("0.4.2", task=("pick_and_place_simple", "Apple", "SideTable"))
    assert (
        e.step("help") == HELP_TEXT
        and HELP_TEXT.startswith("Available commands:\n")
        and HELP_TEXT.endswith("\n")
    )
    e.step("go to countertop 1")
    e.step("take apple 2 from countertop 1")
    e.step("go to sidetable 1")
    assert "put apple 2 in/on sidetable 1" not in e.admissible()
    assert e.step("move apple 2 to sidetable 1") == "You move the apple 2 to the sidetable 1."
    assert e.won


def test_heat_and_cool_work_closed_and_cancel_each_other():
    e = engine("0.3.3", task=("pick_heat_then_place_in_recep", "Apple", "CounterTop"))
    e.step("go to countertop 1")
    e.step("take apple 2 from countertop 1")
    e.step("go to microwave 1")
    assert (
        "heat apple 2 with microwave 1" in e.admissible()
        and "put apple 2 in/on microwave 1" not in e.admissible()
    )
    assert e.step("heat apple 2 with microwave 1") == "You heat the apple 2 using the microwave 1."
    assert e.step("examine apple 2") == "This is a hot apple 2."
    e.step("go to fridge 1")
    assert e.step("cool apple 2 with fridge 1") == "You cool the apple 2 using the fridge 1."
    assert e.step("examine apple 2") == "This is a cold apple 2."
    e.step("go to sinkbasin 1")
    e.step("clean apple 2 with sinkbasin 1")
    assert e.step("examine apple 2") == "This is a cool and clean apple 2."
    e.step("go to countertop 1")
    e.step("put apple 2 in/on countertop 1")
    assert not e.won  # it is cool now, not hot


def test_examine_texts_for_plain_receptacle_objects_and_sliced():
    e = engine("0.3.3")
    e.step("go to countertop 1")
    e.step("take apple 2 from countertop 1")
    assert e.step("examine apple 2") == "There's nothing special about apple 2."
    e.step("put apple 2 in/on countertop 1")
    e.step("take knife 1 from countertop 1")
    # quirk: slicing is offered for every sliceable object at the location
    assert e.step("slice apple 2 with knife 1") == "You sliced the apple 2 with the knife 1."
    e.step("put knife 1 in/on countertop 1")
    e.step("take apple 2 from countertop 1")
    assert e.step("examine apple 2") == "This is a sliced apple 2."
    e.step("go to fridge 1")
    assert "slice apple 1 with knife 1" not in e.admissible()  # not holding the knife now
    e = engine("0.3.3")
    e.step("go to cabinet 3")
    e.step("open cabinet 3")
    assert "examine mug 1" not in e.admissible()
    assert e.step("examine mug 1") == "Nothing happens."
    e.step("take mug 1 from cabinet 3")
    assert e.step("examine mug 1") == "This is a normal mug 1. In it, you see nothing."


def test_lamp_turns_on_every_time_and_light_goal():
    e = engine("0.3.3", task=("look_at_obj_in_light", "AlarmClock", "", "DeskLamp"))
    e.step("go to sidetable 1")
    assert e.step("use desklamp 1") == "You turn on the desklamp 1."
    assert not e.won
    assert e.step("use desklamp 1") == "You turn on the desklamp 1."
    e.step("take alarmclock 1 from sidetable 1")
    assert e.won


def test_light_goal_needs_the_lamps_location():
    e = engine("0.3.3", task=("look_at_obj_in_light", "Apple", "", "DeskLamp"))
    e.step("go to sidetable 1")
    e.step("use desklamp 1")
    e.step("go to countertop 1")
    e.step("take apple 2 from countertop 1")
    assert not e.won
    e.step("go to sidetable 1")
    assert e.won


def test_two_objects_must_share_one_receptacle():
    e = engine("0.3.3", task=("pick_two_obj_and_place", "Apple", "CounterTop"))
    e.step("go to fridge 1")
    e.step("open fridge 1")
    e.step("take apple 1 from fridge 1")
    e.step("go to countertop 1")
    assert not e.won
    e.step("put apple 1 in/on countertop 1")
    assert e.won


def test_look_at_a_shared_location_names_both_receptacles():
    e = engine("0.3.3")
    e.step("go to cabinet 2")
    assert "go to cabinet 3" not in e.admissible() and "go to cabinet 2" not in e.admissible()
    assert {"examine cabinet 2", "examine cabinet 3", "open cabinet 2", "open cabinet 3"} <= set(
        e.admissible()
    )
    facing = "You are facing the cabinet 3, and cabinet 2. Next to it, you see "
    assert e.step("look") == facing + "nothing."
    e.step("open cabinet 3"), e.step("open cabinet 2")
    e.step("take mug 1 from cabinet 3")
    assert e.step("look") == facing + "nothing."  # held
    # moved between receptacles of one spot, it shows "next to" the one it was taken from
    # (the real engine keeps `not_inreceptacle(mug, cabinet 3)` until it goes back in)
    e.step("put mug 1 in/on cabinet 2")
    assert e.step("look") == facing + "a mug 1."
    e.step("close cabinet 2")
    assert e.step("look") == facing + "a mug 1."
    (
        e.step("open cabinet 2"),
        e.step("take mug 1 from cabinet 2"),
        e.step("put mug 1 in/on cabinet 3"),
    )
    assert e.step("look") == facing + "a mug 1."  # now taken from cabinet 2
    e.step("go to countertop 1")
    e.step("take apple 2 from countertop 1"), e.step("put apple 2 in/on countertop 1")
    assert e.step("look") == "You are facing the countertop 1. Next to it, you see nothing."


def test_nothing_happens_for_anything_not_admissible():
    e = engine("0.3.3")
    for bad in (
        "xyzzy",
        "go to cabinet 9",
        "open fridge 1",
        "take apple 1 from fridge 1",
        "move knife 1 to drawer 1",
        "help",
    ):
        assert e.step(bad) == "Nothing happens."
    assert e.agent == e._start and e.holding is None
