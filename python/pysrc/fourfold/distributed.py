"""fourfold.distributed: exact solves and opening books spread over a Dask cluster.

Needs the optional extra: ``pip install ./python[distributed]`` (``dask[distributed]``).

How a solve is split. The driver (the process calling :func:`solve_distributed`) searches the
top ``split_plies`` plies of the tree itself; below that, every question is a task: one
null-window search ``Solver.solve_window(moves, x, x + 1)`` ("is the score of this position
above x?") run on a worker. The driver narrows the root's score with such tests as the
library's own solver does (around 0 first for early positions, then towards the bounds), and
answers each test of an inner node like young-brothers-wait: the eldest child first (centre
first, or a child already proven good), then its siblings in parallel with the same bound,
the rest dropped as soon as one of them decides the node. Every result (a fail-soft bound)
is kept by the driver, so later tests reuse it, and optionally written to a journal (JSON
lines keyed by board, position and window) from which a restarted driver takes it again.
The best move follows the library's one rule: among the columns achieving the score, the
first in :func:`fourfold.centre_order`; so the answer equals ``Solver.solve``'s.

Workers. Each task is a pure function of its arguments (Dask retries it on another worker
when its worker dies). It builds one :class:`fourfold.Solver` per worker process and keeps it
(``_SOLVERS``, keyed by board, table size and threads), so the table carries over from task
to task; tasks on the same subtree are sent to the same worker when it is alive (a loose
restriction), so they find each other's entries. Run workers with ``--nthreads 1`` and give
each task the machine's cores with ``threads_per_task``.

Nothing here searches or scores positions: every score comes from the library (on the
workers, or on the driver's own small solver for positions decided at once).
"""

from __future__ import annotations

import json
import os
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

import fourfold

__all__ = ["Result", "solve_distributed", "build_book_distributed", "window_task", "exact_task"]

# One solver per worker process and settings: its table outlives the tasks.
_SOLVERS: Dict[Tuple[str, int, int], "fourfold.Solver"] = {}
_SOLVERS_LOCK = threading.Lock()


def _solver(board: str, table_mib: int, threads: int) -> "fourfold.Solver":
    key = (board, table_mib, threads)
    with _SOLVERS_LOCK:
        s = _SOLVERS.get(key)
        if s is None:
            s = fourfold.Solver(table_mib=table_mib, threads=threads, board=board, book=None)
            _SOLVERS[key] = s
        return s


def window_task(board: str, moves: str, alpha: int, beta: int, table_mib: int, threads: int):
    """A worker's task: one search of ``moves`` with the window (alpha, beta) on the worker's
    solver. Returns ``(value, bound, nodes)`` (see :class:`fourfold.WindowResult`)."""
    r = _solver(board, table_mib, threads).solve_window(moves, alpha, beta)
    return (r.value, r.bound, r.nodes)


def exact_task(board: str, moves: str, table_mib: int, threads: int):
    """A worker's task: the exact score and best move (1-indexed, None on a full board) of
    ``moves``, as ``(score, best_move, nodes)``."""
    s = _solver(board, table_mib, threads).solve(moves)
    return (s.score, s.best_move, s.nodes)


@dataclass
class Result:
    """The answer of :func:`solve_distributed`.

    score and best_move are those of ``Solver.solve`` (best_move 1-indexed, None on a full
    board); nodes sums the nodes of every task run by this call; tasks counts them;
    reused counts results taken from the journal instead of run; tests counts the root's
    null-window tests; seconds is the driver's wall time."""

    score: int
    best_move: Optional[int]
    nodes: int = 0
    tasks: int = 0
    reused: int = 0
    tests: int = 0
    seconds: float = 0.0


class _Cancel:
    """A cancellation token: cancelled when it or any parent is."""

    __slots__ = ("parent", "flag")

    def __init__(self, parent: Optional["_Cancel"] = None):
        self.parent = parent
        self.flag = False

    def set(self):
        self.flag = True

    def __bool__(self):
        t = self
        while t is not None:
            if t.flag:
                return True
            t = t.parent
        return False


