"""Adapters for RL trainers: one module per trainer, each behind its own extra.

* :mod:`~agentgym_envs.integrations.trl` -- TRL ``GRPOTrainer``: ``environment_factory``
  (tool calls), ``rollout_func`` (text replies), dataset builders, :func:`trl_spec`;
* :mod:`~agentgym_envs.integrations.verl` -- a verl agent loop, registered as ``agentgym``;
* :mod:`~agentgym_envs.integrations.openrlhf` -- an OpenRLHF ``AgentInstance``;
* :mod:`~agentgym_envs.integrations.skyrl` -- a SkyRL ``BaseTextEnv`` and its registration.

Ecosystem adapters (each behind its own extra, kept out of ``all`` because their pins clash;
:mod:`~agentgym_envs.integrations.venvs` makes a venv per ecosystem):

* :mod:`~agentgym_envs.integrations.verifiers` -- a verifiers 0.4 taskset and env (and, per id,
  the taskset package ``agentgym export --to prime`` writes) for prime-rl and the Prime
  Environments Hub;
* :mod:`~agentgym_envs.integrations.openenv` -- an OpenEnv server and its typed client;
* :mod:`~agentgym_envs.integrations.openreward` -- an ORS (OpenReward) server;
* :mod:`~agentgym_envs.integrations.export` -- ``agentgym export``: hub packages of one id.

All of them play episodes through :class:`~agentgym_envs.integrations.session.EnvSession`,
which turns an env failure into ``outcome="env_error"`` / ``reward_valid=False``, and each
maps that onto its trainer's way of leaving a rollout out. Nothing here is imported until
you import the trainer's module.
"""
