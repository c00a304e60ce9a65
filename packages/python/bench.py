"""Throughput of the Python package against the native `toolnorm normalize` on the same streams,
measured in the same run, and the latency of one `push_line`.

    python packages/python/bench.py [--toolnorm PATH] [--rounds N] [--mib M]

Run it with the virtualenv scripts/python-test.sh leaves (target/python/test-venv/bin/python), which
has the wheel and `zstandard`. The streams are the samples of benches/normalize.rs (the largest real
ones of the corpus), each repeated until it holds M MiB (default 4), so that a run of the command
line is not its start: the same session over and over, the same work per line. For each: the native
command line on the stream as a file (`toolnorm normalize --compact FILE`, its output thrown away;
the time of a run less the time of a run on a one-line stream, the process's start),
`toolnorm.normalize(text)` (the document as Python objects), and a `Normalizer` fed the lines one
`push_line` at a time, then `finish()`. Each figure is the best of N rounds (default 5).
Throughput is the stream's bytes over that time; the latency of `push_line` is taken over one pass
of the sample itself.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import toolnorm

sys.path.insert(0, str(Path(__file__).parent / "tests"))
from conftest import ROOT, fixture  # noqa: E402

SAMPLES = [
    "claude/spotter_subagent",
    "claude/spotter_tool_heavy",
    "claude/ccagent_claude-session-with-image",
    "claude/live-claude-2.1.197-coding-partial",
    "codex/live-codex-0.171.0-appserver-tools",
    "opencode/live-opencode-1.18.33-serve-tools",
]


def best(rounds: int, fn) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def native(binary: str, path: Path) -> None:
    subprocess.run([binary, "normalize", "--compact", str(path)], stdout=subprocess.DEVNULL, check=True)


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--toolnorm", default=str(ROOT / "target/release/toolnorm"))
    args.add_argument("--rounds", type=int, default=5)
    args.add_argument("--mib", type=float, default=4.0)
    a = args.parse_args()
    if not Path(a.toolnorm).is_file():
        sys.exit(f"bench: no toolnorm binary at {a.toolnorm} (cargo build --release, or --toolnorm PATH)")

    mib = 1024 * 1024
    print(f"toolnorm {toolnorm.__version__}, Python {sys.version.split()[0]}, best of {a.rounds} rounds")
    print(f"{'stream (repeated)':44} {'MiB':>6} {'native':>9} {'normalize':>10} {'ratio':>6} {'lines':>9} {'ratio':>6} {'p50 µs':>7} {'p99 µs':>7}")
    totals = {"bytes": 0, "native": 0.0, "one": 0.0, "lines": 0.0}
    latencies_all = []
    with tempfile.TemporaryDirectory() as tmp:
        start_file = Path(tmp) / "start.jsonl"
        start_file.write_bytes(fixture("codex/live-codex-exec-shell").lines[0].data + b"\n")
        startup = best(a.rounds, lambda: native(a.toolnorm, start_file))
        for name in SAMPLES:
            fx = fixture(name)
            repeat = max(1, round(a.mib * mib / len(fx.text)))
            text = fx.text * repeat
            path = Path(tmp) / "stream.jsonl"
            path.write_bytes(text)
            lines = [l.data for l in fx.lines] * repeat

            t_native = max(best(a.rounds, lambda: native(a.toolnorm, path)) - startup, 1e-9)
            t_one = best(a.rounds, lambda: toolnorm.normalize(text))

            def stream() -> None:
                n = toolnorm.Normalizer()
                for line in lines:
                    n.push_line(line)
                n.finish()

            t_lines = best(a.rounds, stream)
            latencies = []
            n = toolnorm.Normalizer()
            for line in lines[: len(fx.lines)]:
                start = time.perf_counter_ns()
                n.push_line(line)
                latencies.append((time.perf_counter_ns() - start) / 1000)
            n.finish()
            latencies_all += latencies
            q = statistics.quantiles(latencies, n=100)
            size = len(text)
            totals["bytes"] += size
            totals["native"] += t_native
            totals["one"] += t_one
            totals["lines"] += t_lines
            print(
                f"{name:44} {size / mib:6.2f} {size / mib / t_native:6.1f}/s {size / mib / t_one:7.1f}/s "
                f"{t_native / t_one:6.2f} {size / mib / t_lines:6.1f}/s {t_native / t_lines:6.2f} {q[49]:7.1f} {q[98]:7.1f}"
            )
    q = statistics.quantiles(latencies_all, n=100)
    b = totals["bytes"]
    print(
        f"{'all':44} {b / mib:6.2f} {b / mib / totals['native']:6.1f}/s {b / mib / totals['one']:7.1f}/s "
        f"{totals['native'] / totals['one']:6.2f} {b / mib / totals['lines']:6.1f}/s "
        f"{totals['native'] / totals['lines']:6.2f} {q[49]:7.1f} {q[98]:7.1f}"
    )
    print(f"(native: MiB/s of `toolnorm normalize --compact FILE` less its {startup * 1000:.1f} ms start; "
          "ratio: the package's throughput over the native one)")


if __name__ == "__main__":
    main()
