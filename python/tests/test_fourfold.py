"""Tests of the fourfold Python package against the public test sets in tests/data."""

import os
import pathlib
import shutil
import signal
import subprocess
import threading
import time

import pytest

import fourfold

ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def cases(name, n):
    """The first n `(moves, score)` pairs of a test set."""
    out = []
    with open(DATA / name) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2:
                out.append((fields[0], int(fields[1])))
            if len(out) == n:
                break
    assert len(out) == n
    return out


def sign(x):
    return (x > 0) - (x < 0)


@pytest.fixture(scope="module")
def solver():
    return fourfold.Solver(table_mib=16, threads=2)


@pytest.mark.parametrize("name,n", [("Test_L3_R1", 40), ("Test_L2_R1", 8)])
def test_solve_weak_and_analyze_match_the_test_sets(solver, name, n):
    for moves, score in cases(name, n):
        s = solver.solve(moves)
        assert s.score == score, moves
        assert not s.weak
        assert s.best_move is not None and 1 <= s.best_move <= 7
        assert s.nodes >= 0 and s.micros >= 0
        assert (s.outcome == "draw") == (score == 0)
        if score != 0:
            assert " wins on move " in s.outcome
        w = solver.solve_weak(moves)
        assert w.weak and w.outcome is None
        assert w.score == sign(score), moves
        a = solver.analyze(moves)
        assert len(a) == 7
        assert max(x for x in a if x is not None) == score, moves
        assert a[s.best_move - 1] == score
        assert solver.solve(fourfold.Position(moves)).score == score


def test_outcome_words_follow_the_score(solver):
    moves, score = cases("Test_L3_R1", 1)[0]
    s = solver.solve(moves)
    stones = len(moves)
    mover_first = stones % 2 == 0
    if score == 0:
        assert s.outcome == "draw"
    else:
        winner_first = mover_first == (score > 0)
        who = "first player" if winner_first else "second player"
        assert s.outcome.startswith(who + " wins on move ")
        on_move = int(s.outcome.rsplit(" ", 1)[1])
        assert stones < on_move <= 42


def test_solve_many_keeps_input_order(solver):
    batch = cases("Test_L3_R1", 60) + cases("Test_L2_R1", 4)
    results = solver.solve_many([m for m, _ in batch])
    assert [r.score for r in results] == [s for _, s in batch]
    weak = solver.solve_many((fourfold.Position(m) for m, _ in batch), weak=True)
    assert [r.score for r in weak] == [sign(s) for _, s in batch]
    assert solver.solve_many([]) == []


def test_solve_many_names_the_bad_entry(solver):
    batch = [m for m, _ in cases("Test_L3_R1", 5)]
    batch.insert(3, "448")
    with pytest.raises(ValueError) as e:
        solver.solve_many(batch)
    assert str(e.value) == "position 3: column 8 at move 3 is out of range"
    with pytest.raises(TypeError):
        solver.solve_many(["44", 5])


BAD = ["448", "4a", "1212121", "1111111", "40"]


