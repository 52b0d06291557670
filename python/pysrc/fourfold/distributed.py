"""fourfold.distributed: exact solves and opening books spread over a Dask cluster.

Needs the optional extra: ``pip install ./python[distributed]`` (``dask[distributed]``).

How a solve is split. The driver (the process calling :func:`solve_distributed`) searches the
top ``split_plies`` plies of the tree itself; below that, every question is a task: one
null-window search ``Solver.solve_window(moves, x, x + 1)`` ("is the score of this position
above x?") run on a worker. The driver narrows the root's score with such tests as the
library's own solver does (around 0 first for early positions, then towards the bounds), and
answers each test of an inner node like young-brothers-wait: the eldest child first (centre
first, or a child already proven good; while a worker has nothing to do, the next sibling
starts beside it), then its siblings in parallel with the same bound,
the rest dropped as soon as one of them decides the node: a dropped task is stopped on its
worker (or skipped there if it has not started), and its nodes up to the stop still count
in :class:`Result`. Every result (a fail-soft bound)
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

import hashlib
import json
import os
import threading
import time
import uuid
import zlib
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Tuple

import fourfold

__all__ = [
    "Result",
    "solve_distributed",
    "solve_many_distributed",
    "build_book_distributed",
    "window_task",
    "exact_task",
    "stop_task",
]

# One solver per worker process and settings: its table outlives the tasks.
_SOLVERS: Dict[Tuple[str, int, int], "fourfold.Solver"] = {}
_SOLVERS_LOCK = threading.Lock()

# The format version of the journal's records (see `_Journal`).
JOURNAL_VERSION = 2


def _solver(board: str, table_mib: int, threads: int) -> "fourfold.Solver":
    key = (board, table_mib, threads)
    with _SOLVERS_LOCK:
        s = _SOLVERS.get(key)
        if s is None:
            s = fourfold.Solver(table_mib=table_mib, threads=threads, board=board, book=None)
            _SOLVERS[key] = s
        return s


# The window tasks running in this worker process (token -> its solver), and the tokens
# the driver asked to stop: a task stopped before it starts is skipped.
_RUNNING: Dict[str, "fourfold.Solver"] = {}
_STOPPED: set = set()
_RUN_LOCK = threading.Lock()
# Searches of one task stopped by a stop meant for another (a stop reaches the whole
# solver) are run again; past this many, the task fails instead of looping.
_MAX_RESTARTS = 1000
# Searches run again after such a stop, in this process (for tests and curiosity).
_RESTARTS = [0]
# Stops in progress (see `stop_task`): a search stopped by one waits for them to end
# before it starts again.
_STOPPING = [0]


def window_task(
    board: str,
    moves: str,
    alpha: int,
    beta: int,
    table_mib: int,
    threads: int,
    token: Optional[str] = None,
):
    """A worker's task: one search of ``moves`` with the window (alpha, beta) on the worker's
    solver. Returns ``(value, bound, nodes)`` (see :class:`fourfold.WindowResult`), or
    ``(None, "stopped", nodes)`` when :func:`stop_task` was called with its ``token``.

    A search stopped otherwise (a stop meant for another task on the same solver, one that
    arrived just after its own search ended) is searched again: only the driver's stop
    ends a task early, and every answer is a finished search."""
    s = _solver(board, table_mib, threads)
    nodes = 0
    for _ in range(_MAX_RESTARTS):
        with _RUN_LOCK:
            if token is not None and token in _STOPPED:
                _STOPPED.discard(token)
                return (None, "stopped", nodes)
            if token is not None:
                _RUNNING[token] = s
        try:
            r = s.solve_window(moves, alpha, beta)
            return (r.value, r.bound, nodes + r.nodes)
        except RuntimeError as e:
            nodes += getattr(e, "nodes", 0)
            with _RUN_LOCK:
                if token is None or token not in _STOPPED:
                    _RESTARTS[0] += 1
        finally:
            with _RUN_LOCK:
                _RUNNING.pop(token, None)
        while _STOPPING[0] > 0:
            time.sleep(0.002)
    raise RuntimeError(f"task {moves!r} ({alpha}, {beta}) stopped {_MAX_RESTARTS} times")


def stop_task(token: str) -> bool:
    """Run on a worker (``client.run``): stops the window task of ``token`` if it runs here
    (True), else makes it return at once when it starts here. Other tasks on the same solver
    are stopped too, and search again.

    A solver has one stop flag, lowered by the first of its searches to end: when two
    tasks share a solver (workers that are threads of one process), the other's search may
    take the stop and lower it before this task's search sees it. So the flag is raised
    again, from a thread of its own, until this task's search has ended."""
    with _RUN_LOCK:
        _STOPPED.add(token)
        s = _RUNNING.get(token)
        if s is None:
            return False
        _STOPPING[0] += 1

    def keep_stopping():
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with _RUN_LOCK:
                    if token not in _RUNNING:
                        return
                    s.stop()
                time.sleep(0.002)
        finally:
            with _RUN_LOCK:
                _STOPPING[0] -= 1

    threading.Thread(target=keep_stopping, daemon=True).start()
    return True


