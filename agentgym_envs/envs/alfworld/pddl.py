"""The PDDL bridge: a task as an ALFWorld PDDL problem / ``game.tw-pddl`` file, and back.

* :func:`problem_text` writes a :class:`~.world.Scene` and :class:`~.world.Goal` as the problem
  ALFWorld's games hold (``initial_state.pddl``'s format: mangled THOR ids, ``XType``
  constants, ``canContain`` facts, the goal formula of the task type).
* :func:`game_json` / :func:`write_game_file` wrap it into a ``game.tw-pddl`` file: the
  ``alfred.pddl`` domain and ``alfred.twl2`` grammar (taken from the installed ``alfworld``
  package, or passed in), the grammar's ``UNKNOWN GOAL`` replaced by the task line, and for the
  0.3.3 grammar the three changes that alfworld's 0.4.2 patch made undone.
* :func:`parse_problem` / :func:`read_game_file` read a problem (ours or ALFWorld's own) back
  into a scene and a goal for the native engine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.world import Goal, Item, Receptacle, Scene
from agentgym_envs.errors import BadDataError, require

AFFORDANCES = (
    "pickupable",
    "cleanable",
    "heatable",
    "coolable",
    "sliceable",
    "toggleable",
    "isReceptacleObject",
)
STATES = ("isClean", "isHot", "isCool", "isOn", "isToggled", "isSliced")
_CANON = {p.lower(): p for p in AFFORDANCES + STATES}

#: Every class name we know, by its case-folded spelling (PDDL is case-insensitive).
KNOWN_CLASSES: dict[str, str] = {
    c.lower(): c
    for c in set(vocab.CAN_CONTAIN)
    | set().union(*vocab.CAN_CONTAIN.values())
    | vocab.TOGGLEABLE
    | set().union(*(set(v) for v in vocab.ROOM_OBJECTS.values()))
    | {"Knife", "ButterKnife", "Towel", "Pillow", "Plunger", "ToiletPaperRoll", "Box"}
}


# -- writing ------------------------------------------------------------------------------
def goal_pddl(goal: Goal) -> str:
    """The ``(:goal ...)`` formula of ALFWorld's goal library for ``goal``."""
    obj, recep, toggle = f"{goal.obj}Type", f"{goal.recep}Type", f"{goal.toggle}Type"
    tt = goal.task_type
    if tt == "look_at_obj_in_light":
        body = (
            "(and\n"
            "    (exists (?ot - object ?r - receptacle ?a - agent ?l - location)\n"
            f"        (and (objectType ?ot {toggle}) (toggleable ?ot) (isToggled ?ot)\n"
            "             (receptacleAtLocation ?r ?l) (atLocation ?a ?l) (inReceptacle ?ot ?r)))\n"
            "    (exists (?o - object ?a - agent)\n"
            f"        (and (objectType ?o {obj}) (holds ?a ?o))))"
        )
    elif tt == "pick_two_obj_and_place":
        body = (
            "(and\n"
            "    (exists (?r - receptacle)\n"
            "        (exists (?o1 - object)\n"
            f"            (and (objectType ?o1 {obj}) (receptacleType ?r {recep}) (inReceptacle ?o1 ?r)\n"
            "                (exists (?o2 - object)\n"
            f"                    (and (not (= ?o1 ?o2)) (objectType ?o2 {obj}) (receptacleType ?r {recep})\n"
            "                         (inReceptacle ?o2 ?r)))))))"
        )
    else:
        extra = {
            "pick_clean_then_place_in_recep": " (cleanable ?o) (isClean ?o)",
            "pick_heat_then_place_in_recep": " (heatable ?o) (isHot ?o)",
            "pick_cool_then_place_in_recep": " (coolable ?o) (isCool ?o)",
        }.get(tt, "")
        body = (
            "(and\n"
            "    (exists (?r - receptacle)\n"
            "        (exists (?o - object)\n"
            f"            (and (inReceptacle ?o ?r) (objectType ?o {obj}) (receptacleType ?r {recep}){extra}))))"
        )
    return f"(:goal\n{body}\n)"