@pytest.mark.parametrize("moves", BAD)
def test_bad_input_raises_the_command_lines_message(solver, moves):
    with pytest.raises(ValueError) as e:
        solver.solve(moves)
    msg = str(e.value)
    assert msg
    for call in (solver.solve_weak, solver.analyze, fourfold.Position):
        with pytest.raises(ValueError) as e2:
            call(moves)
        assert str(e2.value) == msg
    cli = ROOT / "target" / "release" / "fourfold"
    if not cli.exists():
        cli = shutil.which("fourfold")
    if cli is None:
        pytest.skip("no fourfold command built")
    r = subprocess.run([str(cli), "solve", moves], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert msg in r.stderr


def test_bad_solver_settings():
    with pytest.raises(ValueError, match="threads"):
        fourfold.Solver(table_mib=1, threads=0)
    with pytest.raises(ValueError, match="4 to 12 columns"):
        fourfold.Solver(table_mib=1, board="13x4")
    with pytest.raises(ValueError, match="board size"):
        fourfold.Solver(table_mib=1, board="seven")
    with pytest.raises(TypeError):
        fourfold.Solver(table_mib=1).solve(4453)
    s = fourfold.Solver(table_mib=1, threads=1, board="7x6")
    assert (s.table_mib, s.threads, s.board) == (1, 1, "7x6")


def test_position():
    moves, _ = cases("Test_L3_R1", 1)[0]
    p = fourfold.Position(moves)
    assert p.moves == moves and len(p) == len(moves)
    assert fourfold.Position.parse(moves) == p
    assert repr(p) == 'Position("%s")' % moves
    board = str(p).splitlines()
    assert len(board) == 7 and board[-1].split() == [str(c) for c in range(1, 8)]
    stones = sum(row.count("X") + row.count("O") for row in board[:-1])
    assert stones == len(moves)
    m = p.mirror()
    assert m.moves == "".join(str(8 - int(c)) for c in moves)
    assert m.mirror() == p and hash(m.mirror()) == hash(p)
    # Two move orders to the same stones are the same position.
    assert fourfold.Position("1234") == fourfold.Position("3214")
    assert fourfold.Position("12") != fourfold.Position("21")
    assert p.to_move == len(moves) % 2 + 1
    q = fourfold.Position()
    assert len(q) == 0 and q.legal_moves() == list(range(1, 8))
    for _ in range(6):
        q = q.play(1)
    assert not q.can_play(1) and 1 not in q.legal_moves()
    with pytest.raises(ValueError, match="full"):
        q.play(1)
    with pytest.raises(ValueError, match="out of range"):
        q.play(8)
    with pytest.raises(ValueError):
        q.play(0)


def test_won_positions():
    p = fourfold.Position("121212")
    assert p.is_winning_move(1) and not p.is_winning_move(2)
    won = p.play(1)
    assert won.is_won and won.moves == "1212121"
    assert won.legal_moves() == [] and not won.can_play(3)
    assert won.mirror().is_won
    with pytest.raises(ValueError, match="already won"):
        won.play(3)
    with pytest.raises(ValueError, match="already won"):
        fourfold.Solver(table_mib=1).solve(won)


def test_the_gil_is_released_while_solving():
    s = fourfold.Solver(table_mib=16, threads=1)
    hard = [m for m, _ in cases("Test_L1_R2", 5)]
    t = threading.Thread(target=s.solve_many, args=(hard,))
    spins = 0
    t.start()
    while t.is_alive():
        spins += 1
    t.join()
    assert spins > 1000


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name != "posix", reason="POSIX only")
def test_ctrl_c_stops_a_long_solve():
    s = fourfold.Solver(table_mib=16, threads=1, book=None)
    timer = threading.Timer(0.5, os.kill, args=(os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            s.solve("")  # the empty board takes minutes
    finally:
        timer.cancel()
    assert time.monotonic() - start < 30
    # The solver works again afterwards.
    moves, score = cases("Test_L3_R1", 1)[0]
    assert s.solve(moves).score == score


def test_stop_from_another_thread():
    s = fourfold.Solver(table_mib=16, threads=1, book=None)
    timer = threading.Timer(0.5, s.stop)
    timer.start()
    try:
        with pytest.raises(RuntimeError, match="stopped"):
            s.solve("")
    finally:
        timer.cancel()


def test_other_board_sizes():
    # On 10x4 column 10 is written `a`.
    s = fourfold.Solver(table_mib=16, threads=1, board="10x4")
    assert s.board == "10x4"
    late = "92464a4a79789961686417385281"  # 12 empty cells: a quick solve
    r = s.solve(late)
    assert r.best_move is not None and 1 <= r.best_move <= 10
    assert len(s.analyze(late)) == 10
    with pytest.raises(ValueError, match="column 11"):
        s.solve("5b")
    # 8x8 (128-bit positions): built, and its moves checked against its eight columns.
    wide = fourfold.Solver(table_mib=16, threads=1, board="8x8")
    assert wide.board == "8x8"
    with pytest.raises(ValueError, match="column 9"):
        wide.solve("9")


def centre_first_best(scores):
    """The tie-break rule, written here independently: the best-scoring column nearest the
    centre, the left one on equal distance (1-indexed)."""
    best = max(x for x in scores if x is not None)
    cols = [c for c in range(len(scores)) if scores[c] == best]
    mid = (len(scores) - 1) / 2
    return min(cols, key=lambda c: (abs(c - mid), c)) + 1


def test_the_shipped_book_answers_the_first_moves(solver):
    # The library ships books/7x6-6.book.
    assert solver.book == "shipped" and solver.book_plies == 6
    s = solver.solve("")
    assert s.source == "book" and s.score == 1 and s.best_move == 4
    a = solver.analysis("44")
    assert a.source == "book"
    assert a.scores == solver.analyze("44")
    assert a.best_move == solver.solve("44").best_move
    assert solver.solve_weak("").source == "book"
    # Every test-set position with fewer stones than the book's depth: from the book, and
    # the test set's score.
    early = [
        (m, v)
        for n in ("Test_L1_R1", "Test_L1_R3")
        for m, v in cases(n, 1000)
        if len(m) < solver.book_plies
    ]
    assert len(early) > 10
    for m, v in early:
        r = solver.solve(m)
        assert (r.source, r.score) == ("book", v), m
    # Past the book: a search.
    late, score = cases("Test_L3_R1", 1)[0]
    assert solver.solve(late).source == "search"


def test_book_none_or_a_file():
    none = fourfold.Solver(table_mib=16, threads=1, book=None)
    assert none.book is None and none.book_plies is None
    late, score = cases("Test_L3_R1", 1)[0]
    r = none.solve(late)
    assert (r.source, r.score) == ("search", score)
    assert none.analysis(late).source == "search"
    two = fourfold.Solver(table_mib=16, threads=1, book=ROOT / "books" / "7x6-2.book")
    assert two.book_plies == 2
    shipped = fourfold.Solver(table_mib=16, threads=1)
    # Two books built apart agree where both answer.
    for m in ["", "1", "4", "7"]:
        a, b = two.analysis(m), shipped.analysis(m)
        assert a.source == b.source == "book"
        assert a.scores == b.scores, m
    with pytest.raises(ValueError, match="no-such.book"):
        fourfold.Solver(table_mib=16, threads=1, book="no-such.book")
    with pytest.raises(ValueError, match="7x6"):
        fourfold.Solver(table_mib=16, threads=1, board="6x7", book=ROOT / "books" / "7x6-4.book")
    # Other boards have no shipped book: the default is none.
    assert fourfold.Solver(table_mib=16, threads=1, board="5x4").book_plies is None


def test_ties_break_centre_first_on_every_path(solver):
    ties = 0
    positions = [m for m, _ in cases("Test_L3_R1", 40)] + ["", "4", "44", "445", "453"]
    for m in positions:
        a = solver.analysis(m)
        expected = centre_first_best(a.scores)
        assert a.best_move == expected, m
        assert a.best_moves[0] == expected, m
        assert solver.solve(m).best_move == expected, m
        best = max(x for x in a.scores if x is not None)
        lowest = a.scores.index(best) + 1
        ties += lowest != expected
    assert ties > 0


def test_negative_settings_are_value_errors():
    with pytest.raises(ValueError, match="table size must be at least 1 MiB, not -1"):
        fourfold.Solver(table_mib=-1)
    with pytest.raises(ValueError, match="threads must be at least 1, not -2"):
        fourfold.Solver(table_mib=1, threads=-2)
    with pytest.raises(ValueError, match="larger than the maximum"):
        fourfold.Solver(table_mib=2**70)


COLS = "123456789abc"


class Oracle:
    """An independent plain-Python board: drops stones and looks for fours."""

    def __init__(self, w, h):
        self.w, self.h = w, h
        self.cells = [[None] * h for _ in range(w)]  # cells[col][row], row 0 at the bottom
        self.n = 0

    def height(self, c):
        return sum(x is not None for x in self.cells[c])

    def wins(self, c):
        r, me = self.height(c), self.n % 2 == 0
        for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            run = 1
            for s in (1, -1):
                k = 1
                while True:
                    cc, rr = c + s * k * dc, r + s * k * dr
                    if not (0 <= cc < self.w and 0 <= rr < self.h) or self.cells[cc][rr] != me:
                        break
                    run += 1
                    k += 1
            if run >= 4:
                return True
        return False

    def play(self, c):
        self.cells[c][self.height(c)] = self.n % 2 == 0
        self.n += 1

    def text(self):
        rows = [
            " ".join({True: "X", False: "O", None: "."}[self.cells[c][r]] for c in range(self.w))
            for r in reversed(range(self.h))
        ]
        return "\n".join(rows + [" ".join(COLS[: self.w])])


@pytest.mark.parametrize("board", ["7x6", "5x4", "10x4"])
def test_position_on_any_board_against_an_oracle(board):
    import random

    w, h = map(int, board.split("x"))
    rng = random.Random(7)
    for game in range(30):
        p, o = fourfold.Position(board=board), Oracle(w, h)
        assert p.board == board
        while True:
            legal = [c + 1 for c in range(w) if o.height(c) < h]
            assert p.legal_moves() == legal
            assert [p.is_winning_move(c) for c in range(1, w + 1)] == [
                o.height(c) < h and o.wins(c) for c in range(w)
            ]
            assert str(p) == o.text() and len(p) == o.n and p.to_move == o.n % 2 + 1
            assert fourfold.Position(p.moves, board=board) == p
            if not legal:
                assert p.is_full and not p.is_won
                break
            c = rng.choice(legal)
            won = o.wins(c - 1)
            p2 = p.play(c)
            o.play(c - 1)
            assert p2.moves == p.moves + COLS[c - 1] and p2.is_won == won
            m = p2.mirror()
            assert m.is_won == won and m.mirror() == p2 and len(m) == len(p2)
            p = p2
            if won:
                assert p.legal_moves() == []
                with pytest.raises(ValueError, match="already won"):
                    p.play(legal[0])
                with pytest.raises(ValueError, match="already won"):
                    fourfold.Position(p.moves, board=board)
                break
    with pytest.raises(ValueError, match="out of range"):
        fourfold.Position(board=board).play(w + 1)


def test_positions_of_other_boards_are_solved_on_their_solver():
    s = fourfold.Solver(table_mib=16, threads=1, board="5x4")
    p = fourfold.Position("3", board="5x4")
    assert s.solve(p).score == s.solve("3").score
    assert s.analyze(p) == s.analyze("3")
    assert repr(p) == 'Position("3", board="5x4")'
    with pytest.raises(ValueError, match="5x4 board, the solver's is 7x6"):
        fourfold.Solver(table_mib=1).solve(p)


def test_an_empty_search_window_is_a_value_error():
    # alpha >= beta: the library's Window error, a bad argument.
    s = fourfold.Solver(table_mib=4, threads=1)
    for alpha, beta in [(1, 1), (2, -3)]:
        with pytest.raises(ValueError, match=r"the window \(%d, %d\) is empty" % (alpha, beta)):
            s.solve_window("4453", alpha, beta)
    # A good window on the same position answers (the score is proven against 0).
    r = s.solve_window("4453", 0, 1)
    assert r.bound in ("lower", "upper")
