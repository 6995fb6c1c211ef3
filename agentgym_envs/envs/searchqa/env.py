"""The SearchQA environment: AgentGym's search-agent protocol over a searchable corpus."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from agentgym_envs.core import StepResult, TextEnv
from agentgym_envs.envs.searchqa.retrieval import (
    DenseRetriever,
    Doc,
    Embedder,
    corpus_key,
    format_information,
    load_corpus,
    shared_bm25,
)
from agentgym_envs.envs.searchqa.scoring import exact_match, f1_score, final_answer, parse_reply
from agentgym_envs.envs.searchqa.tasks import GeneratedQATasks, QAFileTasks, SearchQATask
from agentgym_envs.envs.searchqa.world import world
from agentgym_envs.errors import BadDataError
from agentgym_envs.tools.tool import Tool, Toolkit, param, schema

#: AgentGym's client's ``conversation_start`` instruction (``agentenv/envs/searchqa.py``).
CONVERSATION_START = (
    "You must always reason inside <think>...</think> first; if you lack knowledge, issue a "
    "<search>...</search> and then stop; do not generate <information> or <answer> yet; wait for "
    "external input between <information>...</information> before continuing; resume only when "
    "new <information> is given; do not skip steps or anticipate answers early."
)
#: AgentGym's server's observation before the question.
PROMPT = (
    "You must reason inside <think>...</think> first. If you do not have enough knowledge, issue "
    "a <search>...</search> and then STOP. Do not generate <information> or <answer> yet. Wait "
    "for external input wrapped in <information>...</information>. After receiving information, "
    "reason again in <think>. If confident, output your final answer in <answer>...</answer>. Do "
    "not output <answer> before receiving <information> unless you are fully confident. If you "
    "find no further external knowledge needed, you can directly provide the answer inside "
    "<answer> and </answer>, without detailed illustrations. For example, <answer> Beijing "
    "</answer>. Follow this process every time.\n\n Question: "
)
CORRECT = "Congratulations! You have answered the question correctly."
INCORRECT = "Sorry, your answer is incorrect. Please try again."
INVALID = (
    "Your previous action is invalid. If you want to search, you should put the query between "
    "<search> and </search>. If you want to give the final answer, you should put the answer "
    "between <answer> and </answer>. Please try again."
)
TOPK = 3


def first_observation(question: str) -> str:
    """AgentGym's ``/observation`` text for ``question``."""
    return PROMPT + question.strip()


