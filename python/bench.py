"""Per-call cost of the Python package, and the same positions through BitBully if installed.

    python python/bench.py [--set Test_L3_R1] [--limit N] [--rounds R] [--threads T]

For each round: solves every position of the set one call at a time (`Solver.solve` in a
Python loop) and as one `solve_many` batch, and reports per position the wall time of the
loop, the solver's own time (`Solution.micros`, measured inside the library) and their
difference, which is the cost of the binding (argument conversion, releasing the GIL, the
Ctrl-C guard, building the result). The best round is kept. Scores are checked against the
set. Not a test: a measurement (BENCHMARKS.md).
"""

import argparse
import pathlib
import time

import fourfold

DATA = pathlib.Path(__file__).resolve().parents[1] / "tests" / "data"


def load(name, limit):
    cases = []
    for line in open(DATA / name):
        f = line.split()
        if len(f) == 2:
            cases.append((f[0], int(f[1])))
    return cases[:limit] if limit else cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", default="Test_L3_R1")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--table-mib", type=int, default=256)
    a = ap.parse_args()
    cases = load(a.set, a.limit)
    moves = [m for m, _ in cases]
    want = [s for _, s in cases]
    n = len(cases)
    print(f"{a.set}: {n} positions, {a.rounds} rounds, best kept; threads {a.threads}")

    s = fourfold.Solver(table_mib=a.table_mib, threads=a.threads)
    best = None
    for _ in range(a.rounds):
        t = time.perf_counter()
        res = [s.solve(m) for m in moves]
        wall = time.perf_counter() - t
        assert [r.score for r in res] == want
        inside = sum(r.micros for r in res) / 1e6
        if best is None or wall < best[0]:
            best = (wall, inside)
    wall, inside = best
    print(
        f"fourfold Solver.solve loop: {wall / n * 1e6:8.2f} us/position wall, "
        f"{inside / n * 1e6:8.2f} us in the solver, "
        f"{(wall - inside) / n * 1e6:6.2f} us binding overhead"
    )

    bbest = None
    for _ in range(a.rounds):
        t = time.perf_counter()
        res = s.solve_many(moves)
        wall = time.perf_counter() - t
        assert [r.score for r in res] == want
        bbest = wall if bbest is None else min(bbest, wall)
    print(f"fourfold Solver.solve_many:  {bbest / n * 1e6:8.2f} us/position wall")

    try:
        import bitbully
    except ImportError:
        print("bitbully: not installed")
        return
    agent = bitbully.BitBully(opening_book=None)
    zero_based = str.maketrans("1234567", "0123456")
    bmoves = [m.translate(zero_based) for m in moves]
    best_bb = None
    for _ in range(a.rounds):
        t = time.perf_counter()
        got = [agent.mtdf(bitbully.Board(m)) for m in bmoves]
        wall = time.perf_counter() - t
        assert got == want, "bitbully disagrees with the set"
        best_bb = wall if best_bb is None else min(best_bb, wall)
    print(
        f"bitbully BitBully.mtdf(Board(moves)) loop: {best_bb / n * 1e6:8.2f} us/position wall "
        f"(no opening book); fourfold solve loop is {best_bb / best[0]:.2f}x as fast"
    )


if __name__ == "__main__":
    main()
