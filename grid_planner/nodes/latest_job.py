"""A background worker that runs one job at a time: the latest submitted, after the running
one, which a superseding job cancels."""

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
    """Runs submitted jobs one at a time on its own thread; at most one waits.

    A submitted job replaces any job still waiting. A superseding one also sets the running
    job's cancel flag (the search polls it and stops early); one that does not lets the running
    job finish and be delivered, then runs. A job is delivered only if it was not cancelled, so
    a superseded result is never published, and jobs that do not supersede cannot starve each
    other: each waits for at most one running job.
    """

    def __init__(self, name: str) -> None:
        self._condition = threading.Condition()
        self._pending: Job | None = None
        self._running: Job | None = None
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, job: Job, supersede: bool = True) -> None:
        """Queue `job` in place of any waiting one and, when it `supersede`s, cancel the running
        one; no-op once stopped."""
        with self._condition:
            if self._stopped:
                return
            if self._pending is not None:
                self._pending.cancel.set()
            if supersede and self._running is not None:
                self._running.cancel.set()
            self._pending = job
            self._condition.notify()

    def cancel_all(self) -> None:
        """Drop the waiting job and cancel the running one (nothing more will be delivered)."""
        with self._condition:
            if self._pending is not None:
                self._pending.cancel.set()
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
            try:
                result = job.run(job.cancel)
                failed = False
            except Exception:  # the worker must outlive a faulty job
                logging.getLogger(__name__).exception("background job failed")
                failed = True
            with self._condition:
                self._running = None
                current = not job.cancel.is_set() and not self._stopped
            if current and not failed:
                try:
                    job.deliver(result)
                except Exception:  # e.g. publishing on a context shut down by a signal
                    logging.getLogger(__name__).exception("delivering a background job failed")