def _forget_stops(tokens: List[str]) -> None:
    """Run on a worker: drops the stop requests of ``tokens`` (their tasks are over)."""
    with _RUN_LOCK:
        _STOPPED.difference_update(tokens)


def exact_task(board: str, moves: str, table_mib: int, threads: int):
    """A worker's task: the exact score and best move (1-indexed, None on a full board) of
    ``moves``, as ``(score, best_move, nodes)``."""
    s = _solver(board, table_mib, threads).solve(moves)
    return (s.score, s.best_move, s.nodes)


@dataclass
class Result:
    """The answer of :func:`solve_distributed`.

    score and best_move are those of ``Solver.solve`` (best_move 1-indexed, None on a full
    board); nodes sums the nodes of every task run by this call, the dropped ones up to
    where they were stopped included; tasks counts the tasks that ran to their end (their
    answers are kept, and journalled); dropped counts those the driver no longer needed
    while they were running or waiting: stopped on their worker, or in tasks if they ended
    first;
    reused counts results taken from the journal instead of run; tests counts the root's
    null-window tests; seconds is the driver's wall time; journal_problems names the lines
    of the journal that were not trusted (``"line N: why"``: torn, corrupt, another format),
    whose tasks ran again."""

    score: int
    best_move: Optional[int]
    nodes: int = 0
    tasks: int = 0
    reused: int = 0
    tests: int = 0
    seconds: float = 0.0
    dropped: int = 0
    journal_problems: List[str] = field(default_factory=list)


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


@dataclass
class _Run:
    """A task being waited for: its future, how many tests wait for it, and whether its
    answer was counted (once, however many tests it answered)."""

    fut: object
    waiting: int = 0
    counted: bool = False


