"""Cold start: from launching ``stepwise demo`` to a painted main window (issue 11, target 7).

Each sample is a fresh process (``python -c "from studio.app.entry import main; main(['demo'])"``,
Qt offscreen, throw-away session and settings folders) with ``STEPWISE_EXIT_AFTER_PAINT=ready``:
the app prints the wall time of its first paint, then loads the default scenario (seed 000) and
prints when it is ready to run, then quits.  Measured from just before the process is spawned
(interpreter start and every import included).  Target: painted in <= 2 s (median of the runs).

Run: ``.venv/bin/python -m tests.bench.bench_studio_start [RUNS]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

from tests.bench.report import Figure

RUNS = 5
TARGET_S = 2.0


def sample() -> tuple[float, float]:
    """(seconds to first paint, seconds to loaded and ready) of one cold start."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "QT_QPA_PLATFORM": os.environ.get("STEPWISE_BENCH_QPA", "offscreen"),
            "STEPWISE_EXIT_AFTER_PAINT": "ready",
            "STEPWISE_SESSION_DIR": os.path.join(tmp, "sessions"),
            "STEPWISE_CONFIG_DIR": os.path.join(tmp, "config"),
        }
        code = "import sys; from studio.app.entry import main; sys.exit(main(['demo']))"
        t0 = time.time()
        out = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    stamps = dict(
        line.split() for line in out.stdout.splitlines() if line.startswith(("painted ", "ready "))
    )
    if "painted" not in stamps or "ready" not in stamps:
        raise RuntimeError(f"the studio did not start: {out.stderr.strip()[-400:]}")
    return float(stamps["painted"]) - t0, float(stamps["ready"]) - t0


def run(runs: int = RUNS) -> list[Figure]:
    sample()  # warm the OS file cache: "cold" means a new process, not a cold disk
    samples = [sample() for _ in range(runs)]
    painted = statistics.median(s[0] for s in samples)
    ready = statistics.median(s[1] for s in samples)
    return [
        Figure(
            "studio cold start to a painted window",
            painted,
            "s",
            f"<= {TARGET_S:g} s",
            painted <= TARGET_S,
            f"median of {runs}, best {min(s[0] for s in samples):.2f} s",
        ),
        Figure(
            "studio cold start to seed 000 loaded and ready",
            ready,
            "s",
            note=f"median of {runs}",
        ),
    ]


if __name__ == "__main__":
    for fig in run(int(sys.argv[1]) if len(sys.argv) > 1 else RUNS):
        print(fig.line())
