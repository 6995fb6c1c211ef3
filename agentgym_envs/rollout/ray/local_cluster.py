"""A Ray cluster of one or more nodes on this machine that starts on a busy machine too.

``ray start --head`` and ``ray.init()`` give up on a loaded machine: Ray's raylet waits a fixed
15 s for its agents to write their port files and aborts the node past that, leaving processes
behind. :class:`LocalCluster` starts each node as its own ``ray start --block`` process (own
process group, resources, node IP -- 127.0.0.1 for the head, 127.0.0.2, ... for the workers: one
machine posing as several hosts --, ports and temp dir), with the agents' ports fixed and their
port files written for them, Ray's start-up patience raised and faster health checks, and starts
a node again if it aborted anyway. :meth:`LocalCluster.kill` SIGKILLs a worker node's whole
group (the node is lost); :meth:`LocalCluster.stop` ends every process the cluster started, and
nothing else.

``agentgym ray up`` / ``agentgym ray down`` (:func:`up`, :func:`down`) keep such a cluster
between commands: its state (address, temp dir, node pids) is recorded under
:func:`state_dir`, so ``down`` from another process ends exactly what ``up`` started.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

#: Lost nodes are found in about 10 s (Ray's default: about 30 s); a loaded machine may take
#: minutes to start a node's agents (Ray's default patience: 30 s).
RAY_ENV = {
    "RAY_health_check_period_ms": "1000",
    "RAY_health_check_failure_threshold": "10",
    "RAY_health_check_timeout_ms": "5000",
    "RAY_agent_register_timeout_ms": "600000",
    "RAY_raylet_start_wait_time_s": "600",
}


#: Characters Ray adds to a node's temp dir in its longest socket path
#: (``/head/session_<date>_<time>_<pid>/sockets/plasma_store``); a path may have 107 at most.
_SOCKET_SUFFIX = 80


def _short_temp_dir() -> str:
    """The temp folder, or ``/tmp`` where it is too long for Ray's socket paths."""
    base = tempfile.gettempdir()
    return base if len(base) + 12 + _SOCKET_SUFFIX <= 107 else "/tmp"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class NodeExited(RuntimeError):
    """A node's ``ray start`` exited (or its raylet aborted) while it was starting."""