class _Journal:
    """Finished window results, one JSON object a line, format version ``JOURNAL_VERSION``:
    ``{"v", "board", "moves", "alpha", "beta", "value", "bound", "nodes", "check"}``, where
    ``check`` is the BLAKE2b-64 digest (hex) of the record's other fields (its JSON with
    sorted keys and no spaces). Each record is flushed and fsynced as it is written, so a
    finished task survives a crash of the driver or of the machine.

    Reading trusts a record as a proof only if it is whole and intact: a torn last line (a
    crash during a write) is dropped and cut off the file, so the next record starts a line
    of its own; a line that is not JSON, of another format version (or of the older
    unversioned one), whose checksum does not match, or whose fields are not a window result
    of a position of this board is skipped, and named in ``problems`` (``"line N: why"``).
    Lines of other boards are ignored."""

    def __init__(self, path: str, board: str):
        self.path = path
        self.board = board
        self.lock = threading.Lock()
        self.entries: List[Tuple[str, int, int, int, str]] = []
        self.problems: List[str] = []
        if os.path.exists(path):
            self._read()
        self.file = open(path, "a")

    def _read(self):
        with open(self.path, "rb") as f:
            data = f.read()
        whole = data.rfind(b"\n") + 1
        if whole < len(data):
            # A torn last line: dropped, so that the next record is not glued to it.
            torn = data.count(b"\n") + 1
            self.problems.append(f"line {torn}: torn (no end of line)")
            with open(self.path, "r+b") as f:
                f.truncate(whole)
                f.flush()
                os.fsync(f.fileno())
        for n, raw in enumerate(data[:whole].split(b"\n")[:-1], 1):
            try:
                entry = self._parse(raw)
            except ValueError as e:
                self.problems.append(f"line {n}: {e}")
                continue
            if entry is not None:
                self.entries.append(entry)

    @staticmethod
    def _digest(fields: dict) -> str:
        text = json.dumps(fields, sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()

    def _parse(self, raw: bytes) -> Optional[Tuple[str, int, int, int, str]]:
        """The record of one line, None for another board's; ValueError saying what is
        wrong with it."""
        try:
            e = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ValueError("not JSON") from None
        if not isinstance(e, dict):
            raise ValueError("not a JSON object")
        if "v" not in e:
            raise ValueError("a record of the older format without a version or checksum")
        if e["v"] != JOURNAL_VERSION:
            raise ValueError(f"format version {e['v']!r}, not {JOURNAL_VERSION}")
        check = e.pop("check", None)
        if check != self._digest(e):
            raise ValueError("checksum mismatch")
        if e.get("board") != self.board:
            return None
        ints = ("alpha", "beta", "value", "nodes")
        if not all(type(e.get(k)) is int for k in ints) or type(e.get("moves")) is not str:
            raise ValueError("a field is missing or of the wrong type")
        if e.get("bound") not in ("lower", "upper", "exact"):
            raise ValueError(f"bound {e.get('bound')!r}")
        half = _cells(self.board) // 2 + 1
        if not -half <= e["alpha"] < e["beta"] <= half or not -half <= e["value"] <= half:
            raise ValueError("window or value out of range")
        try:
            fourfold.Position(e["moves"], self.board)
        except ValueError as err:
            raise ValueError(f"moves: {err}") from None
        return (e["moves"], e["alpha"], e["beta"], e["value"], e["bound"])

    def add(self, moves: str, alpha: int, beta: int, value: int, bound: str, nodes: int):
        fields = {
            "v": JOURNAL_VERSION,
            "board": self.board,
            "moves": moves,
            "alpha": alpha,
            "beta": beta,
            "value": value,
            "bound": bound,
            "nodes": nodes,
        }
        line = json.dumps({**fields, "check": self._digest(fields)})
        with self.lock:
            self.file.write(line + "\n")
            self.file.flush()
            os.fsync(self.file.fileno())

    def close(self):
        self.file.close()


def _cells(board: str) -> int:
    w, h = board.lower().split("x")
    return int(w) * int(h)


class _Driver:
    """The state of one distributed solve: proven bounds per position, the local solver for
    positions decided at once, counters."""

    def __init__(
        self, client, board, table_mib, threads_per_task, journal, affinity, speculate, eldest_plies
    ):
        self.client = client
        self.speculate = speculate
        self.eldest_plies = eldest_plies
        self.n_workers = max(1, len(client.scheduler_info().get("workers", {})))
        self.next_speculation = 0.0
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
        # The task of each (position, x) being waited for.
        self.running: Dict[Tuple[str, int], _Run] = {}
        # Tasks dropped while running or waiting: (token, future, moves, x), gathered by
        # `finish`; n_dropped counts them.
        self.dropped: List[Tuple[str, object, str, int]] = []
        self.n_dropped = 0
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

    def test(
        self, moves: str, x: int, depth: int, cancel: _Cancel, extra: int = 0
    ) -> Optional[bool]:
        """Is the score of ``moves`` above x? True/False, or None when cancelled. Below
        ``depth`` plies the question is a task, unless ``extra`` (plies more for the line of
        eldest children) is left."""
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
            if extra <= 0:
                return self._leaf(moves, x, cancel)
            depth, extra = 1, extra - 1
        return self._inner(moves, x, depth, cancel, extra)

    def _leaf(self, moves: str, x: int, cancel: _Cancel) -> Optional[bool]:
        """One task: "is the score of ``moves`` above x?". Two tests of one position and
        window asked at once (transpositions, mirror images) wait for one task."""
        with self.lock:
            run = self.running.get((moves, x))
            if run is None:
                run = self.running[(moves, x)] = _Run(self._submit(moves, x))
            run.waiting += 1
        done = threading.Event()
        run.fut.add_done_callback(lambda _: done.set())
        while not done.wait(0.02):
            if cancel:
                self._drop(moves, x, run)
                return None
        value, bound, nodes = run.fut.result()
        with self.lock:
            run.waiting -= 1
            first = not run.counted
            run.counted = True
            if self.running.get((moves, x)) is run:
                del self.running[(moves, x)]
            if first:
                self.nodes += nodes
                self.tasks += 1
        if first:
            if self.journal:
                self.journal.add(moves, x, x + 1, value, bound, nodes)
            self._learn(moves, value, bound)
        return self._decided(moves, x)

    def _submit(self, moves: str, x: int):
        kw = {}
        if self.workers:
            w = self.workers[zlib.crc32(moves.encode()) % len(self.workers)]
            kw = {"workers": [w], "allow_other_workers": True}
        token = f"fourfold-window-{uuid.uuid4().hex}"
        return self.client.submit(
            window_task,
            self.board,
            moves,
            x,
            x + 1,
            self.table_mib,
            self.threads,
            token,
            key=token,
            pure=False,
            **kw,
        )

    def _drop(self, moves: str, x: int, run: "_Run") -> None:
        """A test no longer needed: when no other test waits for its task, the task is
        stopped wherever it runs (or skipped where it will start), and `finish` collects
        what it searched."""
        with self.lock:
            run.waiting -= 1
            if run.waiting > 0 or run.counted:
                return
            if self.running.get((moves, x)) is run:
                del self.running[(moves, x)]
            self.dropped.append((run.fut.key, run.fut, moves, x))
            self.n_dropped += 1
        self._run_everywhere(stop_task, run.fut.key)

    def _inner(
        self, moves: str, x: int, depth: int, cancel: _Cancel, extra: int = 0
    ) -> Optional[bool]:
        # score(moves) > x  <=>  some child c has score(c) < -x, i.e. not test(c, -x - 1).
        _, children = self._children(moves)
        y = -x - 1
        # The eldest: a child already proven good first (the lowest upper bound), else the
        # centre-first order (sorted is stable).
        children.sort(key=lambda cm: self._get(self._key(cm[1]))[1])
        rest = children[1:]
        group = _Cancel(cancel)
        # The siblings wait for the eldest, unless a worker has nothing to do (`speculate`):
        # then the next sibling starts beside it, and is stopped if the eldest decides.
        gate = threading.Event()
        started = [0]
        results: List[Optional[bool]] = [None] * len(rest)
        finished = threading.Condition()
        count = [0]

        def run(i: int, child: str):
            try:
                while not gate.is_set() and not group:
                    if self.speculate and started[0] == i and self._idle():
                        break
                    gate.wait(0.05)
                started[0] = max(started[0], i + 1)
                results[i] = None if group else self.test(child, y, depth - 1, group)
            except BaseException as e:  # noqa: BLE001 -- handed to the waiting thread
                results[i] = e
            with finished:
                count[0] += 1
                if results[i] is False:
                    group.set()
                finished.notify_all()

        threads = [
            threading.Thread(target=run, args=(i, c), daemon=True) for i, (_, c) in enumerate(rest)
        ]
        for t in threads:
            t.start()
        try:
            first = self.test(children[0][1], y, depth - 1, group, extra)
        except BaseException:
            group.set()
            raise
        if first is False:
            group.set()
            return self._settle_inner(moves, children, x)
        gate.set()
        with finished:
            while count[0] < len(rest) and not group and not cancel:
                finished.wait(0.05)
        for r in results:
            if isinstance(r, BaseException):
                group.set()
                raise r
        if not any(r is False for r in results) and (cancel or first is None):
            group.set()
            return None
        return self._settle_inner(moves, children, x)

    def _idle(self) -> bool:
        """True when fewer tasks are being waited for than there are workers, at most once
        per 50 ms (so that one idle worker starts one sibling, not many)."""
        with self.lock:
            now = time.monotonic()
            if len(self.running) >= self.n_workers or now < self.next_speculation:
                return False
            self.next_speculation = now + 0.05
            return True

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

    def finish(self) -> None:
        """Waits for the dropped tasks (stopped on their workers, so at once) and counts
        their nodes; a dropped task that finished anyway is journalled like any other."""
        with self.lock:
            dropped, self.dropped = self.dropped, []
        if not dropped:
            return
        for _, fut, moves, x in dropped:
            try:
                value, bound, nodes = fut.result()
            except Exception:  # noqa: BLE001 -- a dropped task's failure changes no answer
                continue
            finally:
                fut.release()
            with self.lock:
                self.nodes += nodes
            if value is not None:
                with self.lock:
                    self.tasks += 1
                self._learn(moves, value, bound)
                if self.journal:
                    self.journal.add(moves, x, x + 1, value, bound, nodes)
        self._run_everywhere(_forget_stops, [t for t, *_ in dropped])

    def _run_everywhere(self, function, arg) -> None:
        """``function(arg)`` on every worker now; a worker that is gone or failing is skipped
        (a stop is only a saving: a task it misses runs to its end, and counts)."""
        try:
            self.client.run(function, arg, on_error="ignore")
        except Exception:  # noqa: BLE001 -- see above
            pass

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
            self.test(moves, x, depth, _Cancel(), self.eldest_plies)
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


def _default_split(client, board: str, stones: int) -> int:
    """The default ``split_plies``: see :func:`solve_distributed`."""
    if _cells(board) - stones <= 16:
        return 0
    width = int(board.lower().split("x")[0])
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    plies = 1
    while width**plies < 2 * workers:
        plies += 1
    return plies


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
    speculate: bool = True,
    eldest_plies: int = 0,
) -> Result:
    """The exact score and best move of ``moves`` on ``board``, searched on the workers of the
    Dask ``client`` (a ``dask.distributed.Client``).

    split_plies: plies the driver searches itself above the tasks (None: the fewest plies
    whose positions are at least twice the cluster's workers, e.g. 1 for 2 workers on a
    7-wide board and 3 for 64; 0 -- one task solving the position -- when at most 16
    cells are empty). threads_per_task and
    table_mib: each worker's solver (one per worker process, kept between tasks). journal: a
    JSON-lines file of finished tasks, read at the start (so a restarted solve reuses them)
    and appended to. affinity: send tasks on the same position to the same worker (its
    table knows it), falling back to any worker. speculate: while a worker has nothing to
    do, start the next sibling of a child being searched instead of waiting for it (a
    sibling made useless is stopped). eldest_plies: split the line of eldest children (the
    first child of the root's test, its first child, ...) that many plies deeper than the
    others, so that the whole cluster works on the eldest's subtree while its siblings wait.

    The score and best move equal ``fourfold.Solver(board=board).solve(moves)``'s. A bad
    position raises ValueError (checked on the driver first); a task failing everywhere
    (Dask's retries used up) raises its error.
    """
    start = time.monotonic()
    p = fourfold.Position(moves, board)  # ValueError for a bad position or board
    moves = p.moves
    if split_plies is None:
        split_plies = _default_split(client, board, len(p))
    if split_plies < 0:
        raise ValueError(f"split_plies must be at least 0, not {split_plies}")
    if eldest_plies < 0:
        raise ValueError(f"eldest_plies must be at least 0, not {eldest_plies}")
    if split_plies == 0:
        fut = client.submit(exact_task, board, moves, table_mib, threads_per_task, pure=True)
        score, best, nodes = fut.result()
        return Result(score, best, nodes, 1, 0, 0, time.monotonic() - start)
    d = _Driver(
        client, board, table_mib, threads_per_task, journal, affinity, speculate, eldest_plies
    )
    try:
        score, best, tests = d.solve(moves, split_plies)
        d.finish()
    finally:
        if d.journal:
            d.journal.close()
    return Result(
        score,
        best,
        d.nodes,
        d.tasks,
        d.reused,
        tests,
        time.monotonic() - start,
        d.n_dropped,
        d.journal.problems if d.journal else [],
    )