class SearchQAEnv(TextEnv):
    """Answer a question by searching a passage corpus.

    ## Description
    AgentGym's SearchQA (AgentGym-RL's Deep Search, after Search-R1). The agent searches a
    corpus and answers. By default the corpus is a generated encyclopedia of a seeded
    fictional world (about 3,900 passages on countries, cities, rivers, people, companies and
    works) and the questions are about that world: single-hop (where was X born, who founded Y,
    who created Z, what is the capital of W) and multi-hop (the country of X's birthplace, the
    river of the city where Y is headquartered, who of two people was born first). This is a
    stand-in for AgentGym's data (NQ, TriviaQA, PopQA, HotpotQA, 2Wiki, MuSiQue, Bamboogle over
    the 2018 Wikipedia dump); with the user's files (``corpus_path`` and QA files) the env plays
    AgentGym's items.

    ## Action Space
    The model's whole reply, read as AgentGym's server reads it: the first
    ``<search> query </search>`` or ``<answer> text </answer>`` block decides the action; an
    answer is graded on the last ``<answer>`` block of the reply. A reply with neither is
    feedback (AgentGym's "Your previous action is invalid..." text, ``info["error"]``).

    ## Observation Space
    Reset: AgentGym's instruction prompt and ``\\n\\n Question: <question>``. A search:
    ``<information>Doc 1(Title: "T") text\\nDoc 2(...) ...</information>`` with the top 3
    passages. An answer: "Congratulations! You have answered the question correctly." or
    "Sorry, your answer is incorrect. Please try again."

    ## Starting State
    The task's question; no search has been made.

    ## Rewards
    1 for an answer that exactly matches a gold answer after normalisation (lower case, no
    punctuation, no articles, collapsed spaces), else 0: AgentGym's exact-match reward.

    ## Episode End
    Terminated on a correct answer. A wrong answer does not end the episode (as in AgentGym);
    the turn limit does (AgentGym-RL: 5 rounds, ScalingInter-RL 5/8/10).

    ## Information
    ``success``, ``score`` (1.0 once answered correctly), ``searches`` (searches made),
    ``data_source`` (question category or source data set); after an answer ``answer`` and
    ``f1`` (token F1 against the gold answers, reported, not rewarded); after a search
    ``retrieved`` (titles shown).

    ## Arguments
    ``corpus_path``: a passage JSONL (AgentGym's ``wiki-18.jsonl`` form, ``{"contents"}``, or
    ``{"title", "text"}``); ``test_path`` / ``train_path``: QA files (JSONL, JSON or Parquet:
    FlashRAG, NQ, HotpotQA or AgentGym's parquet) or lists of them, test first as AgentGym
    numbers items. Both default to ``$SEARCHQA_CORPUS_PATH``, ``$SEARCHQA_TEST_PATH``,
    ``$SEARCHQA_TRAIN_PATH``; give a corpus and QA files together. ``retriever``: ``"bm25"``
    (default) or ``"dense"`` (cosine similarity under ``embedder``, a function from a list of
    texts to an array of embeddings, e.g. an e5 model the user has). ``topk``: passages per
    search (AgentGym: 3). ``world_seed``: the generated world.

    ## Version History
    v0: AgentGym's texts, parsing and exact-match reward; generated world by default.
    """

    family = "searchqa"

    def __init__(
        self,
        corpus_path: str | os.PathLike[str] | None = None,
        test_path: Any = None,
        train_path: Any = None,
        retriever: str = "bm25",
        embedder: Embedder | None = None,
        topk: int = TOPK,
        world_seed: int = 0,
        render_mode: str | None = None,
    ) -> None:
        corpus_path = corpus_path or os.environ.get("SEARCHQA_CORPUS_PATH") or None
        test_path = test_path or os.environ.get("SEARCHQA_TEST_PATH") or None
        train_path = train_path or os.environ.get("SEARCHQA_TRAIN_PATH") or None
        if retriever not in ("bm25", "dense"):
            raise ValueError(f"unknown retriever {retriever!r}: use 'bm25' or 'dense'")
        if retriever == "dense" and embedder is None:
            raise ValueError(
                "retriever='dense' needs embedder=: a function from a list of texts to an "
                "array of embeddings (one row per text)"
            )
        user_qa = bool(test_path or train_path)
        if bool(corpus_path) != user_qa:
            raise BadDataError(
                "give a corpus (corpus_path) and QA files (test_path/train_path) together, "
                "or neither for the generated world"
            )
        if corpus_path and not Path(corpus_path).expanduser().is_file():
            raise BadDataError(
                f"corpus file {str(corpus_path)!r} does not exist: pass a passage JSONL file"
            )
        if user_qa:
            tasks = QAFileTasks(_paths(test_path), _paths(train_path))
        else:
            tasks = GeneratedQATasks(world_seed)
        super().__init__(tasks, render_mode=render_mode)
        self.corpus_path = str(corpus_path) if corpus_path else None
        self.world_seed = world_seed
        self.retriever_kind = retriever
        self.embedder = embedder
        self.topk = int(topk)
        self._docs: list[Doc] | None = None
        self._key = ""
        self._retriever = None
        self.searches = 0

    # -- corpus --------------------------------------------------------------------------
    @property
    def docs(self) -> list[Doc]:
        if self._docs is None:
            if self.corpus_path:
                self._docs = load_corpus(self.corpus_path)
            else:
                self._docs = [Doc(f'"{p.title}"', p.text) for p in world(self.world_seed).passages]
            self._key = corpus_key(self._docs)
        return self._docs

    def search(self, query: str) -> list[Doc]:
        """The top :attr:`topk` passages for ``query``, best first."""
        if self._retriever is None:
            docs = self.docs
            if self.retriever_kind == "dense":
                self._retriever = DenseRetriever(docs, self.embedder)  # type: ignore[arg-type]
            else:
                self._retriever = shared_bm25(self._key, lambda: docs)
        return [self.docs[i] for i in self._retriever.search(query, self.topk)]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        # the BM25 index is shared per process and found again on the first search
        state["_retriever"] = None if self.retriever_kind == "bm25" else self._retriever
        state["_docs"] = None if self.retriever_kind == "bm25" else self._docs
        return state

    # -- episode -------------------------------------------------------------------------
    def _begin(self, task: SearchQATask) -> tuple[str, dict[str, Any]]:
        self.searches = 0
        return first_observation(task.question), {"searches": 0, "data_source": task.data_source}

    def _act(self, action: str) -> StepResult:
        task: SearchQATask = self.task  # type: ignore[assignment]
        kind, content = parse_reply(action)
        info: dict[str, Any] = {"data_source": task.data_source}
        if kind == "search":
            self.searches += 1
            docs = self.search(content)
            info.update(searches=self.searches, retrieved=[d.title for d in docs])
            return StepResult(format_information(docs), info=info)
        if kind == "answer":
            answer = final_answer(action) or ""
            correct = exact_match(answer, task.answers)
            info.update(searches=self.searches, answer=answer, f1=f1_score(answer, task.answers))
            if correct:
                self.success, self.score = True, 1.0
                return StepResult(CORRECT, reward=1.0, terminated=True, info=info)
            return StepResult(INCORRECT, info=info)
        info["searches"] = self.searches
        return StepResult(
            INVALID, error="no <search>...</search> or <answer>...</answer> block", info=info
        )

    # -- for policies and LLM wrappers -----------------------------------------------------
    def random_action(self, rng: np.random.Generator) -> str:
        doc = self.docs[int(rng.integers(len(self.docs)))]
        words = doc.text.split()
        word = words[int(rng.integers(len(words)))].strip(".,") if words else "x"
        return f"<search> {word} </search>" if rng.random() < 0.7 else f"<answer> {word} </answer>"

    def instructions(self) -> str:
        return CONVERSATION_START

    def tool_schemas(self) -> list[dict[str, Any]]:
        tools = [
            Tool(
                "search",
                f"Search the corpus; returns the top {self.topk} passages.",
                parameters=schema(query=param("string")),
            ),
            Tool(
                "answer",
                "Give the final answer (a short phrase).",
                parameters=schema(answer=param("string")),
            ),
        ]
        return Toolkit(tools).openai_schemas()

    def action_from_tool_call(self, name: str, arguments: dict[str, Any]) -> str:
        if name == "search":
            return f"<search> {arguments['query']} </search>"
        if name == "answer":
            return f"<answer> {arguments['answer']} </answer>"
        raise ValueError(f"unknown tool {name!r}: use 'search' or 'answer'")


def _paths(value: Any) -> list[str]:
    if not value:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [str(p) for p in str(value).split(os.pathsep) if p]
    return [str(p) for p in value]
