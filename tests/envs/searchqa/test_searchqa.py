"""SearchQA: AgentGym's texts, reply parsing and exact-match reward; the generated world; the
loaders for the user's corpus and QA files; the contract."""

from __future__ import annotations

import json
import zlib

import gymnasium as gym
import numpy as np
import pytest

from agentgym_envs.envs.searchqa.env import (
    CORRECT,
    INCORRECT,
    INVALID,
    PROMPT,
    SearchQAEnv,
)
from agentgym_envs.envs.searchqa.expert import SearchQAExpert
from agentgym_envs.envs.searchqa.retrieval import Doc, format_information, load_corpus
from agentgym_envs.envs.searchqa.scoring import (
    exact_match,
    f1_score,
    final_answer,
    normalize_answer,
    parse_reply,
)
from agentgym_envs.envs.searchqa.world import CATEGORIES, build_world
from agentgym_envs.errors import BadDataError
from agentgym_envs.testing import check_text_env

ENV_ID = "AgentGym/SearchQA-v0"


@pytest.fixture(scope="module")
def env():
    return SearchQAEnv()


def _test(env, task_id):
    return env.reset(seed=0, options={"split": "test", "task_id": task_id})


def test_contract_expert_solves_every_test_task():
    report = check_text_env(ENV_ID)
    assert len(report.expert_scores) == 350 and all(report.expert_successes)
    assert report.random_mean == 0.0


def test_first_observation_is_agentgyms_prompt_and_question(env):
    obs, info = _test(env, 0)
    question = env.task.question
    assert obs == PROMPT + question
    assert obs.startswith("You must reason inside <think>...</think> first.")
    assert "<answer> Beijing </answer>. Follow this process every time.\n\n Question: " in obs
    assert question.endswith("?") and info["task_id"] == 0 and info["split"] == "test"


def test_search_shows_top_three_passages_in_agentgyms_format(env):
    _test(env, 0)
    name = env.task.question.removeprefix("In which city was ").removesuffix(" born?")
    obs, reward, terminated, _, info = env.step(f"<think>hm</think> <search> {name} </search>")
    assert obs.startswith(f'<information>Doc 1(Title: "{name}") {name} was a ')
    assert obs.endswith("</information>") and "\nDoc 2(Title: " in obs and "\nDoc 3(Title: " in obs
    assert "Doc 4" not in obs
    assert (reward, terminated) == (0.0, False) and info["searches"] == 1
    assert info["retrieved"][0] == f'"{name}"'


def test_wrong_answer_keeps_the_episode_and_right_answer_ends_it(env):
    _test(env, 0)
    gold = env.task.answers[0]
    obs, reward, terminated, _, info = env.step("<answer> Atlantis </answer>")
    assert (obs, reward, terminated) == (INCORRECT, 0.0, False)
    assert "error" not in info and info["f1"] == 0.0
    # graded after AgentGym's normalisation: case, punctuation and articles do not matter
    obs, reward, terminated, _, info = env.step(f"<answer>  The {gold.upper()}. </answer>")
    assert (obs, reward, terminated) == (CORRECT, 1.0, True)
    assert info["success"] and info["score"] == 1.0 and info["f1"] == 1.0


def test_a_reply_without_tags_is_agentgyms_invalid_feedback(env):
    _test(env, 1)
    for reply in ("search Paris", "<search>unclosed", "<answer>x</search>", ""):
        obs, reward, terminated, _, info = env.step(reply)
        assert obs == INVALID and reward == 0.0 and not terminated and "error" in info


def test_first_block_decides_and_the_last_answer_is_graded(env):
    _test(env, 2)
    gold = env.task.answers[0]
    # a search first: the reply is a search, whatever follows
    obs, *_ = env.step(f"<search> q </search> <answer> {gold} </answer>")
    assert obs.startswith("<information>")
    # an answer first: the last <answer> block is the one graded
    obs, reward, *_ = env.step(f"<answer> nope </answer> then <answer> {gold} </answer>")
    assert obs == CORRECT and reward == 1.0


def test_scoring_functions():
    assert parse_reply("<think>x</think><search> a b </search>") == ("search", "a b")
    assert parse_reply("<answer>\nx\n</answer>") == ("answer", "x")
    assert parse_reply("nothing") == (None, "")
    assert final_answer("<answer>a</answer><answer> b </answer>") == "b"
    assert final_answer("none") is None
    assert normalize_answer("The  Eiffel-Tower!") == "eiffeltower"
    assert exact_match("an apple", ["Apple"]) and not exact_match("apple pie", ["apple"])
    assert f1_score("red apple pie", ["apple"]) == pytest.approx(0.5)
    assert f1_score("", [""]) == 1.0


def test_item_ids_put_the_test_split_first_as_agentgym_does(env):
    _test(env, 3)
    assert env.item_id == "searchqa_3"
    env.reset(options={"split": "train", "task_id": 0})
    assert env.item_id == "searchqa_350"
    assert env.tasks.locate(350) == ("train", 0) and env.tasks.locate(349) == ("test", 349)


def test_world_is_seeded_and_every_answer_is_in_the_corpus():
    a, b, c = build_world(0, n_people=200), build_world(0, n_people=200), build_world(1, 200)
    assert a == b and a.passages != c.passages
    text = " ".join(p.text for p in a.passages)
    assert {q.category for q in a.questions} == {name for name, _ in CATEGORIES}
    for q in a.questions:
        assert all(ans in text for ans in q.answers)
    multi = [q for q in a.questions if len(q.hops) == 2]
    assert len(multi) > len(a.questions) // 4


