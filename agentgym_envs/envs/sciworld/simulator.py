"""ScienceWorld simulators hosted in JVMs we launch ourselves, shared through a pool.

The ``scienceworld`` package starts one JVM per env (about 1.4 s and 200+ MB each, with a
default max heap of a quarter of the RAM) and its ``env.step`` enumerates every valid action
after every step. Here:

* :class:`JVM` launches the package's jar with a capped heap, the simulator's console output
  discarded inside the JVM, and (by default) constant identity hash codes
  (``-XX:hashCode=2``): the simulator keeps objects in identity-hashed sets, so with the
  JVM's default hash codes the order of objects in a room changes from one load to the next
  (and, rarely, the outcome: electrical ticks run in that order); constant hash codes make
  every transcript reproducible (same task, same actions, same text).
* :class:`Simulator` is one ScienceWorld ``PythonInterface`` (universe, agent, score) in a JVM;
  its :meth:`Simulator.step` is the bare simulator step plus score / completion / move count.
* :class:`SimulatorPool` hosts several simulators per JVM (one simplification setting per JVM,
  because the simulator keeps it in a JVM-wide singleton), serializes the calls into each JVM
  and hands simulators back out for reuse when an env closes.
"""

from __future__ import annotations

import atexit
import logging
import os
import subprocess
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

from agentgym_envs.envs.sciworld.java import JavaMissingError, require_java
from agentgym_envs.errors import AgentGymError, require

logger = logging.getLogger(__name__)

#: Simulators per JVM in the default pool.
DEFAULT_PER_JVM = 8
#: JVM options besides the heap cap (and the determinism options below).
BASE_JAVA_OPTS = ("-XX:+UseParallelGC", "-XX:ReservedCodeCacheSize=48m", "-Xss4m")
#: Constant identity hash codes: without them the order of objects differs between loads (see
#: the module docstring). They cost ~30 % per step; ``deterministic=False`` leaves them out.
DETERMINISM_OPTS = ("-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2")
#: Max heap of a JVM that generates gold paths (the simulator's path search is memory hungry).
GOLD_HEAP_MB = 1536
#: Environment variable: extra JVM options, space separated (e.g. ``-Xmx1g``).
JAVA_OPTS_ENV = "AGENTGYM_SCIWORLD_JAVA_OPTS"
#: Seconds one call into the JVM may take before the JVM counts as hung (and is killed).
#: Steps take milliseconds and loads about a second; the margin is for busy machines.
DEFAULT_CALL_TIMEOUT = 120.0
#: Environment variable overriding :data:`DEFAULT_CALL_TIMEOUT`.
CALL_TIMEOUT_ENV = "AGENTGYM_SCIWORLD_CALL_TIMEOUT"
#: Seconds between two looks at the process state of a JVM while a call into it is under way:
#: a JVM that is stopped (SIGSTOP, a debugger) is killed at the next look, not at the deadline.
FREEZE_POLL = 0.25


def _call_timeout(value: float | None) -> float:
    if value is not None:
        return float(value)
    try:
        return float(os.environ.get(CALL_TIMEOUT_ENV, DEFAULT_CALL_TIMEOUT))
    except ValueError:
        return DEFAULT_CALL_TIMEOUT


def _process_state(pid: int) -> str:
    """The kernel's one-letter state of ``pid`` (``T``: stopped), ``""`` when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return ""


class SimulatorError(AgentGymError, RuntimeError):
    """The simulator's JVM failed or went away."""


def heap_mb(per_jvm: int) -> int:
    """Max heap for a JVM hosting ``per_jvm`` simulators.

    A loaded simulator keeps ~20 MB live, but ``load`` builds every task's objects and leaves
    garbage: some headroom makes loads faster; the serial GC gives unused heap back.
    """
    return 256 + 48 * max(1, per_jvm)


def _package_jar() -> tuple[str, str]:
    require("scienceworld", "sciworld")
    from scienceworld.constants import BASEPATH, JAR_PATH

    return JAR_PATH, BASEPATH


