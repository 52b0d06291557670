"""The figures of BENCHMARKS.md, "Distributed solve on Dask": a LocalCluster of
2 single-thread worker processes running fourfold.distributed.solve_distributed against one
2-thread direct solve (fourfold.Solver(threads=2).solve), without a book, on the same table
size per solver. Prints, per case, both answers (and the file's score where there is one),
nodes and wall time, and their ratios.

    python python/bench_distributed.py empty 7x6
    python python/bench_distributed.py empty 6x7
    python python/bench_distributed.py set tests/data/Test_L1_R3 100
    python python/bench_distributed.py batch tests/data/Test_L1_R3 100
    python python/bench_distributed.py splits 6x6 --table-mib 64
    python python/bench_distributed.py workers 7x5 --table-mib 64

`batch` solves the positions as one batch: fourfold.distributed.solve_many_distributed on
the cluster against the direct Solver(threads=2).solve_many (the positions spread over the
two threads, as `fourfold solve -i FILE -t 2` does) and, as `set` does, against a 2-thread
solve of each position in turn.

`workers` solves the empty board on LocalClusters of 1, 2, 4 and 8 single-thread workers
(the library's default split for each), nodes against a 1-thread direct solve: the node
overhead of more workers. On a machine with fewer cores than workers the wall times say
nothing; the nodes do.

`splits` compares split depths 1-3, 1 and 2 workers, affinity on and off, by nodes against
a 1-thread direct solve of the empty board (a fresh LocalCluster per line).

Options: --table-mib N (each solver's table, default 256), --split N (split_plies, default
the library's choice), --no-affinity, --no-speculate (siblings always wait for the eldest),
--eldest N (eldest_plies: the line of eldest children split N plies deeper).
"""

import argparse
import time

import fourfold
from dask.distributed import Client, LocalCluster
from fourfold.distributed import solve_distributed, solve_many_distributed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["empty", "set", "batch", "splits", "workers"])
    ap.add_argument("arg")
    ap.add_argument("count", nargs="?", type=int, default=100)
    ap.add_argument("--table-mib", type=int, default=256)
    ap.add_argument("--split", type=int, default=None)
    ap.add_argument("--no-affinity", action="store_true")
    ap.add_argument("--no-speculate", action="store_true")
    ap.add_argument("--eldest", type=int, default=0)
    a = ap.parse_args()
    if a.what == "splits":
        return splits(a.arg, a.table_mib)
    if a.what == "workers":
        return workers(a.arg, a.table_mib, a.eldest)
    if a.what == "batch":
        return batch(a.arg, a.count, a.table_mib)
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
                eldest_plies=a.eldest,
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


def read_set(path, count):
    cases = []
    with open(path) as f:
        for line in f:
            m, s = line.split()
            cases.append((m, int(s)))
            if len(cases) == count:
                break
    return cases


def batch(path, count, table_mib):
    cases = read_set(path, count)
    moves = [m for m, _ in cases]
    runs = {}
    # Direct, the positions spread over two threads (one each, one shared table).
    t0 = time.monotonic()
    sols = fourfold.Solver(table_mib=table_mib, threads=2, book=None).solve_many(moves)
    runs["direct solve_many, 2 threads"] = (sols, time.monotonic() - t0)
    # Direct, each position on both threads in turn (the `set` case's reference).
    s2 = fourfold.Solver(table_mib=table_mib, threads=2, book=None)
    t0 = time.monotonic()
    sols = [s2.solve(m) for m in moves]
    runs["direct solve, 2 threads each"] = (sols, time.monotonic() - t0)
    del s2
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, Client(cluster) as client:
        t0 = time.monotonic()
        got = solve_many_distributed(client, moves, "7x6", table_mib=table_mib)
        runs["dask solve_many_distributed"] = (got, time.monotonic() - t0)
    want = [(s.score, s.best_move) for s in runs["direct solve, 2 threads each"][0]]
    print(f"batch {path} ({len(cases)} positions, table {table_mib} MiB per solver)")
    base_nodes = sum(s.nodes for s in runs["direct solve_many, 2 threads"][0])
    base_wall = runs["direct solve_many, 2 threads"][1]
    for name, (sols, wall) in runs.items():
        exact = [(s.score, s.best_move) for s in sols] == want and all(
            s.score == v for s, (_, v) in zip(sols, cases)
        )
        nodes = sum(s.nodes for s in sols)
        print(
            f"  {name:<30}: exact {exact}  {nodes:>14,} nodes  {wall:8.2f} s"
            f"  ({nodes / base_nodes:.2f}x nodes, {wall / base_wall:.2f}x wall of solve_many)"
        )


def workers(board, table_mib, eldest):
    d = fourfold.Solver(table_mib=table_mib, threads=1, board=board, book=None).solve("")
    print(f"direct 1 thread: score {d.score}, move {d.best_move}, {d.nodes:,} nodes")
    for n in (1, 2, 4, 8):
        with LocalCluster(
            n_workers=n, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster, Client(cluster) as client:
            r = solve_distributed(client, "", board, table_mib=table_mib, eldest_plies=eldest)
        ok = (r.score, r.best_move) == (d.score, d.best_move)
        print(
            f"workers {n}: exact {ok}, {r.nodes / d.nodes:.2f}x nodes, {r.tasks} tasks,"
            f" {r.dropped} dropped, {r.seconds:.1f} s"
        )


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
