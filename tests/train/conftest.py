"""A tiny randomly initialised model that speaks Maze-v0, built offline in seconds.

Its tokenizer's words are the ones Maze-v0 and the ReAct prompt use (every position, wall
phrase, instruction word), with ``Action:`` and the four moves as single tokens; the model is a
two-layer Llama. It knows nothing at first; behaviour cloning on the fixed double-T maze's train
starts teaches it the move of each cell, which carries over to the held-out starts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("trl")

ENV = "AgentGym/Maze-v0"
MOVES = ["move up", "move down", "move left", "move right"]
SPECIAL = ["<|im_start|>", "<|im_end|>"]


def _maze_words() -> list[str]:
    """The words the ReAct loop on Maze-v0 shows the model: instructions, observations of a
    few expert episodes, feedback, and every row and column number."""
    import agentgym_envs
    from agentgym_envs.wrappers import make_llm_env

    texts: list[str] = [str(n) for n in range(30)]
    env = make_llm_env(ENV, "react", max_rounds=60, history=True, instructions_role="user")
    for task_id in (0, 5, 10):
        obs, info = env.reset(seed=0, options={"split": "train", "task_id": task_id})
        texts += [m["content"] for m in info["messages"]]
        expert = agentgym_envs.expert_policy(env.unwrapped)
        raw = env.unwrapped.render()
        for _ in range(60):
            obs, _, terminated, truncated, info = env.step(f"Action: {expert(raw, info)}")
            raw = env.unwrapped.render()
            texts.append(obs)
            if terminated or truncated:
                break
    env.reset(seed=0, options={"split": "train", "task_id": 0})
    obs, *_ = env.step("nonsense")
    texts.append(obs)
    env.close()
    texts += ["Ok.", "Thought:", "Success", "system", "user", "assistant"]
    words = set()
    for text in texts:
        words.update(re.findall(r"\w+|[^\w\s]+", text))
    return sorted(words)


def build_tiny_checkpoint(folder: Path, seed: int = 0) -> Path:
    """Save a tiny Llama and its Maze-v0 word tokenizer into ``folder``; returns it."""
    import torch
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = _maze_words()
    vocab = {t: i for i, t in enumerate(["[UNK]", *SPECIAL, *words])}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    core.add_special_tokens([AddedToken(t, special=True) for t in SPECIAL])
    core.add_tokens([AddedToken(t, normalized=False) for t in ["Action:", *MOVES]])
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
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    model = LlamaForCausalLM(config)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    return build_tiny_checkpoint(tmp_path_factory.mktemp("tiny-maze-model"))