class JVM:
    """One Java process running ScienceWorld's jar behind a py4j gateway.

    Every call into it goes through :meth:`lock` (py4j serves each Python thread on its own
    Java thread, and the simulator's global state is not thread-safe).
    """

    def __init__(
        self,
        *,
        heap: int = 256,
        simplifications: str = "",
        java_opts: tuple[str, ...] = (),
        capacity: int = DEFAULT_PER_JVM,
        deterministic: bool = True,
        call_timeout: float | None = None,
    ) -> None:
        py4j = require("py4j.java_gateway", "sciworld")
        self.call_timeout = _call_timeout(call_timeout)
        java = require_java()
        jar, cwd = _package_jar()
        # a roomy young generation: every load allocates a whole house and every task's objects
        opts = [f"-Xmx{heap}m", f"-Xmn{min(heap // 3, 192)}m", *BASE_JAVA_OPTS]
        opts += [*DETERMINISM_OPTS] if deterministic else []
        opts += java_opts
        opts += os.environ.get(JAVA_OPTS_ENV, "").split()
        self.simplifications = simplifications
        self.deterministic = deterministic
        self.requested_deterministic = deterministic
        self.capacity = capacity
        self.java_opts = tuple(opts)
        self._lock = threading.RLock()
        self._owner: Simulator | None = None
        #: Set while a call is under way (the watchdog looks at the process state then).
        self._calling = threading.Event()
        self._frozen = False
        self.simulators: weakref.WeakSet[Simulator] = weakref.WeakSet()
        self.closed = False
        started = time.perf_counter()
        port, proc, opts = self._launch(py4j, java, jar, cwd, opts)
        self.java_opts = tuple(opts)
        self.process = proc
        self.gateway = py4j.JavaGateway(
            gateway_parameters=py4j.GatewayParameters(
                port=port, auto_convert=False, read_timeout=self.call_timeout
            ),
            java_process=proc,
        )
        jvm = self.gateway.jvm
        # The simulator prints every step to stdout; drop it inside the JVM instead of piping it.
        jvm.java.lang.System.setOut(
            jvm.java.io.PrintStream(jvm.java.io.FileOutputStream(os.devnull))
        )
        self._uuid = jvm.util.UniqueIdentifier
        threading.Thread(
            target=_watch_frozen, args=(weakref.ref(self),), name="sciworld-jvm-watch", daemon=True
        ).start()
        logger.info(
            "started ScienceWorld JVM pid %s in %.2fs (%s)",
            proc.pid,
            time.perf_counter() - started,
            " ".join(opts),
        )

    def _launch(
        self, py4j: Any, java: str, jar: str, cwd: str, opts: list[str]
    ) -> tuple[int, Any, list[str]]:
        """Start the gateway JVM: (port, process, the options it runs with).

        When it does not start with the determinism options, retry once without them.
        """

        def launch(javaopts: list[str]) -> tuple[int, Any]:
            return py4j.launch_gateway(
                classpath=jar,
                javaopts=javaopts,
                die_on_exit=True,
                cwd=cwd,
                return_proc=True,
                java_path=java,
            )

        try:
            port, proc = launch(opts)
        except Exception:
            if not self.requested_deterministic:
                raise SimulatorError(f"could not start the ScienceWorld JVM ({java})") from None
            opts = [o for o in opts if o not in DETERMINISM_OPTS]
            self.deterministic = False
            logger.warning(
                "the ScienceWorld JVM did not start with %s; retrying without them (object order, "
                "and so some observations, may then differ between loads of the same task)",
                " ".join(DETERMINISM_OPTS),
            )
            try:
                port, proc = launch(opts)
            except Exception as exc:
                raise SimulatorError(
                    f"could not start the ScienceWorld JVM ({java}): {exc}"
                ) from exc
        return port, proc, opts

    @property
    def pid(self) -> int:
        return self.process.pid

    @contextmanager
    def using(self, sim: Simulator) -> Iterator[Any]:
        """Serialize a call into this JVM on behalf of ``sim``.

        The simulator's object-id counter is JVM-global (``load`` resets it): when another
        simulator used the JVM last, save that one's counter and restore ``sim``'s, so each
        simulator numbers its objects exactly as it would alone in its own JVM.
        """
        if self.closed:
            raise SimulatorError("the ScienceWorld JVM was closed: make a new env")
        with self._lock:
            self._check_alive()
            owner = self._owner
            if owner is not sim:
                if owner is not None:
                    owner._uuid_count = self._uuid.count()
                self._set_count(sim._uuid_count)
                self._owner = sim
            started = time.monotonic()
            self._calling.set()
            try:
                yield sim._j
            except Exception as exc:
                if type(exc).__name__ == "Py4JJavaError" or not type(exc).__module__.startswith(
                    "py4j"
                ):
                    raise  # the simulator's own exception: the JVM is fine
                if self._frozen:  # the watchdog killed it mid-call
                    self._abandon("was stopped (frozen) during a call")
                if time.monotonic() - started >= 0.9 * self.call_timeout:
                    self._abandon(f"did not answer within {self.call_timeout:g} s")
                with suppress(subprocess.TimeoutExpired):  # a killed JVM closes its socket first
                    self.process.wait(timeout=5)
                self._check_alive()
                self._abandon(f"lost its gateway connection ({type(exc).__name__})")
            finally:
                self._calling.clear()

    def _check_alive(self) -> None:
        """Raise :class:`SimulatorError` (and drop the JVM) when it has exited or is stopped."""
        if self.process.poll() is not None:
            self.closed = True
            raise SimulatorError(
                f"the ScienceWorld JVM (pid {self.pid}) exited with code {self.process.returncode}"
            )
        if _process_state(self.pid) in ("T", "t"):
            self._abandon("is stopped (frozen)")

    def kill_if_frozen(self) -> bool:
        """Kill the Java process when it is stopped (frozen); ``True`` if it was. The call
        under way then fails at once and :meth:`using` reports it."""
        if self.closed or _process_state(self.pid) not in ("T", "t"):
            return False
        self._frozen = True
        logger.warning("the ScienceWorld JVM (pid %s) is stopped mid-call: killing it", self.pid)
        with suppress(OSError):
            self.process.kill()
        return True

    def _abandon(self, why: str) -> None:
        """Kill a JVM that no longer answers and raise the one-line error saying why."""
        self.closed = True
        try:
            self.process.kill()
            self.process.wait(timeout=30)
        except Exception as exc:
            logger.debug("killing the JVM: %s", exc)
        try:
            self.gateway.close()  # our sockets only: nothing is left to talk to
        except Exception as exc:
            logger.debug("gateway close: %s", exc)
        raise SimulatorError(f"the ScienceWorld JVM (pid {self.pid}) {why}; it was killed")

    def _set_count(self, value: int) -> None:
        getattr(self._uuid, "count_$eq")(value)

    def new_interface(self) -> Any:
        with self._lock:
            return self.gateway.jvm.scienceworld.runtime.pythonapi.PythonInterface()

    def rss_mb(self) -> float:
        """Resident memory of the Java process in MB (Linux), 0 when unknown."""
        try:
            with open(f"/proc/{self.pid}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return 0.0

    def close(self) -> None:
        """Shut the gateway and the Java process down (idempotent)."""
        if self.closed and self.process.poll() is not None:
            return
        self.closed = True
        try:
            self.gateway.shutdown()
        except Exception as exc:
            logger.debug("gateway shutdown: %s", exc)
        proc = self.process
        if proc.poll() is None:
            try:  # py4j's GatewayServer exits when its stdin closes
                proc.stdin.write(b"\n")
                proc.stdin.flush()
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=5)
            except Exception:
                proc.kill()
                proc.wait(timeout=5)