def problem_text(scene: Scene, goal: Goal, name: str = "plan_trial") -> str:
    """``scene`` and ``goal`` as an ALFWorld PDDL problem."""
    otypes = {i.otype for i in scene.items} | {goal.obj, "Knife", "ButterKnife"}
    if goal.toggle:
        otypes.add(goal.toggle)
    rtypes = {r.rtype for r in scene.receptacles} | {"SinkBasin", "Microwave", "Fridge"}
    if goal.recep:
        rtypes.add(goal.recep)
    lines = [f"(define (problem {name})", "(:domain alfred)", "(:objects", "        agent1 - agent"]
    lines += [f"        {t}Type - otype" for t in sorted(otypes)]
    lines += [f"        {t}Type - rtype" for t in sorted(rtypes)]
    lines += [f"        {i.id} - object" for i in scene.items]
    lines += [f"        {r.id} - receptacle" for r in scene.receptacles]
    lines += [f"        {loc} - location" for loc in scene.locations]
    lines += ["        )", "", "(:init", "", f"        (atLocation agent1 {scene.start})"]
    for rt, ot in sorted(scene.can_contain):
        lines.append(f"        (canContain {rt}Type {ot}Type)")
    for r in scene.receptacles:
        lines.append(f"        (receptacleType {r.id} {r.rtype}Type)")
        lines.append(f"        (receptacleAtLocation {r.id} {r.location})")
        if r.openable:
            lines.append(f"        (openable {r.id})")
    for i in scene.items:
        lines.append(f"        (objectType {i.id} {i.otype}Type)")
        if i.receptacle:
            lines.append(f"        (inReceptacle {i.id} {i.receptacle})")
        if i.location:
            lines.append(f"        (objectAtLocation {i.id} {i.location})")
        lines += [f"        ({p} {i.id})" for p in AFFORDANCES if p in i.props]
        lines += [f"        ({s} {i.id})" for s in STATES if s in i.state]
    lines += ["        )", "", goal_pddl(goal), ")", ""]
    return "\n".join(lines)


def alfworld_logic() -> tuple[str, str]:
    """alfworld's ``alfred.pddl`` domain and ``alfred.twl2`` grammar (needs the extra)."""
    info = require("alfworld.info", "alfworld")
    return Path(info.ALFRED_PDDL_PATH).read_text(), Path(info.ALFRED_TWL2_PATH).read_text()


def _drop_block(text: str, start: int) -> str:
    """Remove the balanced ``{...}`` / ``(...)`` block whose header starts at ``start``."""
    opener = start if text[start] == "(" else text.find("{", start)
    if opener < 0:
        return text
    pairs = {"{": "}", "(": ")"}
    open_c, close_c = text[opener], pairs[text[opener]]
    depth, i = 0, opener
    while i < len(text):
        if text[i] == open_c:
            depth += 1
        elif text[i] == close_c:
            depth -= 1
            if depth == 0:
                return text[:start].rstrip() + "\n" + text[i + 1 :].lstrip("\n")
        i += 1
    return text


def grammar_033(twl2: str) -> str:
    """alfworld 0.4.2's grammar with the 0.4.2 patch undone (AgentGym's 0.3.3 games)."""
    out = twl2.replace(
        '"You arrive at {r.name}. #examineReceptacle.feedback#"',
        '"You arrive at {lend.name}. #examineReceptacle.feedback#"',
    )
    out = re.sub(
        r'(action PutObject \{\s*template :: )"move \{o\} to \{r\}"', r'\1"put {o} in/on {r}"', out
    )
    out = out.replace(
        '"You move the {o.name} to the {r.name}."', '"You put the {o.name} in/on the {r.name}."'
    )
    at = out.find("action help {")
    if at >= 0:
        out = _drop_block(out, at)
    return out


def domain_033(domain: str) -> str:
    """The domain without the ``help`` action (0.3.3 games have none)."""
    at = domain.find("(:action help")
    return _drop_block(domain, at) if at >= 0 else domain


def detect_grammar(twl2: str) -> str:
    """``"0.4.2"`` for a patched grammar (``move {o} to {r}``), else ``"0.3.3"``."""
    return "0.4.2" if re.search(r'action PutObject \{\s*template :: "move', twl2) else "0.3.3"


def game_json(
    scene: Scene,
    goal: Goal,
    grammar: str = "0.3.3",
    domain_text: str | None = None,
    grammar_text: str | None = None,
    name: str = "plan_trial",
) -> dict[str, Any]:
    """The content of a ``game.tw-pddl`` file for the task.

    ``domain_text`` / ``grammar_text`` default to the installed alfworld's (0.4.2) files; a
    0.3.3 game gets :func:`grammar_033` and :func:`domain_033` applied.
    """
    if domain_text is None or grammar_text is None:
        domain, twl2 = alfworld_logic()
        domain_text = domain if domain_text is None else domain_text
        grammar_text = twl2 if grammar_text is None else grammar_text
    if grammar == "0.3.3":
        grammar_text, domain_text = grammar_033(grammar_text), domain_033(domain_text)
    return {
        "pddl_domain": domain_text,
        "grammar": grammar_text.replace("UNKNOWN GOAL", goal.text),
        "pddl_problem": problem_text(scene, goal, name),
        "solvable": True,
    }


