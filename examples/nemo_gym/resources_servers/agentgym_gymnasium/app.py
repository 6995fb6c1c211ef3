"""NeMo Gym's entry point for the agentgym-envs Gymnasium-style server (``entrypoint: app.py``),
played by NeMo Gym's ``gymnasium_agent`` with text replies.

``gym env start`` starts it from this folder; the server itself lives in
:mod:`agentgym_envs.integrations.nemo_gym`.
"""

from agentgym_envs.integrations.nemo_gym import AgentGymGymnasiumServer

if __name__ == "__main__":
    AgentGymGymnasiumServer.run_webserver()
