"""A sandbox for processes that run what a model chooses (harnesses and their tools).

A model under training is untrusted: a harness run with auto-approve executes whatever shell
command, file edit or read the model asks for. :class:`Sandbox` runs such a process tree with
bubblewrap as an unprivileged user of its own user namespace, seeing only the system's programs
(read-only), the folders it is given (its episode's home and workspace writable, an install
prefix readable) and a minimal ``/etc``; reaching only the host's loopback ports it is given;
under per-process and per-tree limits; killed whole when its parent stops it. After the run,
:meth:`Sandbox.violations` says what it tried and was refused (writes outside, decoy secrets
read, connections elsewhere), so an episode that tried is never scored as valid.

Modules: :mod:`.box` (the sandbox), :mod:`.view` (its filesystem), :mod:`.forward` and
:mod:`.supervisor` (its network), :mod:`.limits`, :mod:`.audit` (refusals in tool results).
"""

from agentgym_envs.integrations.sandbox.box import (
    MEND,
    Sandbox,
    SandboxUnavailableError,
    bwrap,
)
from agentgym_envs.integrations.sandbox.limits import Limits

__all__ = ["MEND", "Limits", "Sandbox", "SandboxUnavailableError", "bwrap"]