def traj_data(scene: Scene, goal: Goal) -> dict[str, Any]:
    """The fields of ALFRED's ``traj_data.json`` that alfworld's loader and expert read."""
    return {
        "task_type": goal.task_type,
        "pddl_params": goal.params(),
        "scene": {"floor_plan": f"FloorPlan{scene.floorplan}", "scene_num": scene.floorplan},
        "turk_annotations": {"anns": [{"task_desc": goal.text}]},
    }


def write_game_file(
    scene: Scene, goal: Goal, path: str | Path, grammar: str = "0.3.3", **kwargs: Any
) -> Path:
    """Write ``game.tw-pddl`` (and ``traj_data.json`` beside it); ``path`` is the file or its folder."""
    path = Path(path)
    if path.suffix != ".tw-pddl":
        path = path / "game.tw-pddl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(game_json(scene, goal, grammar, **kwargs)))
    (path.parent / "traj_data.json").write_text(json.dumps(traj_data(scene, goal), indent=1))
    return path


# -- reading ------------------------------------------------------------------------------
_TOKEN = re.compile(r"\(|\)|[^\s()]+")


def parse_sexp(text: str) -> list:
    """A PDDL text as nested lists of (case-preserving) tokens; ``;`` comments dropped."""
    text = re.sub(r";[^\n]*", "", text)
    stack: list[list] = [[]]
    for tok in _TOKEN.findall(text):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            if len(stack) == 1:
                raise BadDataError("unbalanced parentheses in PDDL problem")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(tok)
    if len(stack) != 1:
        raise BadDataError("unbalanced parentheses in PDDL problem")
    return stack[0]


def _class(type_name: str) -> str:
    name = type_name[:-4] if type_name.lower().endswith("type") else type_name
    return KNOWN_CLASSES.get(name.lower(), name)


def _flatten(expr: Any) -> list[list]:
    """Every atom-like sub-list of a formula."""
    out = []
    if isinstance(expr, list):
        if expr and isinstance(expr[0], str) and all(isinstance(x, str) for x in expr):
            out.append(expr)
        for x in expr:
            if isinstance(x, list):
                out += _flatten(x)
    return out


def goal_from_formula(formula: list, task_text: str = "") -> Goal:
    """Recognise which of the six ALFWorld goals a ``(:goal ...)`` formula is."""
    atoms = _flatten(formula)
    preds = {a[0].lower() for a in atoms}
    types: dict[str, str] = {}
    for a in atoms:
        if a[0].lower() in ("objecttype", "receptacletype") and len(a) == 3:
            types.setdefault(a[1].lower(), _class(a[2]))
    if "holds" in preds and "istoggled" in preds:
        tt = "look_at_obj_in_light"
    elif "=" in preds:
        tt = "pick_two_obj_and_place"
    elif "isclean" in preds:
        tt = "pick_clean_then_place_in_recep"
    elif "ishot" in preds:
        tt = "pick_heat_then_place_in_recep"
    elif "iscool" in preds:
        tt = "pick_cool_then_place_in_recep"
    elif "inreceptacle" in preds:
        tt = "pick_and_place_simple"
    else:
        raise BadDataError(f"unrecognised ALFWorld goal (predicates: {', '.join(sorted(preds))})")
    if tt == "look_at_obj_in_light":
        obj, toggle, recep = types.get("?o", ""), types.get("?ot", ""), ""
    else:
        obj = types.get("?o", types.get("?o1", ""))
        recep, toggle = types.get("?r", ""), ""
    if not task_text:
        template = vocab.TEMPLATES[tt][0]
        task_text = template.format(obj=obj.lower(), recep=recep.lower(), toggle=toggle.lower())
    return Goal(tt, obj, recep, toggle, task_text)


def parse_problem(text: str, task_text: str = "") -> tuple[Scene, Goal]:
    """An ALFWorld PDDL problem as a scene and a goal for the native engine."""
    tree = parse_sexp(text)
    define = next(
        (x for x in tree if isinstance(x, list) and x and str(x[0]).lower() == "define"), None
    )
    if define is None:
        raise BadDataError("not a PDDL problem: no (define ...)")
    sections = {str(x[0]).lower(): x[1:] for x in define if isinstance(x, list) and x}
    problem = _Problem(sections.get(":objects", []), sections.get(":init", []))
    at = problem.facts.get("atlocation", [])
    if not at:
        raise BadDataError("PDDL problem has no (atLocation agent ...) fact")
    can_contain = frozenset(
        (_class(a[0]), _class(a[1])) for a in problem.facts.get("cancontain", []) if len(a) == 2
    )
    goal_section = sections.get(":goal")
    if not goal_section:
        raise BadDataError("PDDL problem has no (:goal ...)")
    goal = goal_from_formula(goal_section, task_text)
    scene = Scene(
        problem.receptacles(),
        problem.items(),
        problem.locations(),
        problem.orig(at[0][1]),
        can_contain,
    )
    return scene, goal


