"""The reference agents over real HTTP endpoints: the expert behind the OpenAI interface (the
plumbing must give the expert's score) and the local SmolLM2 model."""

from __future__ import annotations

import pytest

from agentgym_envs.agents import ExpertChatServer, MultiStepAgent, agent_spec, run_agent
from agentgym_envs.benchmarks import ChatClient, run_benchmark, sweep
from agentgym_envs.benchmarks.llm import ChatReply

ENVS = ["AgentGym/Maze-v0", "AgentGym/BabyAI-v0", "AgentGym/Movie-v0"]


def scratchpad_agent(client, **kwargs):
    """The ``agent:multiturn`` preset: several tool calls per turn, a scratchpad, re-asks."""
    options = {"parallel_calls": True, "scratchpad": True, "max_reasks": 2, **kwargs}
    return MultiStepAgent(client, "tools", **options)


@pytest.fixture(scope="module")
def expert_server():
    with ExpertChatServer(ENVS) as server:
        yield server


@pytest.mark.parametrize("agent", ["multistep", "multiturn"])
def test_expert_behind_openai_gets_the_experts_score(expert_server, agent):
    spec = agent_spec(agent, base_url=expert_server.base_url)
    result = run_benchmark(ENVS, spec, limit=3, reports=False)
    expert = sweep(ENVS, limit=3)
    ours = {r["env_id"]: 0 for r in result.records}
    for r in result.records:
        ours[r["env_id"]] += r["success"]
    theirs = {r["env_id"]: 0 for r in expert.records}
    for r in expert.records:
        theirs[r["env_id"]] += r["success"]
    assert ours == theirs and sum(ours.values()) == 9
    assert all(r["tokens"]["prompt_tokens"] > 0 for r in result.records)


def test_multiturn_records_tool_turns_latency_and_tokens(expert_server):
    agent = scratchpad_agent(ChatClient(expert_server.base_url))
    record = run_agent("AgentGym/Movie-v0", agent, task_id=2)
    assert record["success"] and record["item_id"].startswith("movie_")
    assert len(record["turn_stats"]) == record["turns"]
    assert all(t["latency"] > 0 and t["completion_tokens"] > 0 for t in record["turn_stats"])
    assert record["tokens"]["prompt_tokens"] == sum(
        t["prompt_tokens"] for t in record["turn_stats"]
    )
    assert [t["from"] for t in record["conversations"][:3]] == ["human", "gpt", "human"]


class _Scripted:
    """A chat model that answers from a script (an OpenAI client's reply shape)."""

    def __init__(self, replies):
        from agentgym_envs.benchmarks.llm import Sampling

        self.replies = list(replies)
        self.sampling = Sampling()
        self.prompts = []

    def chat(self, messages, *, tools=None, sampling=None):
        self.prompts.append(messages)
        reply = self.replies.pop(0) if self.replies else {"role": "assistant", "content": "hmm"}
        return ChatReply(reply, "stop", {"prompt_tokens": 5, "completion_tokens": 2})


def _call(name, arguments, i=0):
    return {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}


def test_multiturn_several_calls_per_turn_memory_and_bounded_retries():
    from agentgym_envs.benchmarks.runner import make_policy_env

    client = _Scripted(
        [
            {"role": "assistant", "content": "no tools here"},  # malformed: retried
            {"role": "assistant", "content": None, "tool_calls": [_call("move", "{bad json")]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    _call("remember", '{"note": "goal is south-east"}', 0),
                    _call("move", '{"direction": "right"}', 1),
                    _call("move", '{"direction": "right"}', 2),
                ],
            },
        ]
    )
    agent = scratchpad_agent(client)
    env = make_policy_env("AgentGym/Maze-v0", "tools", max_rounds=4)
    record = run_agent(env, agent, task_id=0, max_rounds=4)
    kinds = [t["kind"] for t in record["turn_stats"]]
    # two re-asks, then one model turn for two env steps; then the script is out: the
    # text reply is retried twice and given up (the env answers it as an invalid call)
    assert kinds[:3] == ["retry", "retry", "action"]
    assert kinds[3:] == ["retry", "retry", "gave_up", "retry", "retry", "gave_up"]
    assert agent.memory == ["goal is south-east"]
    assert "goal is south-east" in client.prompts[3][0]["content"]
    text = "\n".join(t["value"] for t in record["conversations"])
    assert "Error: the reply has no tool call" in text and "not valid JSON" in text
    assert "position 1, 3" in text  # both moves were played from one model turn
    assert record["turns"] == 4


@pytest.mark.parametrize("agent", ["multistep", "multiturn"])
def test_local_model_plays_and_records(local_llm, agent):
    client = ChatClient(local_llm.base_url, timeout=120)
    client.sampling.max_tokens = 48
    policy = (
        MultiStepAgent(client) if agent == "multistep" else scratchpad_agent(client, max_reasks=1)
    )
    record = run_agent("AgentGym/Maze-v0", policy, task_id=0, max_rounds=2)
    assert record["turns"] == 2
    assert record["tokens"]["prompt_tokens"] > 0 and record["tokens"]["completion_tokens"] > 0
    assert all(t["latency"] > 0 for t in record["turn_stats"])
    assert record["conversations"][0]["from"] == "human"


def test_agents_play_episode_after_episode_in_rollout_collect(expert_server):
    from agentgym_envs.benchmarks.runner import make_policy_env
    from agentgym_envs.rollout import collect

    client = ChatClient(expert_server.base_url)
    for fmt, make_agent in (
        ("tools", lambda: scratchpad_agent(client)),
        ("react", lambda: MultiStepAgent(client)),
    ):
        episodes = collect(
            lambda fmt=fmt: make_policy_env("AgentGym/Maze-v0", fmt, max_rounds=30),
            make_agent,
            [0, 1, 2],
            num_envs=2,
            policy_factory=True,
        )
        assert [e.task_id for e in episodes] == [0, 1, 2]
        assert all(e.success for e in episodes)


def test_expert_model_answers_tools_with_several_and_nested_arguments():
    # TextCraft's craft(count, item, ingredients[]) and ALFWorld's take(object, receptacle):
    # the expert's text action is read back into the call the env would make it from
    envs = ["AgentGym/TextCraft-v0", "AgentGym/ALFWorld-v0"]
    with ExpertChatServer(envs) as server:
        result = run_benchmark(envs, agent_spec("multiturn", base_url=server.base_url), limit=2)
    assert [r["success"] for r in result.records] == [True] * 4
    calls = [t["value"] for r in result.records for t in r["conversations"] if t["from"] == "gpt"]
    assert any('"ingredients": [{"count"' in c for c in calls), calls


def test_expert_server_reads_the_most_specific_tool_an_action_ends_with():
    import json

    import agentgym_envs
    from agentgym_envs.agents.expert_server import _as_tool_call

    env = agentgym_envs.make("AgentGym/BabyAI-v0")
    env.reset(seed=0, options={"task_id": 7, "split": "test"})
    tools = env.unwrapped.tool_schemas()
    for action, name in [
        ("toggle and go through red closed door 1", "toggle_and_go_through"),
        ("go through red closed door 1", "go_through"),
    ]:
        call = _as_tool_call(env, action, tools)["function"]
        args = json.loads(call["arguments"])
        assert call["name"] == name and args == {"door": "red closed door 1"}
        assert env.unwrapped.action_from_tool_call(name, args) == action
    env.close()