def _watch_frozen(ref: weakref.ref[JVM]) -> None:
    """A JVM's watchdog: while a call into it is under way, look at its process state every
    :data:`FREEZE_POLL` seconds and kill it once it is stopped (see :meth:`JVM.kill_if_frozen`).
    Ends with the JVM (closed or garbage)."""
    while True:
        jvm = ref()
        if jvm is None or jvm.closed:
            return
        calling = jvm._calling
        del jvm  # hold no reference while waiting
        if not calling.wait(1.0):
            continue
        time.sleep(FREEZE_POLL)
        jvm = ref()
        if jvm is None:
            return
        if jvm._calling.is_set():
            jvm.kill_if_frozen()
        del jvm


@dataclass
class StepOutcome:
    """What one bare simulator step returns."""

    observation: str
    score: int
    completed: bool
    moves: int


class Simulator:
    """One ScienceWorld simulator (the package's ``PythonInterface``) inside a :class:`JVM`."""

    def __init__(self, jvm: JVM) -> None:
        self.jvm = jvm
        self._j = jvm.new_interface()
        self._uuid_count = 0
        self.pool: SimulatorPool | None = None
        jvm.simulators.add(self)

    @property
    def simplifications(self) -> str:
        return self.jvm.simplifications

    def load(self, task_name: str, variation: int, gold_path: bool = False) -> None:
        """Load a task variation (the package's ``load``; no name inference, no extra calls)."""
        with self.jvm.using(self) as j:
            error = j.load(task_name, int(variation), self.jvm.simplifications, bool(gold_path))
        if error:
            raise SimulatorError(
                f"ScienceWorld could not load {task_name} variation {variation}: {error}"
            )

    def task_description(self) -> str:
        with self.jvm.using(self) as j:
            return j.getTaskDescription()

    def step(self, action: str) -> StepOutcome:
        """The bare step: the action, then score (0-100, rounded), completion and move count."""
        with self.jvm.using(self) as j:
            observation = j.step(action)
            score = round(100 * j.getScore())
            completed = bool(j.getCompleted())
            moves = int(j.getNumMoves())
        return StepOutcome(observation, score, completed, moves)

    def step_text(self, action: str) -> str:
        """Only the simulator's answer (one round trip; for actions that take no time)."""
        with self.jvm.using(self) as j:
            return j.step(action)

    def call(self, method: str, *args: Any) -> Any:
        """Any other ``PythonInterface`` method, serialized like the rest."""
        with self.jvm.using(self) as j:
            return getattr(j, method)(*args)

    def valid_actions(self) -> list[str]:
        """Every valid action-object combination now (one JSON string over the socket)."""
        import json

        data = json.loads(self.call("getValidActionObjectCombinationsJSON"))
        return sorted({entry["action"] for entry in data["validActions"]})

    def look(self) -> str:
        return self.call("freeActionLook")

    def inventory(self) -> str:
        return self.call("freeActionInventory")

    def goal_progress(self) -> str:
        return self.call("getGoalProgressStr")

    def gold_actions(self) -> list[str]:
        """The gold action sequence of the loaded task (``load(..., gold_path=True)`` first)."""
        with self.jvm.using(self) as j:
            return [str(a) for a in j.getGoldActionSequence()]

    def possible_objects(self) -> list[str]:
        """Names of the objects the agent can refer to now."""
        import json

        lut = json.loads(self.call("getPossibleObjectReferentLUTJSON"))
        return sorted(set(lut.values()))

    def release(self) -> None:
        """Hand the simulator back to its pool (or nothing when it has none)."""
        if self.pool is not None:
            self.pool.release(self)


