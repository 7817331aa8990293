"""``make bench``: every benchmark, each in a fresh process, printed as one report.

Figures are measured side by side in the same run (ratios to LangGraph / LangChain when the
``bench`` extra is installed) and as absolute numbers for this machine.  Each line shows its
target; the summary says how many targets were met.

    python -m tests.bench            # everything
    python -m tests.bench graph turns  # only some sections (make bench SECTIONS="graph turns")
    python -m tests.bench --list       # the sections

Issue 26's table (what debugging costs) is in the sections ``events`` (debugger, recorder),
``turns`` (growth to turn 2,000), ``tokens``, ``coldread``, ``attach``, ``attachmem``,
``studioturn`` and ``studiogrowth``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict

from tests.bench.report import Figure, machine

SECTIONS: list[tuple[str, str, str]] = [
    ("graph", "bench_graph", "Graph runtime and checkpoint storage (issue 2; issue 11 target 3)"),
    (
        "turns",
        "bench_turns",
        "Agent turns vs LangChain, growth over 2,000 turns (issue 11 targets 1, 2; issue 26)",
    ),
    ("agent", "bench_agent_loop", "create_agent loop per model turn (issue 3)"),
    (
        "events",
        "bench_events",
        "Cost of events: subscriber, astream_events, debugger, recorder (issues 6, 26)",
    ),
    ("tokens", "bench_tokens", "100,000 streamed tokens, recorded vs not listened to (issue 26)"),
    ("coldread", "bench_cold_read", "Cold read of a 10,000-message thread's tip (issue 26)"),
    ("plan", "bench_plan", "Plan-and-execute on a 10,000-step DAG (issue 7)"),
    ("ingest", "bench_studio_ingest", "Studio ingest of 100,000 events (issue 11 target 4)"),
    (
        "timeline",
        "bench_timeline",
        "1,000,000-event session, 10,000 checkpoints (issue 11 targets 5, 6; issue 9)",
    ),
    ("start", "bench_studio_start", "Studio cold start (issue 11 target 7)"),
    (
        "attach",
        "bench_attach",
        "Attach mode: a real create_agent, attached vs run directly (issue 26)",
    ),
    ("attachmem", "bench_attach_memory", "Attach mode: peak memory of 2,000 turns (issue 26)"),
    (
        "studioturn",
        "bench_studio_turn",
        "Studio full stack per agent turn, events on screen (issue 26)",
    ),
    (
        "studiogrowth",
        "bench_studio_growth",
        "Studio turn over a long session: turn 600 vs turn 20 (issue 26)",
    ),
    (
        "remote",
        "bench_remote",
        "Remote mode on langgraph dev: 5,000-checkpoint Timeline, event latency",
    ),
]

_CHILD = (
    "import json, sys\n"
    "from dataclasses import asdict\n"
    "from tests.bench.{module} import run\n"
    "figs = run()\n"
    "sys.stdout.write('\\n@@FIGURES@@' + json.dumps([asdict(f) for f in figs]))\n"
)


def _run_section(module: str) -> tuple[list[Figure], str | None]:
    env = {**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")}
    try:
        p = subprocess.run(
            [sys.executable, "-c", _CHILD.format(module=module)],
            capture_output=True,
            text=True,
            timeout=1800,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return [], "timed out after 30 minutes"
    if "@@FIGURES@@" not in p.stdout:
        tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
        return [], f"failed (exit {p.returncode}): " + " | ".join(tail)
    data = json.loads(p.stdout.rsplit("@@FIGURES@@", 1)[1])
    return [Figure(**d) for d in data], None


def main(argv: list[str]) -> int:
    if "--list" in argv:
        for key, _module, title in SECTIONS:
            print(f"{key:12} {title}")
        return 0
    wanted = set(argv)
    unknown = wanted - {key for key, _, _ in SECTIONS}
    if unknown:
        print(
            f"unknown section(s): {', '.join(sorted(unknown))}; "
            f"known: {', '.join(key for key, _, _ in SECTIONS)}",
            file=sys.stderr,
        )
        return 2
    print("Stepwise benchmarks")
    print(f"Machine: {machine()}")
    print(f"Load average at start: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print()
    met = missed = failed = 0
    all_figs: list[dict[str, object]] = []
    for key, module, title in SECTIONS:
        if wanted and key not in wanted:
            continue
        t0 = time.perf_counter()
        figs, error = _run_section(module)
        print(f"{title}  [{time.perf_counter() - t0:.0f} s]")
        if error:
            print(f"  [FAIL] {error}")
            failed += 1
        for f in figs:
            print(f.line())
            all_figs.append({"section": key, **asdict(f)})
            if f.ok is True:
                met += 1
            elif f.ok is False:
                missed += 1
        print()
    print(f"Targets met: {met}; missed: {missed}; sections that failed to run: {failed}")
    out = os.environ.get("STEPWISE_BENCH_JSON")
    if out:
        with open(out, "w") as fh:
            json.dump({"machine": machine(), "figures": all_figs}, fh, indent=2)
    return 0 if missed == 0 and failed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
