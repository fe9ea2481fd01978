"""A background worker that runs only the latest submitted job and cancels superseded ones."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Job:
    """One unit of work: `run(cancel)` computes, `deliver(result)` publishes it if still current."""

    run: Callable[[threading.Event], object]
    deliver: Callable[[object], None]
    cancel: threading.Event = field(default_factory=threading.Event)


class LatestJobWorker:
    """Runs submitted jobs one at a time on its own thread; a new job supersedes the old one.

    Submitting sets the running job's cancel flag (the search polls it and stops early) and
    replaces any job still waiting. A job's result is delivered only if no newer job was
    submitted while it ran, so a stale plan is never published.
    """

    def __init__(self, name: str) -> None:
        self._condition = threading.Condition()
        self._pending: Job | None = None
        self._running: Job | None = None
        self._generation = 0
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Job) -> None:
        """Queue `job` in place of any waiting one, cancel the running one; no-op once stopped."""
        with self._condition:
            if self._stopped:
                return
            self._generation += 1
            if self._running is not None:
                self._running.cancel.set()
            self._pending = job
            self._condition.notify()

    def cancel_all(self) -> None:
        """Drop the waiting job and cancel the running one (nothing more will be delivered)."""
        with self._condition:
            self._generation += 1
            self._pending = None
            if self._running is not None:
                self._running.cancel.set()

    def stop(self) -> None:
        """Cancel everything and let the worker thread end; returns at once."""
        with self._condition:
            self._stopped = True
            self._condition.notify()
        self.cancel_all()

    def join(self, timeout: float = 5.0) -> None:
        """Stop, then wait (at most `timeout`) for the worker thread to end."""
        self.stop()
        self._thread.join(timeout)

    def _loop(self) -> None:
        while True:
            with self._condition:
                while self._pending is None and not self._stopped:
                    self._condition.wait()
                if self._stopped:
                    return
                job, self._pending = self._pending, None
                self._running = job
                generation = self._generation
            try:
                result = job.run(job.cancel)
                failed = False
            except Exception:  # the worker must outlive a faulty job
                logging.getLogger(__name__).exception("background job failed")
                failed = True
            with self._condition:
                self._running = None
                current = generation == self._generation and not self._stopped
            if current and not failed:
                try:
                    job.deliver(result)
                except Exception:  # e.g. publishing on a context shut down by a signal
                    logging.getLogger(__name__).exception("delivering a background job failed")
