"""``--cluster ADDRESS``: datagen chunks and match game pairs on a Dask cluster (docs/cluster.md).

``ADDRESS`` is a running scheduler (``tcp://host:8786``), or ``local:N`` for a ``LocalCluster`` of ``N``
worker processes on 127.0.0.1 (one thread each) started here and stopped at the end.
:class:`ClusterExecutor` is a ``concurrent.futures.Executor`` over it, so a run hands out the same work
it hands a process pool.  A task is a plain function and its arguments, pickled to whichever worker
process the scheduler picks; a pool's per-process ``initializer`` becomes a call each task makes first,
once per worker process and arguments (a worker that joins, or replaces a dead one, initialises itself).
Each task runs under a lock, so a worker started with several threads still plays one task at a time.

When a worker dies in the middle of a task, the scheduler gives the task to another worker: datagen's
chunk is played again (it writes its file under a temporary name, renamed when complete, so the half
written one is never seen), and a match's game pair is played again from its first move.

Dask (``dask[distributed]``) is the optional ``cluster`` extra: ``pip install 'jitfish[cluster]'``.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable
from typing import Any

from jitfish.runtime.extras import require

LOCAL = "local:"
_task_lock = threading.Lock()
_initialized: list = []  # this worker process's initializer call, once made: [(initializer, initargs)]


def _initialized_call(initializer: Callable[..., None] | None, initargs: tuple, function: Callable, *args) -> Any:
    """Run on a worker: the initializer first if this process has not run it with these arguments, then
    ``function(*args)``."""
    with _task_lock:
        if initializer is not None and _initialized != [(initializer, initargs)]:
            initializer(*initargs)
            _initialized[:] = [(initializer, initargs)]
        return function(*args)


def local_workers(address: str) -> int | None:
    """N of ``local:N``; None for a scheduler address; ``ValueError`` for ``local:`` without a positive N."""
    if not address.startswith(LOCAL):
        return None
    count = address[len(LOCAL) :]
    if not count.isdigit() or int(count) < 1:
        raise ValueError(f"--cluster {address}: say how many local workers, as local:2")
    return int(count)


class ClusterExecutor(concurrent.futures.Executor):
    """A ``concurrent.futures`` executor whose tasks run on the Dask cluster at ``address``.

    ``slots``: the worker threads the cluster had when connected (a run keeps that many tasks in flight).
    ``initializer(*initargs)`` runs in each worker process before its first task, as a pool's does.
    """

    def __init__(self, address: str, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> None:
        distributed = require("distributed", "--cluster")
        workers = local_workers(address)
        self._cluster = None
        if workers is not None:
            self._cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
            )
            address = self._cluster.scheduler_address
        self.client = distributed.Client(address)
        self.client.wait_for_workers(1)
        self.slots = sum(self.client.nthreads().values())
        self._executor = self.client.get_executor(pure=False)  # the same chunk twice is two tasks
        self._initializer, self._initargs = initializer, initargs

    def submit(self, function: Callable, /, *args) -> concurrent.futures.Future:
        return self._executor.submit(_initialized_call, self._initializer, self._initargs, function, *args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait and not cancel_futures)
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()
