"""The Academia environment."""

from __future__ import annotations

from typing import Any

import numpy as np

from agentgym_envs.envs.academia.tasks import AcademiaTask, AcademiaTasks
from agentgym_envs.envs.academia.tools import ACADEMIA_TOOLS, GRAPHS, AcademiaBackend
from agentgym_envs.envs.academia.world import academia
from agentgym_envs.tools import Tool, ToolEnv

HINT = 'You should call loadPaperNet or loadAuthorNet first! If you are finished, you will call "finish" action.'
EXAMPLE = """Goal: When was the paper Learning the Principle of Least Action with Reinforcement Learning. published?

Thought: The question is about a paper, so I will load the PaperNet.

Action: loadPaperNet with Action Input: {}
Observation: PaperNet is loaded.

Thought: The paper node has its year.

Action: paperNodeCheck with Action Input: {"node": "Learning the Principle of Least Action with Reinforcement Learning."}
Observation: {'authors': ['Zehao Jin', 'Joshua Yao-Yu Lin', 'Siao-Fong Li'], 'year': 2021, 'venue': 'AAAI Spring Symposium - MLPS', 'n_citation': 0, 'keywords': [], 'doc_type': 'Conference'}

Thought: The paper was published in 2021.

Action: finish with Action Input: {"answer": "2021"}
Observation: 2021
"""


class AcademiaEnv(ToolEnv):
    """Answer questions over a citation network and a co-authorship network.

    ## Description
    AgentGym's Academia (from AgentBoard's tool-query tasks). AgentBoard loads pickled
    DBLP/AMiner graphs that are not publicly available; here a fixed seed generates a PaperNet
    (480 papers with authors, year, venue, citations, keywords; edges = citations) and an
    AuthorNet (300 authors with organisations; edges = co-authorship with the papers written
    together). The agent loads a graph, checks nodes, neighbours and edges, and answers.
    Identical to AgentGym in everything the tool envs share
    (:class:`~agentgym_envs.tools.env.ToolEnv`).
    Stand-ins: the DBLP/AMiner graphs (generated) and the tasks (generated; AgentGym's item
    ids do not name these tasks).

    ## Action Space
    ``Action: <tool> with Action Input: {...}``. Tools (AgentBoard's academia
    set): ``loadPaperNet``, ``loadAuthorNet``, ``neighbourCheck(graph, node)`` (alias
    ``neighborCheck``), ``paperNodeCheck(node)``, ``authorNodeCheck(node)``,
    ``authorEdgeCheck(node1, node2)``, ``paperEdgeCheck(node1, node2)``, ``check_valid_actions``,
    ``finish(answer)``.
    Replies are read as AgentGym's servers read them (``parser``, see
    :class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Observation Space
    ``Observation: <result>\\nGive me one action.``; AgentBoard's texts for a graph that is not
    loaded (``Please load the PaperNet first.``), a missing node or edge.

    ## Starting State
    No graph loaded (per episode); the graphs are fixed and read-only.

    ## Rewards
    As AgentGym's Academia server: the raw progress rate over its one subgoal, the answer --
    1.0 once the answer is reached, else 0; the step reward is the increase.
    The answer is compared, and ``info["agentgym_reward"]`` reported, as in every tool env
    (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Episode End
    ``finish`` terminates. AgentGym's max rounds is 12.

    ## Information
    ``progress`` (AgentBoard's rate over load, lookup and answer subgoals), ``goal``, ``tool``,
    ``error``, ``answer`` at the end; ``success`` when the ``finish`` answer matches
    (``answer_match``). ``agentgym_reward``: AgentGym's wire reward.

    ## Arguments
    ``train_size``: generated train tasks (default 1,000; test has AgentEval's 20).
    ``answer_match``, ``parser``: as in every tool env (:class:`~agentgym_envs.tools.env.ToolEnv`).

    ## Version History
    v0: initial release, with AgentGym's answer comparison, reply reading and wire reward by
    default (:class:`~agentgym_envs.tools.env.ToolEnv`).
    """

    family = "academia"
    aliases = {"neighborCheck": "neighbourCheck"}
    toolkit = ACADEMIA_TOOLS
    hint = HINT
    example = EXAMPLE

    def __init__(
        self,
        train_size: int = 1000,
        answer_match: str = "agentgym",
        parser: str = "agentgym",
        render_mode: str | None = None,
    ) -> None:
        super().__init__(AcademiaTasks(train_size), answer_match, parser, render_mode=render_mode)

    def _make_backend(self, task: AcademiaTask) -> AcademiaBackend:
        return AcademiaBackend()

    def _random_arguments(self, tool: Tool, rng: np.random.Generator) -> dict[str, Any]:
        g = academia()
        author = g.authors[int(rng.integers(len(g.authors)))]
        other = g.authors[int(rng.integers(len(g.authors)))]
        title = g.titles[int(rng.integers(len(g.titles)))]
        title2 = g.titles[int(rng.integers(len(g.titles)))]
        if tool.name == "finish":
            choices: list[Any] = [
                title,
                author,
                int(rng.integers(0, 6)),
                "Yes",
                "No",
                g.orgs[author],
            ]
            return {"answer": choices[int(rng.integers(len(choices)))]}
        graph = GRAPHS[int(rng.integers(2))]
        if tool.name == "neighbourCheck":
            return {"graph": graph, "node": title if graph == "PaperNet" else author}
        if tool.name == "paperNodeCheck":
            return {"node": title}
        if tool.name == "authorNodeCheck":
            return {"node": author}
        if tool.name == "authorEdgeCheck":
            return {"node1": author, "node2": other}
        if tool.name == "paperEdgeCheck":
            return {"node1": title, "node2": title2}
        return {}
