"""NeMo Gym's entry point for the agentgym-envs resources server (``entrypoint: app.py``).

``ng_run`` starts it from this folder; the server itself lives in
:mod:`agentgym_envs.integrations.nemo_gym`.
"""

from agentgym_envs.integrations.nemo_gym import AgentGymResourcesServer

if __name__ == "__main__":
    AgentGymResourcesServer.run_webserver()