class SimulatorPool:
    """Simulators hosted ``per_jvm`` to a JVM, one simplification setting per JVM.

    :meth:`acquire` gives a free simulator (a released one first, then a new one in a JVM with
    room, then a new JVM); :meth:`release` takes it back for the next env. JVMs live until
    :meth:`close` (called at interpreter exit for every pool). ``deterministic=False`` simulators
    (default hash codes: ~30 % faster steps, object order varies between loads) get JVMs of their
    own.
    """

    def __init__(
        self,
        per_jvm: int = DEFAULT_PER_JVM,
        heap: int | None = None,
        java_opts: tuple[str, ...] = (),
        call_timeout: float | None = None,
    ) -> None:
        if per_jvm < 1:
            raise ValueError("per_jvm must be at least 1")
        self.call_timeout = call_timeout
        self.per_jvm = per_jvm
        self.heap = heap or heap_mb(per_jvm)
        self.java_opts = tuple(java_opts)
        self.jvms: list[JVM] = []
        self._free: dict[tuple[str, bool], list[Simulator]] = {}
        self._live: dict[int, int] = {}  # id(jvm) -> simulators handed out
        self._lock = threading.Lock()
        self.pid = os.getpid()
        _POOLS.add(self)

    def acquire(self, simplifications: str = "", deterministic: bool = True) -> Simulator:
        with self._lock:
            free = self._free.setdefault((simplifications, deterministic), [])
            while free:
                sim = free.pop()
                if not sim.jvm.closed:
                    self._live[id(sim.jvm)] += 1
                    return sim
            for jvm in self.jvms:
                if (
                    jvm.simplifications == simplifications
                    and jvm.requested_deterministic == deterministic
                    and not jvm.closed
                    and self._live[id(jvm)] < self.per_jvm
                ):
                    break
            else:
                jvm = JVM(
                    heap=self.heap,
                    simplifications=simplifications,
                    java_opts=self.java_opts,
                    capacity=self.per_jvm,
                    deterministic=deterministic,
                    call_timeout=self.call_timeout,
                )
                self.jvms.append(jvm)
                self._live[id(jvm)] = 0
            sim = Simulator(jvm)
            sim.pool = self
            self._live[id(jvm)] += 1
            return sim

    def release(self, sim: Simulator) -> None:
        with self._lock:
            if sim.jvm.closed or id(sim.jvm) not in self._live:
                return
            self._live[id(sim.jvm)] -= 1
            key = (sim.simplifications, sim.jvm.requested_deterministic)
            self._free.setdefault(key, []).append(sim)

    def live(self) -> int:
        """Simulators handed out and not yet released."""
        return sum(self._live.values())

    def rss_mb(self) -> float:
        """Resident memory of all this pool's JVMs, in MB."""
        return sum(j.rss_mb() for j in self.jvms if not j.closed)

    def close(self) -> None:
        with self._lock:
            for jvm in self.jvms:
                jvm.close()
            self.jvms.clear()
            self._free.clear()
            self._live.clear()