class _Journal:
    """Finished window results, one JSON object a line:
    ``{"board", "moves", "alpha", "beta", "value", "bound", "nodes"}``. A torn last line (a
    crash during a write) is skipped; lines of other boards are ignored."""

    def __init__(self, path: str, board: str):
        self.path = path
        self.board = board
        self.lock = threading.Lock()
        self.entries: List[Tuple[str, int, int, int, str]] = []
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        e = json.loads(line)
                    except ValueError:
                        continue
                    if e.get("board") == board:
                        self.entries.append(
                            (e["moves"], e["alpha"], e["beta"], e["value"], e["bound"])
                        )
        self.file = open(path, "a")

    def add(self, moves: str, alpha: int, beta: int, value: int, bound: str, nodes: int):
        line = json.dumps(
            {
                "board": self.board,
                "moves": moves,
                "alpha": alpha,
                "beta": beta,
                "value": value,
                "bound": bound,
                "nodes": nodes,
            }
        )
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()

    def close(self):
        self.file.close()


def _cells(board: str) -> int:
    w, h = board.lower().split("x")
    return int(w) * int(h)


class _Driver:
    """The state of one distributed solve: proven bounds per position, the local solver for
    positions decided at once, counters."""

    def __init__(self, client, board, table_mib, threads_per_task, journal, affinity):
        self.client = client
        self.board = board
        self.table_mib = table_mib
        self.threads = threads_per_task
        self.order = fourfold.centre_order(board)
        half = _cells(board) // 2 + 1
        self.outer = (-half, half)
        # Bounds proven so far: moves -> [lo, hi] with lo <= score <= hi.
        self.bounds: Dict[str, List[int]] = {}
        # The board text of a position and of its mirror image -> the move string that
        # stands for both: transpositions and mirror images share bounds and tasks.
        self.canon: Dict[str, str] = {}
        self.lock = threading.Lock()
        self.local = fourfold.Solver(table_mib=4, threads=1, board=board, book=None)
        self.nodes = 0
        self.tasks = 0
        self.reused = 0
        self.journal = _Journal(journal, board) if journal else None
        if self.journal:
            for moves, alpha, beta, value, bound in self.journal.entries:
                self._learn(self._key(moves), value, bound)
                self.reused += 1
        self.workers: List[str] = []
        if affinity:
            self.workers = sorted(client.scheduler_info().get("workers", {}))

    # -- bounds ---------------------------------------------------------------------------

    def _key(self, moves: str) -> str:
        """The move string standing for the position of ``moves`` and its mirror image."""
        p = fourfold.Position(moves, self.board)
        text = str(p)
        with self.lock:
            k = self.canon.get(text)
            if k is None:
                k = moves
                self.canon[text] = k
                self.canon[str(p.mirror())] = k
            return k

    def _get(self, moves: str) -> List[int]:
        with self.lock:
            b = self.bounds.get(moves)
            return list(b) if b else list(self.outer)

    def _learn(self, moves: str, value: int, bound: str):
        with self.lock:
            b = self.bounds.setdefault(moves, list(self.outer))
            if bound in ("exact", "lower"):
                b[0] = max(b[0], value)
            if bound in ("exact", "upper"):
                b[1] = min(b[1], value)

    def _decided(self, moves: str, x: int) -> Optional[bool]:
        lo, hi = self._get(moves)
        if lo > x:
            return True
        if hi <= x:
            return False
        return None

    # -- positions -----------------------------------------------------------------------

    def _children(self, moves: str) -> Tuple[fourfold.Position, List[Tuple[int, str]]]:
        p = fourfold.Position(moves, self.board)
        legal = set(p.legal_moves())
        return p, [(c, p.play(c).moves) for c in self.order if c in legal]

    @staticmethod
    def _immediate(p: fourfold.Position) -> bool:
        """True when the library decides the position without a search (a win at once or a
        full board): the driver's own solver answers it."""
        return p.is_full or any(p.is_winning_move(c) for c in p.legal_moves())

    # -- tests -----------------------------------------------------------------------------

    def test(self, moves: str, x: int, depth: int, cancel: _Cancel) -> Optional[bool]:
        """Is the score of ``moves`` above x? True/False, or None when cancelled."""
        moves = self._key(moves)
        d = self._decided(moves, x)
        if d is not None:
            return d
        if cancel:
            return None
        p = fourfold.Position(moves, self.board)
        if self._immediate(p):
            r = self.local.solve_window(moves, x, x + 1)
            self._learn(moves, r.value, r.bound)
            return r.above(x)
        if depth <= 0:
            return self._leaf(moves, x, cancel)
        return self._inner(moves, x, depth, cancel)

    def _leaf(self, moves: str, x: int, cancel: _Cancel) -> Optional[bool]:
        kw = {}
        if self.workers:
            w = self.workers[zlib.crc32(moves.encode()) % len(self.workers)]
            kw = {"workers": [w], "allow_other_workers": True}
        fut = self.client.submit(
            window_task, self.board, moves, x, x + 1, self.table_mib, self.threads, pure=True, **kw
        )
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        while not done.wait(0.02):
            if cancel:
                fut.release()
                return None
        value, bound, nodes = fut.result()
        fut.release()
        with self.lock:
            self.nodes += nodes
            self.tasks += 1
        if self.journal:
            self.journal.add(moves, x, x + 1, value, bound, nodes)
        self._learn(moves, value, bound)
        return self._decided(moves, x)

    def _inner(self, moves: str, x: int, depth: int, cancel: _Cancel) -> Optional[bool]:
        # score(moves) > x  <=>  some child c has score(c) < -x, i.e. not test(c, -x - 1).
        _, children = self._children(moves)
        y = -x - 1
        # The eldest: a child already proven good first (the lowest upper bound), else the
        # centre-first order (sorted is stable).
        children.sort(key=lambda cm: self._get(self._key(cm[1]))[1])
        first = self.test(children[0][1], y, depth - 1, cancel)
        if first is None:
            return None
        if first is False:
            return self._settle_inner(moves, children, x)
        rest = children[1:]
        if rest:
            group = _Cancel(cancel)
            results: List[Optional[bool]] = [None] * len(rest)
            finished = threading.Condition()
            count = [0]

            def run(i: int, child: str):
                try:
                    results[i] = self.test(child, y, depth - 1, group)
                except BaseException as e:  # noqa: BLE001 -- handed to the waiting thread
                    results[i] = e
                with finished:
                    count[0] += 1
                    if results[i] is False:
                        group.set()
                    finished.notify_all()

            threads = [
                threading.Thread(target=run, args=(i, c), daemon=True)
                for i, (_, c) in enumerate(rest)
            ]
            for t in threads:
                t.start()
            with finished:
                while count[0] < len(rest) and not group and not cancel:
                    finished.wait(0.05)
            for r in results:
                if isinstance(r, BaseException):
                    group.set()
                    raise r
            if cancel and not any(r is False for r in results):
                group.set()
                return None
        return self._settle_inner(moves, children, x)

    def _settle_inner(self, moves: str, children: List[Tuple[int, str]], x: int) -> bool:
        """Bounds of an inner node from its children's (the node's score is the maximum of
        the negated children's); decides the test unless cancelled children left it open."""
        lo, hi = self.outer[0], self.outer[0]
        for _, c in children:
            clo, chi = self._get(self._key(c))
            lo = max(lo, -chi)
            hi = max(hi, -clo)
        with self.lock:
            b = self.bounds.setdefault(moves, list(self.outer))
            b[0] = max(b[0], lo)
            b[1] = min(b[1], hi)
        d = self._decided(moves, x)
        assert d is not None, f"test of {moves!r} above {x} left undecided"
        return d

    # -- the root --------------------------------------------------------------------------

    def solve(self, moves: str, depth: int) -> Tuple[int, Optional[int], int]:
        p = fourfold.Position(moves, self.board)
        if self._immediate(p):
            s = self.local.solve(moves)
            return s.score, s.best_move, 0
        early = len(p) < 4
        tests = 0
        key = self._key(moves)
        while True:
            lo, hi = self._get(key)
            if lo >= hi:
                break
            # As the library's driver: around 0 first for early positions, else halfway,
            # leaning towards 0.
            if early:
                x = 0 if lo <= 0 < hi else (lo if lo > 0 else hi - 1)
            else:
                x = lo + (hi - lo) // 2
                if x <= 0 and lo // 2 < x:
                    x = lo // 2
                elif x >= 0 and hi // 2 > x:
                    x = hi // 2
                x = min(max(x, lo), hi - 1)
            self.test(moves, x, depth, _Cancel())
            tests += 1
        score = lo
        # The best move: the first column (centre first) whose child scores -score.
        _, children = self._children(moves)
        best = None
        for col, child in children:
            if p.is_winning_move(col):
                best = col
                break
            # -score(child) == score  <=>  score(child) <= -score  <=>  not test(child, -score).
            if not self.test(child, -score, depth - 1, _Cancel()):
                best = col
                break
        return score, best, tests


