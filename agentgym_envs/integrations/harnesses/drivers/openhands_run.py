"""Run one OpenHands agent conversation headless: ``python openhands_run.py <config.json>``.

Run by the Python of the OpenHands venv (``openhands-sdk`` and ``openhands-tools``); it imports
nothing of agentgym. The config names the model (``model``, ``base_url``, ``api_key``), the MCP
servers, the workspace, the prompt and the iteration cap. OpenHands's default agent (its
system prompt, its terminal / file editor / task tracker tools, and the MCP servers' tools)
plays until it finishes; a JSON line with the final state and the LLM's token usage is printed.
"""

import json
import sys


def main(path: str) -> int:
    from openhands.sdk import LLM, Agent, Conversation
    from openhands.tools.preset.default import get_default_tools

    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    llm = LLM(
        model=f"openai/{config['model']}",
        base_url=config["base_url"],
        api_key=config["api_key"],
        usage_id="agent",
        num_retries=1,
        drop_params=True,
        timeout=int(config.get("llm_timeout", 300)),
        stream_idle_timeout=float(config.get("llm_timeout", 300)),
    )
    agent = Agent(
        llm=llm,
        tools=get_default_tools(enable_browser=False),
        mcp_config=config["mcp_servers"],
        system_prompt_kwargs={"cli_mode": True},
    )
    conversation = Conversation(
        agent=agent,
        workspace=config["workspace"],
        persistence_dir=config.get("persistence_dir"),
        max_iteration_per_run=int(config.get("max_iterations", 100)),
        visualizer=None,
    )
    conversation.send_message(config["prompt"])
    conversation.run()
    state = conversation.state
    status = getattr(state, "execution_status", None)
    metrics = llm.metrics.get() if getattr(llm, "metrics", None) is not None else {}
    print(
        json.dumps({"agentgym_openhands": {"status": str(status), "metrics": metrics}}, default=str)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