def solve_many_distributed(
    client,
    positions: Iterable,
    board: str = "7x6",
    *,
    threads_per_task: int = 1,
    table_mib: int = 256,
    batch: Optional[int] = None,
) -> List[Result]:
    """The exact score and best move of every position of ``positions`` (move strings or
    :class:`fourfold.Position` objects of ``board``), in their order: the batch spread over
    the workers of ``client``, as ``Solver.solve_many`` spreads one over threads.

    A batch of many positions keeps every worker busy with positions of its own, which costs
    no split of any search; :func:`solve_distributed` is for one long position. Positions go
    out ``batch`` to a task (None: enough tasks for about 32 per worker, so that the last
    ones leave little idle time; at least one position a task), each task solved with
    ``Solver.solve_many`` on the worker's solver (its table carries over, as in a batch of
    the library). A worker that dies has its tasks run again elsewhere.

    Every Result has the score, best move (1-indexed, None on a full board) and nodes of
    ``Solver.solve``; ``tasks`` is 1 and ``seconds`` the driver's wall time for the whole
    batch. A bad position raises ValueError (TypeError for an object that is not a
    position) naming its index, before any task is sent."""
    start = time.monotonic()
    size = fourfold.Position("", board).board  # ValueError for a bad board
    lines: List[str] = []
    for i, item in enumerate(positions):
        if isinstance(item, fourfold.Position):
            if item.board != size:
                raise ValueError(
                    f"position {i}: the position is on a {item.board} board, the batch's is {size}"
                )
            item = item.moves
        try:
            lines.append(fourfold.Position(item, board).moves)
        except ValueError as e:
            raise ValueError(f"position {i}: {e}") from e
        except TypeError as e:
            raise TypeError(f"position {i}: {e}") from e
    if not lines:
        return []
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    if batch is None:
        batch = max(1, len(lines) // (32 * workers))
    if batch < 1:
        raise ValueError(f"batch must be at least 1, not {batch}")
    solved = _solve_in_batches(client, lines, batch, board, table_mib, threads_per_task)
    seconds = time.monotonic() - start
    return [Result(score, best, nodes, 1, 0, 0, seconds) for score, best, nodes in solved]


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
    solved = _solve_in_batches(client, lines, batch, board, table_mib, threads_per_task)
    local.write_book(path, plies, [(line, r[0]) for line, r in zip(lines, solved)])
    return len(lines)


def _solve_in_batches(
    client, lines: List[str], batch: int, board: str, table_mib: int, threads: int
) -> List[Tuple[int, Optional[int], int]]:
    """``(score, best_move, nodes)`` of every position of ``lines``, in order, solved on the
    workers ``batch`` positions to a task."""
    chunks = [lines[i : i + batch] for i in range(0, len(lines), batch)]
    futs = client.map(
        _solve_batch, chunks, board=board, table_mib=table_mib, threads=threads, pure=False
    )
    solved: List[Tuple[int, Optional[int], int]] = []
    for fut in futs:
        solved.extend(fut.result())
    return solved


def _solve_batch(
    lines: Iterable[str], board: str, table_mib: int, threads: int
) -> List[Tuple[int, Optional[int], int]]:
    """A worker's task: ``(score, best_move, nodes)`` of each of a batch of positions."""
    s = _solver(board, table_mib, threads)
    return [(r.score, r.best_move, r.nodes) for r in s.solve_many(list(lines))]
