"""Play one Wordle episode through the ReAct wrapper with a scripted "model".

The "model" reads the chat messages the env keeps for it (``info["messages"]``), as an LLM
behind an OpenAI-compatible endpoint would, and answers in ReAct format. Its guesses come from
the family's expert; its first reply forgets the ``Action:`` line, to show what a real model
gets then: replies are read as AgentGym's client for the family reads them (Wordle's sends the
whole reply as the guess, which the game answers ``invalid word``; ``parser="strict"`` answers
``Invalid Action.`` without using a try). Swap ``scripted_model`` for a call to your endpoint::

    response = client.chat.completions.create(model=..., messages=info["messages"])
    reply = response.choices[0].message.content

Run: ``python examples/react_episode.py [--task 3] [--record episodes.jsonl]``; add
``--prompts-source <your AgentTraj file or AgentGym checkout>`` to play with AgentGym's own
conversation start instead of ours.
"""

from __future__ import annotations

import argparse

from agentgym_envs import expert_policy, make_llm_env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="AgentGym/Wordle-v0")
    parser.add_argument("--task", type=int, default=0, help="test task id")
    parser.add_argument(
        "--record", default=None, help="append the episode to this AgentTraj JSONL file"
    )
    parser.add_argument(
        "--prompts-source", default=None, help="AgentTraj file or AgentGym checkout: its prompts"
    )
    args = parser.parse_args()

    prompts = {"prompts": "agentgym", "prompts_source": args.prompts_source}
    env = make_llm_env(
        args.env, format="react", record=args.record, **(prompts if args.prompts_source else {})
    )
    obs, info = env.reset(seed=0, options={"split": "test", "task_id": args.task})
    expert = expert_policy(env)

    def scripted_model(messages: list[dict]) -> str:
        if len(messages) <= 3:  # first turn: forget the Action line, as models sometimes do
            return "Thought: I should open with a word that has common letters."
        action = expert(messages[-1]["content"], info)
        return f"Thought: this guess fits every clue so far.\nAction: {action}"

    print(obs)
    turns = 0
    while True:
        reply = scripted_model(info["messages"])
        obs, _, terminated, truncated, info = env.step(reply)
        turns += 1
        print(f"\n>>> {reply}\n{obs}")
        if terminated or truncated:
            break
    reason = info.get("truncation_reason", "terminated")
    print(f"\nend: {reason}; success={info['success']} score={info['score']} turns={turns}")
    env.close()


if __name__ == "__main__":
    main()
