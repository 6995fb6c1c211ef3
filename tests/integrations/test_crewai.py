"""A real CrewAI crew playing envs through crewai_tools, its LLM the expert behind an
OpenAI-compatible endpoint; bad calls get clear errors."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
crewai = pytest.importorskip("crewai")

from agentgym_envs.agents import ExpertChatServer
from agentgym_envs.integrations.crewai import EpisodeTools, crewai_tools

ENVS = ["AgentGym/Maze-v0", "AgentGym/BabyAI-v0"]


@pytest.fixture(scope="module")
def expert():
    with ExpertChatServer(ENVS) as server:
        yield server


@pytest.mark.parametrize(("env_id", "task_id"), [(ENVS[0], 3), (ENVS[1], 7)])
def test_crew_plays_a_full_episode_to_success(expert, env_id, task_id):
    episode = EpisodeTools(env_id)
    tools = crewai_tools(episode)
    llm = crewai.LLM(model="openai/expert", base_url=expert.base_url, api_key="none")
    walker = crewai.Agent(
        role="player",
        goal="finish the task",
        backstory="You play text games.",
        tools=tools,
        llm=llm,
        max_iter=60,
        verbose=False,
    )
    task = crewai.Task(
        description=episode.reset(task_id=task_id),
        expected_output="the last observation",
        agent=walker,
    )
    crewai.Crew(agents=[walker], tasks=[task], verbose=False).kickoff()
    result = episode.result()
    assert result["terminated"] and result["success"]
    record = episode.record()
    assert record["success"] and record["steps"] == result["steps"]


def test_tools_follow_the_env_schema_and_report_mistakes():
    episode = EpisodeTools(ENVS[0])
    tools = {t.name: t for t in crewai_tools(episode)}
    assert set(tools) == {"act", "move"}
    assert "Error: no episode" in tools["move"].run(direction="right")  # before reset
    episode.reset(task_id=0)
    with pytest.raises(ValueError, match="direction"):
        tools["move"].run(direction=5)
    assert "Invalid tool call" in tools["move"].run(direction="sideways")
    assert "position 1, 2" in tools["move"].run(direction="right")
    assert "position 1, 3" in tools["act"].run(action="move right")
    assert episode.result()["steps"] == 3
