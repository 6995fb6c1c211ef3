"""Academia's tools, with AgentBoard's names, arguments and reply texts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentgym_envs.envs.academia.world import academia
from agentgym_envs.tools import Tool, ToolError, Toolkit, param, schema
from agentgym_envs.tools.env import check_valid_actions_tool, finish_tool

GRAPHS = ("PaperNet", "AuthorNet")


@dataclass
class AcademiaBackend:
    """Which graphs this episode has loaded (the graphs themselves are shared, read-only)."""

    paper_net: bool = False
    author_net: bool = False


def _need(b: AcademiaBackend, graph: str) -> None:
    if graph == "PaperNet" and not b.paper_net:
        raise ToolError("Please load the PaperNet first.")
    if graph == "AuthorNet" and not b.author_net:
        raise ToolError("Please load the AuthorNet first.")


def _paper(node: str):
    paper = academia().papers.get(node)
    if paper is None:
        raise ToolError(f"There is no node named {node} in the PaperNet.")
    return paper


def _author(node: str) -> str:
    if node not in academia().collab:
        raise ToolError(f"There is no node named {node} in the AuthorNet.")
    return node


def loadPaperNet(b: AcademiaBackend) -> str:
    b.paper_net = True
    return "PaperNet is loaded."


def loadAuthorNet(b: AcademiaBackend) -> str:
    b.author_net = True
    return "AuthorNet is loaded."


def neighbourCheck(b: AcademiaBackend, graph: str, node: str) -> list[str]:
    _need(b, graph)
    if graph == "PaperNet":
        _paper(node)
        return list(academia().cites[node])
    return sorted(academia().collab[_author(node)])


def paperNodeCheck(b: AcademiaBackend, node: str) -> dict[str, Any]:
    _need(b, "PaperNet")
    p = _paper(node)
    return {
        "authors": list(p.authors),
        "year": p.year,
        "venue": p.venue,
        "n_citation": p.n_citation,
        "keywords": list(p.keywords),
        "doc_type": p.doc_type,
    }


def authorNodeCheck(b: AcademiaBackend, node: str) -> dict[str, Any]:
    _need(b, "AuthorNet")
    return {"name": _author(node), "org": academia().orgs[node]}


def authorEdgeCheck(b: AcademiaBackend, node1: str, node2: str) -> dict[str, Any]:
    _need(b, "AuthorNet")
    _author(node1), _author(node2)
    papers = academia().collab[node1].get(node2)
    if not papers:
        raise ToolError(f"There is no edge between {node1} and {node2}.")
    return {"collaborative_papers": sorted(papers)}


def paperEdgeCheck(b: AcademiaBackend, node1: str, node2: str) -> dict[str, Any]:
    _need(b, "PaperNet")
    _paper(node1), _paper(node2)
    net = academia().cites
    if node2 in net[node1]:
        return {"citing_paper": node1, "cited_paper": node2}
    if node1 in net[node2]:
        return {"citing_paper": node2, "cited_paper": node1}
    raise ToolError(f"There is no edge between {node1} and {node2}.")


_GRAPH = param("string", "the graph: 'PaperNet' or 'AuthorNet'", enum=GRAPHS)

ACADEMIA_TOOLS = Toolkit(
    [
        Tool(
            "loadPaperNet",
            "Load the PaperNet. In this net, nodes are papers and edges are citation relationships between papers.",
            loadPaperNet,
            schema(),
            "a message that the PaperNet is loaded",
        ),
        Tool(
            "loadAuthorNet",
            "Load the AuthorNet. In this net, nodes are authors and edges are collaboration relationships between authors.",
            loadAuthorNet,
            schema(),
            "a message that the AuthorNet is loaded",
        ),
        Tool(
            "neighbourCheck",
            "List the first-order neighbours of a node: in the PaperNet, the papers the paper cites; in the AuthorNet, the author's collaborators.",
            neighbourCheck,
            schema(
                graph=_GRAPH,
                node=param("string", "a paper title (PaperNet) or an author name (AuthorNet)"),
            ),
            "a list of neighbour names",
            aliases=("neighborCheck",),
        ),
        Tool(
            "paperNodeCheck",
            "Get the attributes of a paper node in the PaperNet.",
            paperNodeCheck,
            schema(node=param("string", "the paper title")),
            "{'authors', 'year', 'venue', 'n_citation', 'keywords', 'doc_type'}",
        ),
        Tool(
            "authorNodeCheck",
            "Get the attributes of an author node in the AuthorNet.",
            authorNodeCheck,
            schema(node=param("string", "the author name")),
            "{'name', 'org'}",
        ),
        Tool(
            "authorEdgeCheck",
            "Get the details of the collaboration edge between two authors in the AuthorNet.",
            authorEdgeCheck,
            schema(
                node1=param("string", "the first author name"),
                node2=param("string", "the second author name"),
            ),
            "{'collaborative_papers': [titles]}",
        ),
        Tool(
            "paperEdgeCheck",
            "Get the details of the citation edge between two papers in the PaperNet.",
            paperEdgeCheck,
            schema(
                node1=param("string", "the first paper title"),
                node2=param("string", "the second paper title"),
            ),
            "{'citing_paper', 'cited_paper'}",
        ),
        check_valid_actions_tool(),
        finish_tool(),
    ]
)
