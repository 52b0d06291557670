"""The figures of BENCHMARKS.md, "Distributed solve on Dask (issue 17)": a LocalCluster of
2 single-thread worker processes running fourfold.distributed.solve_distributed against one
2-thread direct solve (fourfold.Solver(threads=2).solve), without a book, on the same table
size per solver. Prints, per case, both answers (and the file's score where there is one),
nodes and wall time, and their ratios.

    python python/bench_distributed.py empty 7x6
    python python/bench_distributed.py empty 6x7
    python python/bench_distributed.py set tests/data/Test_L1_R3 100
    python python/bench_distributed.py splits 6x6 --table-mib 64

`splits` compares split depths 1-3, 1 and 2 workers, affinity on and off, by nodes against
a 1-thread direct solve of the empty board (a fresh LocalCluster per line).

Options: --table-mib N (each solver's table, default 256), --split N (split_plies, default
the library's choice), --no-affinity, --no-speculate (siblings always wait for the eldest).
"""

import argparse
import time

import fourfold
from dask.distributed import Client, LocalCluster
from fourfold.distributed import solve_distributed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["empty", "set", "splits"])
    ap.add_argument("arg")
    ap.add_argument("count", nargs="?", type=int, default=100)
    ap.add_argument("--table-mib", type=int, default=256)
    ap.add_argument("--split", type=int, default=None)
    ap.add_argument("--no-affinity", action="store_true")
    ap.add_argument("--no-speculate", action="store_true")
    a = ap.parse_args()
    if a.what == "splits":
        return splits(a.arg, a.table_mib)
    if a.what == "empty":
        board, cases = a.arg, [("", None)]
    else:
        board, cases = "7x6", []
        with open(a.arg) as f:
            for line in f:
                m, s = line.split()
                cases.append((m, int(s)))
                if len(cases) == a.count:
                    break

    # Direct: one solver, 2 threads, the same table reused across the set (as the CLI does).
    direct = fourfold.Solver(table_mib=a.table_mib, threads=2, board=board, book=None)
    d_nodes, t0 = 0, time.monotonic()
    want = []
    for m, _ in cases:
        s = direct.solve(m)
        want.append((s.score, s.best_move))
        d_nodes += s.nodes
    d_wall = time.monotonic() - t0
    del direct

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, Client(cluster) as client:
        x_nodes, x_tasks, x_dropped, t0 = 0, 0, 0, time.monotonic()
        got = []
        for m, _ in cases:
            r = solve_distributed(
                client,
                m,
                board,
                split_plies=a.split,
                table_mib=a.table_mib,
                affinity=not a.no_affinity,
                speculate=not a.no_speculate,
            )
            got.append((r.score, r.best_move))
            x_nodes += r.nodes
            x_tasks += r.tasks
            x_dropped += r.dropped
        x_wall = time.monotonic() - t0

    exact = all(g == w for g, w in zip(got, want)) and all(
        s is None or g[0] == s for g, (_, s) in zip(got, cases)
    )
    print(
        f"{a.what} {a.arg} ({len(cases)} positions, board {board}, table {a.table_mib} MiB):"
        f" exact on all: {exact}"
    )
    print(f"  direct 2 threads : {d_nodes:>14,} nodes  {d_wall:8.2f} s")
    print(
        f"  dask 2 x 1 thread: {x_nodes:>14,} nodes  {x_wall:8.2f} s"
        f"  ({x_tasks} tasks, {x_dropped} dropped and stopped)"
    )
    print(f"  ratios           : {x_nodes / d_nodes:.2f}x nodes  {x_wall / d_wall:.2f}x wall")
    if len(cases) == 1:
        print(f"  answer: score {got[0][0]}, best move {got[0][1]} (direct {want[0]})")


def splits(board, table_mib):
    d = fourfold.Solver(table_mib=table_mib, threads=1, board=board, book=None).solve("")
    print(f"direct 1 thread: score {d.score}, move {d.best_move}, {d.nodes:,} nodes")
    for workers in (1, 2):
        for affinity in (True, False):
            for split in (1, 2, 3):
                with LocalCluster(
                    n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
                ) as cluster, Client(cluster) as client:
                    r = solve_distributed(
                        client, "", board, split_plies=split, table_mib=table_mib, affinity=affinity
                    )
                ok = (r.score, r.best_move) == (d.score, d.best_move)
                print(
                    f"workers {workers} affinity {affinity} split {split}: exact {ok},"
                    f" {r.nodes / d.nodes:.2f}x nodes, {r.tasks} tasks, {r.seconds:.1f} s"
                )


if __name__ == "__main__":
    main()