def test_test_split_has_every_category(env):
    cats = [env.tasks._load("test", i).data_source for i in range(env.tasks.size("test"))]
    assert {name for name, _ in CATEGORIES} == set(cats)
    assert min(cats.count(c) for c in set(cats)) >= 15


# -- the user's data ---------------------------------------------------------------------
PASSAGES = [
    ("Aaron", "Aaron is a prophet, high priest, and the brother of Moses."),
    ("Paris", "Paris is the capital and most populous city of France."),
    ("Lyon", "Lyon is the third-largest city of France, on the Rhone."),
    ("Berlin", "Berlin is the capital of Germany and its largest city."),
]


@pytest.fixture
def user_data(tmp_path):
    corpus = tmp_path / "wiki.jsonl"
    corpus.write_text(
        "".join(
            json.dumps({"id": str(i), "contents": f'"{t}"\n{x}'}) + "\n"
            for i, (t, x) in enumerate(PASSAGES)
        )
    )
    test = tmp_path / "nq_test.jsonl"  # FlashRAG / NQ form
    test.write_text(
        json.dumps({"id": "test_0", "question": "capital of france", "golden_answers": ["Paris"]})
        + "\n"
        + json.dumps({"question": "who is the brother of moses?", "answers": ["Aaron"]})
        + "\n"
    )
    train = tmp_path / "hotpot_train.json"  # HotpotQA form
    train.write_text(
        json.dumps([{"_id": "x", "question": "Capital of Germany?", "answer": "Berlin"}])
    )
    return corpus, test, train


def test_user_corpus_and_qa_files_play_agentgyms_items(user_data):
    corpus, test, train = user_data
    env = SearchQAEnv(corpus_path=corpus, test_path=str(test), train_path=[train])
    assert env.tasks.splits() == {"train": 1, "test": 2}
    obs, _ = env.reset(options={"split": "test", "task_id": 0})
    assert obs == PROMPT + "capital of france?"  # AgentGym appends the question mark
    obs, *_ = env.step("<search> populous France </search>")
    assert obs.startswith('<information>Doc 1(Title: "Paris") Paris is the capital')
    assert obs.count("Doc ") == 2  # only passages that share a term are hits
    assert env.step("<answer>paris</answer>")[1] == 1.0
    env.reset(options={"split": "train", "task_id": 0})
    assert env.item_id == "searchqa_2" and env.task.answers == ("Berlin",)
    expert = SearchQAExpert(env)
    obs, info = env.reset(options={"split": "test", "task_id": 1})
    for _ in range(3):
        obs, _, terminated, _, info = env.step(expert(obs, info))
        if terminated:
            break
    assert info["success"]


def test_agentgym_parquet_rows_are_read(tmp_path, user_data):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    corpus, _, _ = user_data
    rows = [
        {
            "question": "capital of germany?",
            "data_source": "nq",
            "reward_model": {"style": "rule", "ground_truth": {"target": ["Berlin"]}},
        }
    ]
    path = tmp_path / "test.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    env = SearchQAEnv(corpus_path=corpus, test_path=path)
    env.reset(options={"split": "test", "task_id": 0})
    assert env.task.answers == ("Berlin",) and env.task.data_source == "nq"


def test_dpr_title_text_corpus_form(tmp_path):
    path = tmp_path / "psgs.jsonl"
    path.write_text(json.dumps({"id": "1", "title": "Lyon", "text": "A city."}) + "\n")
    assert load_corpus(path) == [Doc("Lyon", "A city.")]
    assert (
        format_information(load_corpus(path))
        == "<information>Doc 1(Title: Lyon) A city.</information>"
    )


def test_bad_user_data_says_the_mend(tmp_path, user_data):
    corpus, test, _ = user_data
    with pytest.raises(BadDataError, match="together"):
        SearchQAEnv(corpus_path=corpus)
    with pytest.raises(BadDataError, match="does not exist"):
        SearchQAEnv(corpus_path=tmp_path / "missing.jsonl", test_path=test)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question": "q"}) + "\n")
    with pytest.raises(BadDataError, match="no answers"):
        SearchQAEnv(corpus_path=corpus, test_path=bad)


def test_env_vars_name_the_data(monkeypatch, user_data):
    corpus, test, _ = user_data
    monkeypatch.setenv("SEARCHQA_CORPUS_PATH", str(corpus))
    monkeypatch.setenv("SEARCHQA_TEST_PATH", str(test))
    env = gym.make(ENV_ID).unwrapped
    assert env.tasks.splits() == {"train": 0, "test": 2}


def _trigram_embedder(texts):
    """Hashed character-trigram counts: a small, real embedding function."""
    out = np.zeros((len(texts), 512), dtype=np.float32)
    for row, text in enumerate(texts):
        t = f"  {text.lower()}  "
        for i in range(len(t) - 2):
            out[row, zlib.crc32(t[i : i + 3].encode()) % 512] += 1
    return out


def test_dense_retriever_ranks_by_embedding_similarity(user_data):
    corpus, test, _ = user_data
    with pytest.raises(ValueError, match="embedder"):
        SearchQAEnv(corpus_path=corpus, test_path=test, retriever="dense")
    env = SearchQAEnv(
        corpus_path=corpus, test_path=test, retriever="dense", embedder=_trigram_embedder
    )
    env.reset(options={"split": "test", "task_id": 0})
    obs, *_ = env.step("<search> brother of Moses, a prophet </search>")
    # dense retrieval returns the top 3 whatever the overlap
    assert obs.count("Doc ") == 3 and obs.startswith('<information>Doc 1(Title: "Aaron") ')