def _default_table_mib() -> int:
    return 256


def solve_distributed(
    client,
    moves: str = "",
    board: str = "7x6",
    *,
    split_plies: Optional[int] = None,
    threads_per_task: int = 1,
    table_mib: int = 256,
    journal: Optional[str] = None,
    affinity: bool = True,
) -> Result:
    """The exact score and best move of ``moves`` on ``board``, searched on the workers of the
    Dask ``client`` (a ``dask.distributed.Client``).

    split_plies: plies the driver searches itself above the tasks (None: 2, or 0 -- one task
    solving the position -- when at most 16 cells are empty). threads_per_task and
    table_mib: each worker's solver (one per worker process, kept between tasks). journal: a
    JSON-lines file of finished tasks, read at the start (so a restarted solve reuses them)
    and appended to. affinity: send tasks on the same position to the same worker (its
    table knows it), falling back to any worker.

    The score and best move equal ``fourfold.Solver(board=board).solve(moves)``'s. A bad
    position raises ValueError (checked on the driver first); a task failing everywhere
    (Dask's retries used up) raises its error.
    """
    start = time.monotonic()
    p = fourfold.Position(moves, board)  # ValueError for a bad position or board
    moves = p.moves
    if split_plies is None:
        split_plies = 0 if _cells(board) - len(p) <= 16 else 2
    if split_plies < 0:
        raise ValueError(f"split_plies must be at least 0, not {split_plies}")
    if split_plies == 0:
        fut = client.submit(exact_task, board, moves, table_mib, threads_per_task, pure=True)
        score, best, nodes = fut.result()
        return Result(score, best, nodes, 1, 0, 0, time.monotonic() - start)
    d = _Driver(client, board, table_mib, threads_per_task, journal, affinity)
    try:
        score, best, tests = d.solve(moves, split_plies)
    finally:
        if d.journal:
            d.journal.close()
    return Result(score, best, d.nodes, d.tasks, d.reused, tests, time.monotonic() - start)


