"""``agentgym train`` as a user meets it: its help, where it computes (CPU here; a CUDA GPU with
a larger model and vLLM elsewhere: the choice and its errors, not a GPU run), the model it
starts from, converted once for every process."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentgym_envs.train import device
from agentgym_envs.train.settings import LOCAL_MODEL, TrainError


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "agentgym_envs.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, **(env or {})},
    )


def test_train_is_listed_and_its_help_names_the_stages_and_the_gpu_options() -> None:
    top = _cli("--help")
    assert top.returncode == 0 and "train" in top.stdout
    run = _cli("train", "run", "--help", env={"COLUMNS": "200"})
    assert run.returncode == 0
    text = " ".join(re.sub("[\u2500-\u257f]", " ", run.stdout).split())  # no box drawing
    for words in ("collect, sft, rl, eval", "--vllm", "--model", "--curriculum", "On a GPU"):
        assert words in text, words


def test_the_cpu_is_chosen_here_and_auto_means_the_local_model() -> None:
    runtime = device.resolve()
    # this project's machines have no GPU: the test says so rather than pretending
    assert runtime == device.Runtime("cpu", False) or device.cuda_available()
    cpu = device.resolve(cuda=False, installed=True)
    assert cpu == device.Runtime("cpu", False)
    assert device.resolve_model("auto", cpu) == LOCAL_MODEL
    assert device.resolve_model("/some/folder", cpu) == "/some/folder"
    assert cpu.trainer_kwargs() == {"use_cpu": True} and "use_vllm" not in cpu.grpo_kwargs()


def test_a_gpu_takes_the_larger_model_and_vllm_when_installed() -> None:
    both = device.resolve(cuda=True, installed=True)
    assert both == device.Runtime("cuda", True) and both.autocast_device == "cuda"
    assert device.resolve_model("auto", both) == device.GPU_MODEL
    assert device.resolve(cuda=True, installed=False) == device.Runtime("cuda", False)
    assert device.resolve("off", cuda=True, installed=True) == device.Runtime("cuda", False)


def test_the_gpu_settings_are_fields_trls_configs_accept(tmp_path) -> None:
    trl = pytest.importorskip("trl")
    runtime = device.Runtime("cuda", True)
    here = {"report_to": "none", "bf16": False}  # no bf16 check against a GPU this machine lacks
    grpo = trl.GRPOConfig(output_dir=str(tmp_path / "g"), **here, **runtime.grpo_kwargs())
    assert grpo.use_vllm and grpo.vllm_mode == "colocate" and not grpo.use_cpu
    # a rollout_func that samples with model.generate gets the GPU, not an idle vLLM engine
    text = trl.GRPOConfig(output_dir=str(tmp_path / "t"), **here, **runtime.grpo_kwargs(False))
    assert not text.use_vllm
    sft = trl.SFTConfig(output_dir=str(tmp_path / "s"), **here, **runtime.trainer_kwargs())
    assert not sft.use_cpu


@pytest.mark.parametrize(
    ("vllm", "cuda", "installed", "words"),
    [
        ("on", False, True, ["CUDA GPU", "--vllm off"]),
        ("on", True, False, ["not installed", "pip install vllm"]),
        ("maybe", True, True, ["auto, on, off"]),
    ],
)
def test_vllm_asked_for_without_it_is_one_line_with_the_mend(vllm, cuda, installed, words):
    with pytest.raises(TrainError) as err:
        device.resolve(vllm, cuda=cuda, installed=installed)
    assert "\n" not in str(err.value) and all(w in str(err.value) for w in words)


def test_vllm_on_here_is_refused_by_the_command_in_one_line(tmp_path) -> None:
    if device.cuda_available() and device.vllm_installed():
        pytest.skip("this machine has a GPU and vLLM")
    proc = _cli("train", "run", str(tmp_path / "run"), "--vllm", "on")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "--vllm on" in proc.stderr
    assert not (tmp_path / "run").exists()  # refused before the folder is made


def test_a_hugging_face_id_offline_is_one_line_with_the_mend(tmp_path) -> None:
    env = {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    proc = _cli("train", "run", str(tmp_path / "run"), "--model", "nobody/no-such-model", env=env)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "huggingface-cli download nobody/no-such-model" in line


def test_the_local_model_is_converted_once_for_every_process(tmp_path) -> None:
    """Two processes ask for the base checkpoint: at most the first converts the GGUF; the
    second (and every stage, server and example after it) reads the same safetensors."""
    pytest.importorskip("transformers")
    from agentgym_envs.benchmarks.local_llm import local_llm_available

    reason = local_llm_available("transformers")
    if reason:
        pytest.skip(reason)
    code = (
        "import logging, sys; logging.basicConfig(level=logging.INFO, stream=sys.stdout); "
        "from agentgym_envs.train.model import base_checkpoint; print(base_checkpoint('smollm2'))"
    )

    def ask() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=1800
        )

    first = ask()
    assert first.returncode == 0, first.stderr
    folder = Path(first.stdout.strip().splitlines()[-1])
    weights = folder / "model.safetensors"
    before = weights.stat()
    second = ask()
    assert second.returncode == 0, second.stderr
    assert "converting" not in second.stdout
    assert Path(second.stdout.strip().splitlines()[-1]) == folder
    after = weights.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_the_grpo_example_runs_and_shows_each_episode_with_an_eta(tiny_model, tmp_path) -> None:
    """``examples/train_grpo_trl.py`` end to end on the tiny model (``--model`` takes any
    checkpoint folder): a line per episode with the time so far and an ETA, then the steps."""
    example = Path(__file__).resolve().parents[2] / "examples" / "train_grpo_trl.py"
    args = ["--model", str(tiny_model), "--steps", "2", "--generations", "2", "--turns", "2"]
    proc = subprocess.run(
        [sys.executable, str(example), *args, "--keep-going", "--save", str(tmp_path / "m")],
        capture_output=True,
        text=True,
        timeout=1800,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    episodes = [x for x in lines if x.strip().startswith("step ") and "ETA" in x]
    assert len(episodes) == 4, proc.stdout  # 2 steps x 2 episodes, each reported
    assert episodes[0].strip().startswith("step 1/2 episode 1/2")
    assert any(x.startswith("2 steps in") for x in lines)
    assert (tmp_path / "m" / "config.json").is_file()


def test_every_stage_shows_a_progress_bar_with_an_eta(tiny_model, tmp_path) -> None:
    """collect and eval: the runner's bar (done/total, elapsed, time remaining); sft and rl:
    the trainer's bar (``[elapsed<remaining``)."""
    from .test_train import HELD_OUT_ENV, SMALL

    args = ["--model", str(tiny_model), "--env", HELD_OUT_ENV, "--eval-items", "3"]
    for key, value in SMALL.items():
        if key not in ("envs", "eval_items"):
            args += [f"--{key.replace('_', '-')}", str(value)]
    proc = _cli("train", "run", str(tmp_path / "run"), "--progress", *args)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out, err = proc.stdout.replace("\r", "\n"), proc.stderr.replace("\r", "\n")
    runner_bar = re.compile(r"MazeRandom-v0 .* (\d+)/\1 success .* \d+:\d\d:\d\d \d+:\d\d:\d\d")
    assert len(runner_bar.findall(out)) == 4  # eval:base, collect, eval:sft, eval:rl
    trainer_bar = re.compile(r"\| (\d+)/\1 \[\d\d:\d\d<\d\d:\d\d")
    assert len(set(trainer_bar.findall(err))) >= 1 and len(trainer_bar.findall(err)) >= 2
    for label in ("sft: finished", "rl: finished", "eval:rl: finished"):
        assert label in err