class _Started:
    """A ``ray start --block`` process started by another command (:meth:`LocalCluster.load`),
    with the part of :class:`subprocess.Popen`'s interface the cluster uses."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        import psutil

        try:
            proc = psutil.Process(self.pid)
            return 0 if proc.status() == psutil.STATUS_ZOMBIE else None
        except psutil.NoSuchProcess:
            return 0

    def wait(self, timeout: float | None = None) -> int:
        deadline = time.monotonic() + (timeout if timeout is not None else 1e9)
        while self.poll() is None:
            if time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(f"ray start (pid {self.pid})", timeout or 0)
            time.sleep(0.1)
        return 0


@dataclass
class Node:
    name: str
    ip: str
    process: subprocess.Popen | _Started
    log: Path
    resources: dict[str, float] = field(default_factory=dict)
    #: The agents' ports this node was started with (Ray's port-file names -> port).
    agent_ports: dict[str, int] = field(default_factory=dict)
    announced: set[int] = field(default_factory=set)

    @property
    def alive(self) -> bool:
        return self.process.poll() is None


def _announce_agent_ports(node: Node, temp_dir: Path) -> None:
    """Write the port files a starting raylet waits for, with the ports the node's agents were
    told to use.

    Ray 2.60's raylet waits 15 s (hard-coded) for each agent to write its port to a file in the
    session dir and aborts the node past that; where Python takes longer to start (a machine
    loaded far beyond its cores), no node ever comes up. The agents were given fixed ports, so
    the files' contents are known: writing them first lets the raylet go on; each agent then
    binds that port and writes the same file.
    """
    try:
        import psutil
        from ray._raylet import persist_port
    except ImportError:
        return
    marker = f"--temp_dir={temp_dir}"
    for proc in psutil.process_iter(["pid", "cmdline"]):
        cmd = proc.info["cmdline"] or []
        if proc.info["pid"] in node.announced or marker not in cmd:
            continue
        if not cmd or not cmd[0].endswith("raylet"):
            continue
        args = dict(a[2:].split("=", 1) for a in cmd[1:] if a.startswith("--") and "=" in a)
        if "node_id" not in args or "session_dir" not in args:
            continue
        for name, port in node.agent_ports.items():
            persist_port(args["session_dir"], args["node_id"], name, port)
        node.announced.add(proc.info["pid"])


def _why(node: Node) -> str:
    """The last lines of what the node wrote (its ``ray start`` output, then its raylet's)."""
    texts = []
    for log in [node.log, *node.log.parent.glob(f"{node.name}/session_*/logs/raylet.out")]:
        try:
            lines = log.read_text(errors="replace").splitlines()
        except OSError:
            continue
        useful = [line for line in lines if line.strip() and "rpc_client.h" not in line]
        texts.append(" | ".join(useful[-3:]))
    return " || ".join(t for t in texts if t)[-600:]


def _raylet_aborted(node: Node) -> bool:
    """Whether the node's raylet gave up while starting (its log has a fatal check)."""
    for log in node.log.parent.glob(f"{node.name}/session_*/logs/raylet.out"):
        try:
            if "Check failed" in log.read_text(errors="replace"):
                return True
        except OSError:
            continue
    return False


class LocalCluster:
    """Start with :meth:`start_head`, add nodes with :meth:`add_worker`; :meth:`stop` at the end."""

    def __init__(self, startup_timeout: float = 240.0) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="agr", dir=_short_temp_dir()))
        self.startup_timeout = startup_timeout
        self.nodes: list[Node] = []
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.env = {
            **os.environ,
            "RAY_TMPDIR": str(self.tmp),
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_AUTH_MODE": os.environ.get("RAY_AUTH_MODE", "disabled"),
            **RAY_ENV,
        }
        self._next_ip = 2
        self._worker_port = 20000 + (os.getpid() % 200) * 150

    def _start(
        self,
        name: str,
        ip: str,
        args: list[str],
        resources: dict[str, float],
        env: dict[str, str] | None = None,
    ) -> Node:
        ray_bin = shutil.which("ray", path=os.path.dirname(sys.executable)) or "ray"
        ports = {
            "--node-manager-port": free_port(),
            "--object-manager-port": free_port(),
            "--dashboard-agent-listen-port": free_port(),
            "--dashboard-agent-grpc-port": free_port(),
            "--runtime-env-agent-port": free_port(),
            "--metrics-export-port": free_port(),
            "--min-worker-port": self._worker_port,
            "--max-worker-port": self._worker_port + 99,
        }
        self._worker_port += 100
        cmd = [ray_bin, "start", "--block", "--disable-usage-stats", f"--node-ip-address={ip}"]
        cmd += [f"{k}={v}" for k, v in ports.items()]
        cmd += [f"--temp-dir={self.tmp / name}", f"--resources={json.dumps(resources)}", *args]
        log = self.tmp / f"{name}.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                cmd,
                env={**self.env, **(env or {})},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        agent_ports = {
            "dashboard_agent_listen_port": ports["--dashboard-agent-listen-port"],
            "metrics_agent_port": ports["--dashboard-agent-grpc-port"],
            "metrics_export_port": ports["--metrics-export-port"],
            "runtime_env_agent_port": ports["--runtime-env-agent-port"],
        }
        node = Node(name, ip, process, log, resources, agent_ports)
        self.nodes.append(node)
        return node

    def _start_node(
        self,
        name: str,
        ip: str,
        args: list[str],
        resources: dict[str, float],
        env: dict[str, str] | None = None,
        attempts: int = 3,
    ) -> Node:
        """Start a node and wait until the GCS lists it. Ray's raylet gives its agents 15 s to
        start (hard-coded): on a loaded machine they may need more and the raylet aborts, so a
        node that exits while starting is started again."""
        want = max(self.alive_count(), 0) + 1
        for attempt in range(1, attempts + 1):
            node = self._start(name, ip, args, resources, env)
            try:
                self.wait_for_nodes(want, node)
                return node
            except NodeExited as exc:
                self.nodes.remove(node)
                if attempt == attempts:
                    raise
                logger.warning("%s (attempt %d of %d)", exc, attempt, attempts)
        raise AssertionError("unreachable")

    def start_head(
        self, num_cpus: float = 0, resources: dict[str, float] | None = None
    ) -> LocalCluster:
        """The head node (``num_cpus`` 0: it runs drivers only, workers run the actors)."""
        head = ["--head", f"--port={self.port}", "--include-dashboard=false"]
        head.append(f"--dashboard-port={free_port()}")
        args = [*head, f"--num-cpus={int(num_cpus)}"]
        self._start_node("head", "127.0.0.1", args, dict(resources or {}))
        return self

    def add_worker(
        self,
        num_cpus: float = 2,
        resources: dict[str, float] | None = None,
        env: dict[str, str] | None = None,
    ) -> Node:
        """A worker node (``env``: what differs in its processes' environment)."""
        ip = f"127.0.0.{self._next_ip}"
        self._next_ip += 1
        args = [f"--address={self.address}", f"--num-cpus={int(num_cpus)}"]
        name = f"worker{self._next_ip - 2}"
        return self._start_node(name, ip, args, dict(resources or {}), env)

    def alive_count(self) -> int:
        """Alive nodes, as the cluster's GCS sees them (-1 while it does not answer)."""
        from ray._raylet import GcsClient
        from ray.core.generated.gcs_pb2 import GcsNodeInfo

        try:
            client = GcsClient(address=self.address)
            nodes = client.get_all_node_info(
                timeout=30, state_filter=GcsNodeInfo.GcsNodeState.ALIVE
            )
        except Exception:
            return -1
        return len(nodes)

    def wait_for_nodes(self, n: int, starting: Node | None = None) -> None:
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if starting is not None and (not starting.alive or _raylet_aborted(starting)):
                why = _why(starting)
                self._end(starting)
                raise NodeExited(f"ray node {starting.name} did not start: {why}")
            if starting is not None:
                _announce_agent_ports(starting, self.tmp / starting.name)
            if self.alive_count() >= n:
                return
            time.sleep(0.2)
        raise TimeoutError(f"the Ray cluster did not reach {n} nodes in {self.startup_timeout} s")

    def _kill_workers(self, node: Node) -> None:
        """SIGKILL the node's Ray workers (their own process groups: killpg misses them)."""
        try:
            import psutil

            procs = psutil.Process(node.process.pid).children(recursive=True)
        except Exception:
            return
        for proc in procs:
            try:
                if proc.name().startswith("ray::") or "default_worker" in " ".join(proc.cmdline()):
                    proc.kill()
            except Exception:
                continue

    def _end(self, node: Node) -> None:
        try:
            os.killpg(node.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        node.process.wait(timeout=30)

    def kill(self, node: Node) -> None:
        """SIGKILL every process of the node at once: ``ray start``, its raylet, its agents and
        every worker (the raylet puts each worker in a process group of its own)."""
        import psutil

        try:
            root = psutil.Process(node.process.pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            procs = []
        for proc in procs:
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                continue
        node.process.wait(timeout=30)
        node.name = "dead"

    def stop(self) -> None:
        """End every process this cluster started (workers first), then remove its files."""
        for node in reversed(self.nodes):
            if node.alive:
                self._kill_workers(node)
        for node in reversed(self.nodes):
            if node.alive:
                try:
                    os.killpg(node.process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    continue
        deadline = time.monotonic() + 30
        for node in reversed(self.nodes):
            try:
                node.process.wait(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:  # anything left in the group (a worker that ignored SIGTERM)
                os.killpg(node.process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self._sweep()
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _sweep(self) -> None:
        """Kill stray processes of this cluster (started under its temp dir), by pid."""
        try:
            import psutil
        except ImportError:
            return
        marker = str(self.tmp)
        for proc in psutil.process_iter(["pid", "cmdline", "environ"]):
            try:
                cmdline = " ".join(proc.info["cmdline"] or [])
                env = proc.info.get("environ") or {}
                mine = marker in cmdline or env.get("RAY_TMPDIR") == marker
                if mine and proc.pid != os.getpid():
                    proc.kill()
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue

    # -- kept between commands -------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """What :meth:`load` needs to end this cluster from another process."""
        return {
            "address": self.address,
            "tmp": str(self.tmp),
            "nodes": [
                {"name": n.name, "ip": n.ip, "pid": n.process.pid, "log": str(n.log)}
                for n in self.nodes
            ],
        }

    @classmethod
    def load(cls, state: dict[str, Any]) -> LocalCluster:
        """The cluster :meth:`state` describes (started by another process)."""
        cluster = cls.__new__(cls)
        cluster.tmp = Path(state["tmp"])
        cluster.startup_timeout = 240.0
        cluster.address = state["address"]
        cluster.port = int(cluster.address.rsplit(":", 1)[1])
        cluster.env = {**os.environ, "RAY_TMPDIR": str(cluster.tmp), **RAY_ENV}
        cluster.nodes = [
            Node(n["name"], n["ip"], _Started(int(n["pid"])), Path(n["log"]))
            for n in state["nodes"]
        ]
        cluster._next_ip = 2 + len(cluster.nodes)
        cluster._worker_port = 20000 + (os.getpid() % 200) * 150
        return cluster


def state_dir() -> Path:
    """Where ``agentgym ray up`` records the clusters it keeps (one JSON file per cluster)."""
    from agentgym_envs.paths import cache_root

    home = os.environ.get("AGENTGYM_HOME")
    return Path(home).expanduser() / "ray" if home else cache_root("ray")


def _state_file(address: str) -> Path:
    return state_dir() / f"{address.replace(':', '_')}.json"


def start(
    workers: int = 0,
    cpus: int | None = None,
    head_cpus: int | None = None,
    resources: dict[str, float] | None = None,
    startup_timeout: float = 600.0,
) -> LocalCluster:
    """Start a local cluster: a head and ``workers`` worker nodes of ``cpus`` CPUs each.

    Without workers the head runs the actors (``head_cpus``, default: this machine's CPUs);
    with workers the head gets ``head_cpus`` (default 0: drivers only). ``resources``: custom
    resources of every node that runs actors (``java``, ``chromium``: see
    :mod:`~agentgym_envs.rollout.ray.placement`). A node that cannot start is one
    :class:`RuntimeError` naming its log; nothing is left running then.
    """
    machine = os.cpu_count() or 1
    cluster = LocalCluster(startup_timeout=startup_timeout)
    try:
        if workers <= 0:
            head = machine if head_cpus is None else head_cpus
            cluster.start_head(num_cpus=head, resources=resources)
        else:
            cluster.start_head(num_cpus=0 if head_cpus is None else head_cpus)
            for _ in range(workers):
                cluster.add_worker(num_cpus=machine if cpus is None else cpus, resources=resources)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def up(**kwargs: Any) -> LocalCluster:
    """:func:`start` a cluster and record it for :func:`down` (``agentgym ray up``)."""
    cluster = start(**kwargs)
    path = _state_file(cluster.address)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cluster.state(), indent=1))
    return cluster


def recorded() -> list[dict[str, Any]]:
    """The clusters :func:`up` recorded and that still run (stale records are removed)."""
    found = []
    for path in sorted(state_dir().glob("*.json")):
        try:
            state = json.loads(path.read_text())
            cluster = LocalCluster.load(state)
        except (OSError, ValueError, KeyError, IndexError):
            path.unlink(missing_ok=True)
            continue
        if any(n.alive for n in cluster.nodes):
            found.append(state)
        else:
            cluster.stop()
            path.unlink(missing_ok=True)
    return found


def down(address: str | None = None) -> list[str]:
    """End the recorded cluster at ``address`` (every recorded one for ``None``); returns the
    addresses ended. An address that was never recorded is a :class:`LookupError`."""
    states = recorded()
    if address is not None:
        states = [s for s in states if s["address"] == address]
        if not states:
            raise LookupError(
                f"no cluster started by `agentgym ray up` runs at {address}: "
                "`agentgym ray status` lists them (a cluster started by `ray start` ends with "
                "`ray stop`)"
            )
    for state in states:
        LocalCluster.load(state).stop()
        _state_file(state["address"]).unlink(missing_ok=True)
    return [s["address"] for s in states]


def for_this_process(**kwargs: Any) -> LocalCluster:
    """:func:`start` a cluster that ends with this process, however it ends: at exit, and by a
    reaper process should this one be killed (SIGKILL runs no exit handler)."""
    import atexit

    cluster = start(**kwargs)
    state = cluster.tmp / "state.json"
    state.write_text(json.dumps(cluster.state()))
    subprocess.Popen(
        [sys.executable, "-m", __name__, "reap", str(os.getpid()), str(state)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )

    def _end() -> None:
        try:
            import ray

            if ray.is_initialized():
                ray.shutdown()
        except Exception:  # the cluster goes anyway
            logger.debug("ray.shutdown failed", exc_info=True)
        cluster.stop()

    atexit.register(_end)
    return cluster


def _reap(driver: int, state: Path) -> None:
    """Wait until process ``driver`` is gone, then end the cluster ``state`` describes."""
    import psutil

    while True:
        try:
            if psutil.Process(driver).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        if not state.exists():  # ended at exit: nothing to do
            return
        time.sleep(1.0)
    try:
        LocalCluster.load(json.loads(state.read_text())).stop()
    except (OSError, ValueError):
        return


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "reap":
        _reap(int(sys.argv[2]), Path(sys.argv[3]))