def build_book_distributed(
    client,
    plies: int,
    path: str,
    board: str = "7x6",
    *,
    threads_per_task: int = 1,
    table_mib: int = 256,
    batch: int = 64,
) -> int:
    """Builds the opening book of depth ``plies`` on ``board`` with the workers of ``client``
    and writes it to ``path``: the same file as ``fourfold book build --plies N`` (the
    positions and the file format are the library's: ``Solver.book_positions`` and
    ``Solver.write_book``). Positions go out in batches of ``batch`` per task. Returns the
    number of positions."""
    local = fourfold.Solver(table_mib=4, threads=1, board=board, book=None)
    lines = local.book_positions(plies)
    chunks = [lines[i : i + batch] for i in range(0, len(lines), batch)]
    futs = client.map(
        _score_batch,
        chunks,
        board=board,
        table_mib=table_mib,
        threads=threads_per_task,
        pure=True,
    )
    scores: List[Tuple[str, int]] = []
    for chunk, fut in zip(chunks, futs):
        scores.extend(zip(chunk, fut.result()))
    local.write_book(path, plies, scores)
    return len(lines)


def _score_batch(lines: Iterable[str], board: str, table_mib: int, threads: int) -> List[int]:
    """A worker's task: the exact scores of a batch of positions."""
    s = _solver(board, table_mib, threads)
    return [r.score for r in s.solve_many(list(lines))]
