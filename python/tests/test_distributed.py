"""Tests of fourfold.distributed on LocalClusters: the distributed solve equals the direct one,
survives a worker killed mid-task and a restarted driver, and the distributed book equals the
library's own."""

import json
import os
import pathlib
import signal
import threading
import time
import uuid

import pytest

import fourfold

distributed = pytest.importorskip("dask.distributed")
import fourfold.distributed as fd  # noqa: E402
from fourfold.distributed import (  # noqa: E402
    build_book_distributed,
    solve_distributed,
    solve_many_distributed,
    stop_task,
    window_task,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def first_case(name):
    with open(DATA / name) as f:
        moves, score = f.readline().split()
    return moves, int(score)


def direct(moves, board):
    return fourfold.Solver(table_mib=16, threads=1, board=board, book=None).solve(moves)


@pytest.fixture(scope="module")
def client():
    # Two single-thread workers in this process (threads, not processes): quick to start.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.mark.parametrize("board", ["5x5", "6x5", "5x4"])
def test_empty_small_boards_equal_the_direct_solve(client, board):
    want = direct("", board)
    got = solve_distributed(client, "", board, table_mib=16)
    assert (got.score, got.best_move) == (want.score, want.best_move)
    # Tasks did the searching.
    assert got.tasks > 1 and got.nodes > 0


def test_a_mid_game_7x6_position_equals_the_test_set(client):
    moves, score = first_case("Test_L2_R2")
    got = solve_distributed(client, moves, "7x6", table_mib=16)
    assert got.score == score
    assert got.best_move == direct(moves, "7x6").best_move
    assert got.tasks > 1


def test_split_depths_and_positions_decided_at_once(client):
    moves, score = first_case("Test_L2_R1")
    for split in (0, 1, 3):
        got = solve_distributed(client, moves, "7x6", split_plies=split, table_mib=16)
        assert got.score == score, split
        assert got.best_move == direct(moves, "7x6").best_move, split
    # The line of eldest children split deeper.
    for split, eldest in ((1, 1), (1, 3), (2, 2)):
        got = solve_distributed(
            client, moves, "7x6", split_plies=split, eldest_plies=eldest, table_mib=16
        )
        assert (got.score, got.best_move) == (score, direct(moves, "7x6").best_move), eldest
    want = direct("", "5x5")
    got = solve_distributed(client, "", "5x5", split_plies=1, eldest_plies=2, table_mib=16)
    assert (got.score, got.best_move) == (want.score, want.best_move)
    with pytest.raises(ValueError, match="eldest_plies"):
        solve_distributed(client, moves, "7x6", eldest_plies=-1)
    # A win at once: answered without a task.
    want = direct("121212", "7x6")
    got = solve_distributed(client, "121212", "7x6", split_plies=2)
    assert (got.score, got.best_move, got.tasks) == (want.score, want.best_move, 0)
    with pytest.raises(ValueError):
        solve_distributed(client, "448", "7x6")
    with pytest.raises(ValueError):
        solve_distributed(client, "", "3x3")


def test_a_batch_equals_the_direct_solves_in_its_order(client):
    with open(DATA / "Test_L2_R2") as f:
        cases = [line.split() for _, line in zip(range(12), f)]
    got = solve_many_distributed(client, [m for m, _ in cases], "7x6", table_mib=16, batch=5)
    assert [r.score for r in got] == [int(s) for _, s in cases]
    assert [r.best_move for r in got] == [direct(m, "7x6").best_move for m, _ in cases]
    assert sum(r.nodes for r in got) > 0
    # Position objects of another board, one task each (the default for a short batch).
    ps = [fourfold.Position(m, "6x5") for m in ("", "3", "34", "343", "3434")]
    got = solve_many_distributed(client, ps, "6x5", table_mib=16)
    want = [direct(p.moves, "6x5") for p in ps]
    assert [(r.score, r.best_move) for r in got] == [(w.score, w.best_move) for w in want]
    assert solve_many_distributed(client, [], "7x6") == []


def test_a_bad_position_of_a_batch_is_named_before_any_task_runs(client):
    with pytest.raises(ValueError, match="position 2: .*8"):
        solve_many_distributed(client, ["4", "44", "448"], "7x6")
    with pytest.raises(ValueError, match="position 1: the position is on a 6x5 board"):
        solve_many_distributed(client, ["4", fourfold.Position("3", "6x5")], "7x6")
    with pytest.raises(TypeError, match="position 0"):
        solve_many_distributed(client, [44], "7x6")
    with pytest.raises(ValueError):
        solve_many_distributed(client, ["4"], "3x3")
    with pytest.raises(ValueError, match="batch"):
        solve_many_distributed(client, ["4"], "7x6", batch=0)


def test_a_restarted_driver_reuses_the_journal(client, tmp_path):
    journal = tmp_path / "solve.jsonl"
    want = direct("", "6x5")
    first = solve_distributed(client, "", "6x5", table_mib=16, journal=str(journal))
    lines = journal.read_text().splitlines()
    assert len(lines) == first.tasks > 0
    # A crash in the middle of a write leaves a torn last line: it is skipped.
    with open(journal, "a") as f:
        f.write('{"board": "6x5", "moves": "4')
    again = solve_distributed(client, "", "6x5", table_mib=16, journal=str(journal))
    assert (again.score, again.best_move) == (want.score, want.best_move)
    assert again.reused == first.tasks and again.tasks == 0
    assert again.journal_problems == [f"line {len(lines) + 1}: torn (no end of line)"]
    # The torn line was cut off: the file holds the whole records only.
    assert journal.read_text().splitlines() == lines
    # A journal of half the tasks: the rest is searched again, the answer is the same.
    journal.write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    half = solve_distributed(client, "", "6x5", table_mib=16, journal=str(journal))
    assert (half.score, half.best_move) == (want.score, want.best_move)
    assert half.reused == len(lines) // 2 and 0 < half.tasks


def test_a_journal_trusts_only_whole_intact_records(client, tmp_path):
    journal = tmp_path / "solve.jsonl"
    want = direct("", "6x5")
    first = solve_distributed(client, "", "6x5", table_mib=16, journal=str(journal))
    lines = journal.read_text().splitlines()
    record = json.loads(lines[0])
    fields = {k: v for k, v in record.items() if k != "check"}

    def signed(**change):
        f = {**fields, **change}
        return json.dumps({**f, "check": fd._Journal._digest(f)})

    altered = json.dumps({**record, "value": record["value"] + 1})
    older = json.dumps({k: v for k, v in fields.items() if k != "v"})
    bad = [
        (altered, "checksum mismatch"),
        (older, "a record of the older format without a version or checksum"),
        ("{not json", "not JSON"),
        (signed(v=3), "format version 3, not 2"),
        (signed(bound="maybe"), "bound 'maybe'"),
        (signed(alpha=5, beta=5), "window or value out of range"),
        (signed(moves="7"), "moves: "),
        (signed(nodes="many"), "a field is missing or of the wrong type"),
    ]
    # The first record altered, the bad lines after the good ones, and a torn last line.
    text = "\n".join([altered] + lines[1:] + [b for b, _ in bad[1:]]) + "\n" + lines[1][:20]
    journal.write_text(text)
    again = solve_distributed(client, "", "6x5", table_mib=16, journal=str(journal))
    assert (again.score, again.best_move) == (want.score, want.best_move)
    # The altered proof is not taken; every intact record is.
    assert again.reused == len(lines) - 1
    got = again.journal_problems
    n = len(lines) + len(bad)
    assert got[0] == f"line {n}: torn (no end of line)"
    assert got[1] == "line 1: checksum mismatch"
    for (line, why), (_, reason) in zip(enumerate(got[2:], len(lines) + 1), bad[1:]):
        assert why.startswith(f"line {line}: {reason}"), (why, reason)
    assert len(got) == 1 + len(bad)
    # What this run added starts on a line of its own: all of it is read back.
    later = fd._Journal(str(journal), "6x5")
    later.close()
    assert len(later.entries) == len(lines) - 1 + again.tasks
    assert len(later.problems) == len(bad)


def wait_running(*tokens, timeout=60, futures=()):
    """Waits until the window tasks of ``tokens`` run (the test cluster's workers are
    threads of this process, so their ``_RUNNING`` is this module's). A task whose future is
    among ``futures`` counts once it has finished too (a short search may end before it is
    seen running)."""
    done = {f.key for f in futures}
    deadline = time.monotonic() + timeout

    def started(t):
        return t in fd._RUNNING or (t in done and any(f.key == t and f.done() for f in futures))

    while not all(started(t) for t in tokens):
        assert time.monotonic() < deadline, "the tasks never started"
        time.sleep(0.01)


def submit_window(client, moves, alpha, board="7x6", table_mib=16, worker=None):
    """Submits one window task; with ``worker`` it runs there and nowhere else (two tasks that
    must run at once are pinned to the two single-thread workers, or one could queue behind
    the other)."""
    token = f"test-{uuid.uuid4().hex}"
    pin = {} if worker is None else {"workers": [worker], "allow_other_workers": False}
    fut = client.submit(
        window_task,
        board,
        moves,
        alpha,
        alpha + 1,
        table_mib,
        1,
        token,
        key=token,
        pure=False,
        **pin,
    )
    return token, fut


def test_a_dropped_task_is_stopped_on_its_worker_and_its_nodes_are_returned(client):
    # The empty 7x6 board's first test takes tens of millions of nodes: stopped soon after
    # it starts, it returns "stopped" with the nodes searched so far, long before its end.
    token, fut = submit_window(client, "", 0)
    wait_running(token)
    time.sleep(0.2)
    assert any(client.run(stop_task, token).values())
    value, bound, nodes = fut.result(timeout=30)
    assert (value, bound) == (None, "stopped")
    assert nodes > 0
    assert token not in fd._RUNNING
    # A task stopped before it starts returns at once, having searched nothing.
    token = f"test-{uuid.uuid4().hex}"
    assert not any(client.run(stop_task, token).values())
    fut = client.submit(window_task, "7x6", "", 0, 1, 16, 1, token, key=token, pure=False)
    assert fut.result(timeout=30) == (None, "stopped", 0)


def test_a_stop_meant_for_another_task_does_not_change_an_answer(client):
    # Both tasks run on the one solver of this process: the stop of the first reaches the
    # second's search too, which searches again and answers as a direct search does.
    # Whether the stop reaches the second search is a race (the first search to end lowers
    # the solver's flag, maybe before the second one polls it), so this is tried on new
    # positions until it does; every answer must be the direct search's either way.
    with open(DATA / "Test_L1_R3") as f:
        positions = [line.split()[0] for line in f][:6]
    restarts = fd._RESTARTS[0]
    first, second = sorted(client.scheduler_info(n_workers=-1)["workers"])[:2]
    for moves in positions:
        want = fourfold.Solver(table_mib=16, threads=1, board="7x6", book=None).solve_window(
            moves, 0, 1
        )
        # A table size no other test uses: a solver of its own, whose table has not seen
        # this position, so the second search runs until the stop reaches it.
        long_token, long_fut = submit_window(client, "", 0, table_mib=17, worker=first)
        token, fut = submit_window(client, moves, 0, table_mib=17, worker=second)
        wait_running(long_token, token, futures=[fut])
        client.run(stop_task, long_token)
        assert long_fut.result(timeout=30)[:2] == (None, "stopped")
        value, bound, nodes = fut.result(timeout=120)
        assert (value, bound) == (want.value, want.bound), moves
        assert nodes > 0
        if fd._RESTARTS[0] > restarts:
            break
    # A second task's search was stopped and run again (the stop was not lost on it).
    assert fd._RESTARTS[0] > restarts

def test_the_default_split_gives_every_worker_two_positions_or_more():
    class Cluster:
        def __init__(self, workers):
            self.workers = {f"tcp://w{i}": {} for i in range(workers)}

        def scheduler_info(self):
            return {"workers": self.workers}

    # 7 columns: 7 positions a ply down, 49 two, 343 three.
    assert [fd._default_split(Cluster(n), "7x6", 0) for n in (1, 2, 3, 4, 24, 25, 64)] == [
        1,
        1,
        1,
        2,
        2,
        3,
        3,
    ]
    assert fd._default_split(Cluster(8), "5x4", 0) == 2  # 5 columns: 25 >= 16
    # At most 16 empty cells: one task solves the position.
    assert fd._default_split(Cluster(64), "7x6", 26) == 0
    assert fd._default_split(Cluster(64), "7x6", 25) == 3


def test_the_distributed_book_equals_the_librarys(client, tmp_path):
    path = tmp_path / "5x4-4.book"
    n = build_book_distributed(client, 4, str(path), board="5x4", table_mib=16, batch=10)
    local = fourfold.Solver(table_mib=16, threads=1, board="5x4", book=None)
    assert n == len(local.book_positions(4))
    # The library's own build of the same plies, through its command when it is built.
    cli = ROOT / "target" / "release" / "fourfold"
    if cli.exists():
        import subprocess

        own = tmp_path / "own.book"
        r = subprocess.run(
            [str(cli), "book", "build", "--board", "5x4", "--plies", "4", "--out", str(own), "-q"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if r.returncode == 0:
            assert path.read_bytes() == own.read_bytes()
    # Either way: the book answers every position of fewer stones as the search does.
    booked = fourfold.Solver(table_mib=16, threads=1, board="5x4", book=str(path))
    assert booked.book_plies == 4
    for plies in range(4):
        for m in local.book_positions(plies):
            a, b = booked.solve(m), local.solve(m)
            assert a.source == "book"
            assert (a.score, a.best_move) == (b.score, b.best_move), m


@pytest.mark.skipif(os.name != "posix", reason="kills a worker process with SIGKILL")
def test_a_worker_killed_mid_task_is_retried_and_the_answer_stays_exact():
    # The 7x5 empty board split one ply down: a few tasks of about a second each (6x5's
    # took a third of a second once the parity bounds ran on odd heights).
    want = direct("", "7x5")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster, distributed.Client(cluster) as c:
        pids = c.run(os.getpid)
        out = {}

        def solve():
            try:
                out["r"] = solve_distributed(c, "", "7x5", split_plies=1, table_mib=16)
            except BaseException as e:  # noqa: BLE001 -- reported below
                out["e"] = e

        t = threading.Thread(target=solve)
        t.start()
        # Wait for a task to be running on a worker, then kill that worker's process.
        killed = None
        deadline = time.monotonic() + 60
        while killed is None and time.monotonic() < deadline and t.is_alive():
            for addr, keys in c.processing().items():
                if keys and addr in pids and t.is_alive():
                    os.kill(pids[addr], signal.SIGKILL)
                    killed = addr
                    break
            time.sleep(0.01)
        t.join(300)
        # Killed while the solve was waiting for a task of that worker.
        assert killed is not None, "no task was seen running"
        assert "e" not in out, out.get("e")
        r = out["r"]
        assert (r.score, r.best_move) == (want.score, want.best_move)
        # The killed worker's process is gone (the nanny starts a new one).
        assert pids[killed] not in c.run(os.getpid).values()


def dask_command():
    # The `dask` command of the environment the tests run in (a venv's bin directory).
    import shutil
    import sys

    here = pathlib.Path(sys.executable).parent / "dask"
    return str(here) if here.exists() else shutil.which("dask")


@pytest.mark.skipif(dask_command() is None, reason="the `dask` command is not installed")
def test_a_cluster_started_by_the_dask_commands_solves_exactly(tmp_path):
    # The README's cluster: `dask scheduler` and `dask worker` as processes of their own,
    # talking over TCP, here all on this machine (a real cluster runs a worker per machine).
    import subprocess

    dask = dask_command()
    sched_file = tmp_path / "scheduler.json"
    common = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    procs = [
        subprocess.Popen(
            [dask, "scheduler", "--host", "127.0.0.1", "--port", "0",
             "--dashboard-address", ":0", "--scheduler-file", str(sched_file)],
            **common,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not sched_file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sched_file.exists(), "dask scheduler wrote no scheduler file in 60 s"
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [dask, "worker", "--scheduler-file", str(sched_file), "--nworkers", "1",
                     "--nthreads", "1", "--memory-limit", "0", "--no-dashboard"],
                    **common,
                )
            )
        with distributed.Client(scheduler_file=str(sched_file), timeout=60) as c:
            c.wait_for_workers(2, timeout=120)
            # Two workers, two processes other than this one.
            pids = set(c.run(os.getpid).values())
            assert len(pids) == 2 and os.getpid() not in pids
            for board in ["6x5", "5x5"]:
                want = direct("", board)
                r = solve_distributed(c, "", board, table_mib=16)
                assert (r.score, r.best_move) == (want.score, want.best_move), board
                assert r.tasks > 0
            cases = []
            with open(DATA / "Test_L2_R1") as f:
                for line in f:
                    moves, score = line.split()
                    cases.append((moves, int(score)))
                    if len(cases) == 20:
                        break
            rs = solve_many_distributed(c, [m for m, _ in cases], "7x6", table_mib=16)
            assert [r.score for r in rs] == [s for _, s in cases]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