_POOLS: weakref.WeakSet[SimulatorPool] = weakref.WeakSet()
_DEFAULT: SimulatorPool | None = None
_DEFAULT_LOCK = threading.Lock()


#: Environment variable: simulators per JVM in the default pool (1: every env on its own JVM).
PER_JVM_ENV = "AGENTGYM_SCIWORLD_PER_JVM"


def _per_jvm() -> int:
    text = os.environ.get(PER_JVM_ENV, "").strip()
    if not text:
        return DEFAULT_PER_JVM
    if not text.isdigit() or int(text) < 1:
        raise SimulatorError(f"{PER_JVM_ENV}={text!r}: give a whole number of at least 1")
    return int(text)


def default_pool() -> SimulatorPool:
    """The process-wide pool every env uses unless given its own (a fresh one after a fork)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None or _DEFAULT.pid != os.getpid():
            _DEFAULT = SimulatorPool(per_jvm=_per_jvm())
        return _DEFAULT


@atexit.register
def _close_pools() -> None:
    for pool in list(_POOLS):
        if pool.pid == os.getpid():
            pool.close()


__all__ = [
    "DEFAULT_PER_JVM",
    "JVM",
    "JavaMissingError",
    "Simulator",
    "SimulatorError",
    "SimulatorPool",
    "StepOutcome",
    "default_pool",
    "heap_mb",
]
