"""Academia's tasks: AgentBoard-style questions over the generated citation and author graphs.

Kinds follow AgentBoard's academia data: mutual collaborators, organisations (and same-org
yes/no), authors of a paper, which paper is earlier / more cited, same venue yes/no, year and
venue of a paper, how many papers a paper cites, papers two authors wrote together, an
author's most cited paper, their top collaborator, collaborators from other organisations.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from agentgym_envs.envs.academia.world import Academia, academia
from agentgym_envs.spec import family_record
from agentgym_envs.tools import PlanStep, Subgoal, ToolTask
from agentgym_envs.tools.tasks import GeneratedToolTasks

TEST_SIZE = 20  # AgentEval's Academia split
TRAIN_SIZE = 1000


@dataclass(frozen=True)
class AcademiaTask(ToolTask):
    """A question over the two graphs."""


class _Builder:
    def __init__(self) -> None:
        self.steps: list[PlanStep] = []
        self.subgoals: list[Subgoal] = []

    def call(self, tool: str, args: dict, thought: str, reached: object = None) -> None:
        self.steps.append(PlanStep(tool, args, thought))
        if reached is not None:
            self.subgoals.append(Subgoal(reached, tool, thought))

    def load(self, graph: str) -> None:
        self.call(f"load{graph}", {}, f"I should load the {graph} first.", f"{graph} is loaded.")

    def finish(self, answer: object) -> tuple[tuple[PlanStep, ...], tuple[Subgoal, ...]]:
        self.steps.append(
            PlanStep("finish", {"answer": answer}, f"The answer is {str(answer).rstrip('.')}.")
        )
        self.subgoals.append(Subgoal(answer, None, "the answer"))
        return tuple(self.steps), tuple(self.subgoals)


Kind = Callable[[random.Random, Academia, _Builder], tuple[str, object, str]]


def k_mutual(rng, g, p):
    while True:
        a = rng.choice(g.authors)
        b = rng.choice(
            sorted(set(g.collab[a]) | {x for c in g.collab[a] for x in g.collab[c]} - {a})
        )
        common = sorted(set(g.collab[a]) & set(g.collab[b]))
        if common:
            break
    p.load("AuthorNet")
    p.call(
        "neighbourCheck",
        {"graph": "AuthorNet", "node": a},
        f"I need the collaborators of {a}.",
        sorted(g.collab[a]),
    )
    p.call(
        "neighbourCheck",
        {"graph": "AuthorNet", "node": b},
        f"Now the collaborators of {b}.",
        sorted(g.collab[b]),
    )
    return (
        f"How many mutual collaborators do {a} and {b} share? Please give me a numerical value as an answer.",
        len(common),
        "easy",
    )


def k_org(rng, g, p):
    a = rng.choice(g.authors)
    p.load("AuthorNet")
    p.call(
        "authorNodeCheck",
        {"node": a},
        f"The author node of {a} has the organization.",
        {"org": g.orgs[a]},
    )
    return f"Which organization is {a} from?", g.orgs[a], "easy"


def k_same_org(rng, g, p):
    a = rng.choice(g.authors)
    same = rng.random() < 0.5
    pool = [b for b in g.authors if b != a and (g.orgs[b] == g.orgs[a]) == same]
    b = rng.choice(pool)
    p.load("AuthorNet")
    p.call("authorNodeCheck", {"node": a}, f"I need the organization of {a}.", {"org": g.orgs[a]})
    p.call("authorNodeCheck", {"node": b}, f"Now the organization of {b}.", {"org": g.orgs[b]})
    return (
        f'Are {a} and {b} from the same organization? Please answer "Yes" or "No".',
        "Yes" if same else "No",
        "easy",
    )


def k_paper_authors(rng, g, p):
    t = rng.choice(g.titles)
    authors = sorted(g.papers[t].authors)
    p.load("PaperNet")
    p.call("paperNodeCheck", {"node": t}, "The paper node lists its authors.", {"authors": authors})
    return f"Who are the authors of the paper {t} Please provide a list of names.", authors, "easy"


def k_earlier(rng, g, p):
    while True:
        a, b = rng.sample(g.titles, 2)
        if g.papers[a].year != g.papers[b].year:
            break
    p.load("PaperNet")
    for t in (a, b):
        p.call("paperNodeCheck", {"node": t}, f"I need the year of {t}", {"year": g.papers[t].year})
    answer = a if g.papers[a].year < g.papers[b].year else b
    return (
        f"Which paper was published earlier, {a} or {b} Please answer with the title.",
        answer,
        "easy",
    )


def k_more_cited(rng, g, p):
    while True:
        a, b = rng.sample(g.titles, 2)
        if g.papers[a].n_citation != g.papers[b].n_citation:
            break
    p.load("PaperNet")
    for t in (a, b):
        p.call(
            "paperNodeCheck",
            {"node": t},
            f"I need the citation count of {t}",
            {"n_citation": g.papers[t].n_citation},
        )
    answer = a if g.papers[a].n_citation > g.papers[b].n_citation else b
    return (
        f"Which paper has more citations, {a} or {b} Please answer with the title.",
        answer,
        "easy",
    )


def k_same_venue(rng, g, p):
    a = rng.choice(g.titles)
    same = rng.random() < 0.5
    pool = [t for t in g.titles if t != a and (g.papers[t].venue == g.papers[a].venue) == same]
    b = rng.choice(pool)
    p.load("PaperNet")
    for t in (a, b):
        p.call(
            "paperNodeCheck", {"node": t}, f"I need the venue of {t}", {"venue": g.papers[t].venue}
        )
    return (
        f'Were the papers {a} and {b} published at the same venue? Please answer "Yes" or "No".',
        "Yes" if same else "No",
        "easy",
    )


def k_year(rng, g, p):
    t = rng.choice(g.titles)
    p.load("PaperNet")
    p.call(
        "paperNodeCheck", {"node": t}, "The paper node has the year.", {"year": g.papers[t].year}
    )
    return (
        f"When was the paper {t} published? Please answer with the year.",
        g.papers[t].year,
        "easy",
    )


def k_venue(rng, g, p):
    t = rng.choice(g.titles)
    p.load("PaperNet")
    p.call(
        "paperNodeCheck", {"node": t}, "The paper node has the venue.", {"venue": g.papers[t].venue}
    )
    return f"At which venue was the paper {t} published?", g.papers[t].venue, "easy"


def k_n_cited(rng, g, p):
    t = rng.choice([t for t in g.titles if g.cites[t]])
    p.load("PaperNet")
    p.call(
        "neighbourCheck",
        {"graph": "PaperNet", "node": t},
        "Its neighbours in the PaperNet are the papers it cites.",
        sorted(g.cites[t]),
    )
    return (
        f"How many papers in the PaperNet does the paper {t} cite? Please give me a numerical value as an answer.",
        len(g.cites[t]),
        "easy",
    )


def k_collab_papers(rng, g, p):
    a = rng.choice(g.authors)
    b = rng.choice(sorted(g.collab[a]))
    papers = sorted(g.collab[a][b])
    p.load("AuthorNet")
    p.call(
        "authorEdgeCheck",
        {"node1": a, "node2": b},
        "The collaboration edge lists their papers.",
        {"collaborative_papers": papers},
    )
    return (
        f"Which papers did {a} and {b} write together? Please provide a list of titles.",
        papers,
        "easy",
    )


def _sparse(g: Academia, max_coauthors: int, ok: Callable[[str], bool]) -> list[str]:
    return [a for a in g.authors if len(g.collab[a]) <= max_coauthors and ok(a)]


def k_most_cited(rng, g, p):
    def ok(a: str) -> bool:
        papers = g.author_papers(a)
        counts = sorted((g.papers[t].n_citation for t in papers), reverse=True)
        return 2 <= len(papers) <= 3 and counts[0] != counts[1]

    a = rng.choice(_sparse(g, 2, ok))
    p.load("AuthorNet")
    p.call(
        "neighbourCheck",
        {"graph": "AuthorNet", "node": a},
        f"I need the collaborators of {a}.",
        sorted(g.collab[a]),
    )
    for c in sorted(g.collab[a]):
        p.call(
            "authorEdgeCheck",
            {"node1": a, "node2": c},
            f"Papers {a} wrote with {c}.",
            {"collaborative_papers": sorted(g.collab[a][c])},
        )
    p.load("PaperNet")
    papers = g.author_papers(a)
    for t in papers:
        p.call(
            "paperNodeCheck",
            {"node": t},
            f"I need the citations of {t}",
            {"n_citation": g.papers[t].n_citation},
        )
    answer = max(papers, key=lambda t: g.papers[t].n_citation)
    return f"Which paper by {a} has the most citations in the PaperNet?", answer, "hard"


def k_top_collaborator(rng, g, p):
    def ok(a: str) -> bool:
        counts = sorted((len(v) for v in g.collab[a].values()), reverse=True)
        return len(counts) >= 2 and counts[0] != counts[1]

    a = rng.choice(_sparse(g, 4, ok))
    p.load("AuthorNet")
    p.call(
        "neighbourCheck",
        {"graph": "AuthorNet", "node": a},
        f"I need the collaborators of {a}.",
        sorted(g.collab[a]),
    )
    for c in sorted(g.collab[a]):
        p.call(
            "authorEdgeCheck",
            {"node1": a, "node2": c},
            f"How many papers did {a} write with {c}?",
            {"collaborative_papers": sorted(g.collab[a][c])},
        )
    answer = max(g.collab[a], key=lambda c: len(g.collab[a][c]))
    return f"Who has {a} written the most papers with? Please answer with the name.", answer, "hard"


def k_other_org(rng, g, p):
    def ok(a: str) -> bool:
        return any(g.orgs[c] != g.orgs[a] for c in g.collab[a])

    a = rng.choice(_sparse(g, 4, ok))
    p.load("AuthorNet")
    p.call(
        "neighbourCheck",
        {"graph": "AuthorNet", "node": a},
        f"I need the collaborators of {a}.",
        sorted(g.collab[a]),
    )
    p.call("authorNodeCheck", {"node": a}, f"I need the organization of {a}.", {"org": g.orgs[a]})
    for c in sorted(g.collab[a]):
        p.call("authorNodeCheck", {"node": c}, f"And the organization of {c}.", {"org": g.orgs[c]})
    answer = sorted(c for c in g.collab[a] if g.orgs[c] != g.orgs[a])
    return (
        f"Of {a}'s collaborators, who are from different organizations than {a}? Please provide a list of names.",
        answer,
        "hard",
    )


KINDS: dict[str, Kind] = {
    "mutual_collaborators": k_mutual,
    "org": k_org,
    "same_org": k_same_org,
    "paper_authors": k_paper_authors,
    "earlier_paper": k_earlier,
    "more_cited": k_more_cited,
    "same_venue": k_same_venue,
    "year": k_year,
    "venue": k_venue,
    "n_cited": k_n_cited,
    "collab_papers": k_collab_papers,
    "most_cited_paper": k_most_cited,
    "top_collaborator": k_top_collaborator,
    "other_org_collaborators": k_other_org,
}
HARD = ("most_cited_paper", "top_collaborator", "other_org_collaborators", "mutual_collaborators")


def make_task(split: str, task_id: int) -> AcademiaTask:
    rng = random.Random(f"agentgym-envs/academia/{split}/{task_id}")
    names = list(KINDS)
    kind = names[task_id % len(names)] if split == "test" else rng.choice(names)
    builder = _Builder()
    goal, answer, difficulty = KINDS[kind](rng, academia(), builder)
    plan, subgoals = builder.finish(answer)
    return AcademiaTask(task_id, split, goal, answer, subgoals, plan, difficulty, kind)


class AcademiaTasks(GeneratedToolTasks):
    """Generated graph questions: test 20 (AgentEval's size), train 1,000."""

    item_prefix = family_record("academia").item_prefix
    train_size = TRAIN_SIZE
    test_size = TEST_SIZE
    make_task = staticmethod(make_task)