class _Problem:
    """A problem's typed objects and ``:init`` facts, read into the engine's records."""

    def __init__(self, objects: list, init: list) -> None:
        #: lower-cased name -> PDDL type; names in declaration order, as written
        self.kinds: dict[str, str] = {}
        self.names: list[str] = []
        pending: list[str] = []
        i = 0
        while i < len(objects):
            if objects[i] == "-" and i + 1 < len(objects):
                for n in pending:
                    self.kinds[n.lower()] = objects[i + 1].lower()
                    self.names.append(n)
                pending = []
                i += 2
            else:
                pending.append(objects[i])
                i += 1
        self.facts: dict[str, list[list[str]]] = {}
        for f in init:
            if isinstance(f, list) and f and all(isinstance(x, str) for x in f):
                self.facts.setdefault(f[0].lower(), []).append(f[1:])
        self.original = {n.lower(): n for n in self.names}

    def orig(self, n: str) -> str:
        """``n`` as the problem declares it (PDDL is case-insensitive, ids are not)."""
        return self.original.get(n.lower(), n)

    def pairs(self, pred: str) -> dict[str, str]:
        return {a[0].lower(): a[1] for a in self.facts.get(pred, []) if len(a) == 2}

    def ones(self, pred: str) -> set[str]:
        return {a[0].lower() for a in self.facts.get(pred, []) if a}

    def of_kind(self, kind: str) -> list[str]:
        return [n for n in self.names if self.kinds.get(n.lower()) == kind]

    def receptacles(self) -> tuple[Receptacle, ...]:
        rtype, r_at, openable = (
            self.pairs("receptacletype"),
            self.pairs("receptacleatlocation"),
            self.ones("openable"),
        )
        return tuple(
            Receptacle(
                self.orig(n),
                _class(rtype.get(n.lower(), n.split("_bar_")[0])),
                self.orig(r_at[n.lower()]),
                n.lower() in openable,
            )
            for n in self.of_kind("receptacle")
            if n.lower() in r_at
        )

    def items(self) -> tuple[Item, ...]:
        otype, o_in = self.pairs("objecttype"), self.pairs("inreceptacle")
        o_at = self.pairs("objectatlocation")
        prop_sets = {p: self.ones(p.lower()) for p in AFFORDANCES + STATES}
        items = []
        for n in self.of_kind("object"):
            key = n.lower()
            items.append(
                Item(
                    self.orig(n),
                    _class(otype.get(key, n.split("_bar_")[0])),
                    self.orig(o_in[key]) if key in o_in else None,
                    self.orig(o_at[key]) if key in o_at else None,
                    frozenset(p for p in AFFORDANCES if key in prop_sets[p]),
                    frozenset(s for s in STATES if key in prop_sets[s]),
                )
            )
        return tuple(items)

    def locations(self) -> tuple[str, ...]:
        return tuple(self.orig(n) for n in self.of_kind("location"))


_TASK_LINE = re.compile(r"Your task is to: (.*?)\.\"")


def task_text_from_grammar(grammar: str) -> str:
    """The task line a game's grammar holds (``""`` when it still says ``UNKNOWN GOAL``)."""
    m = _TASK_LINE.search(grammar)
    if not m or m.group(1) == "UNKNOWN GOAL":
        return ""
    return m.group(1).replace('\\"', '"')


def read_game_file(path: str | Path) -> tuple[Scene, Goal]:
    """A ``game.tw-pddl`` file as a scene and a goal."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise BadDataError(f"cannot read ALFWorld game {str(path)!r}: {exc}") from exc
    if not isinstance(data, dict) or "pddl_problem" not in data:
        raise BadDataError(f"{str(path)!r} is not a game.tw-pddl file: it has no 'pddl_problem'")
    if data.get("solvable") is False:
        raise BadDataError(
            f"{str(path)!r} is marked unsolvable: alfworld's loader skips such games"
        )
    return parse_problem(data["pddl_problem"], task_text_from_grammar(data.get("grammar", "")))
