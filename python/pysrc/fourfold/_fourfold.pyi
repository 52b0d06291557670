"""fourfold._fourfold: the compiled extension, re-exported by the package fourfold (type stubs)."""

import os
from typing import Iterable, List, Optional, Tuple, Union

__version__: str

class Solution:
    """The result of a solve."""

    @property
    def score(self) -> int:
        """Score for the player to move: 22 - s for a win with their s-th stone (7x6), its
        negation for a loss, 0 for a draw; -1/0/1 for a weak solve."""
    @property
    def best_move(self) -> Optional[int]:
        """The column (1-indexed) achieving the score, the first in the centre-first order
        (4 3 5 2 6 1 7 on 7 columns) when several do; None when the board is full."""
    @property
    def nodes(self) -> int:
        """Nodes searched."""
    @property
    def micros(self) -> float:
        """Wall time of the solve in microseconds."""
    @property
    def outcome(self) -> Optional[str]:
        """The end of the game with perfect play in words ("first player wins on move 41",
        "draw"); None for a weak solve."""
    @property
    def weak(self) -> bool:
        """True for a win/draw/loss solve."""
    @property
    def source(self) -> str:
        """"book" (from the opening book, no search) or "search"."""

class Analysis:
    """The score of every column of a position (Solver.analysis)."""

    @property
    def scores(self) -> List[Optional[int]]:
        """For each column (index 0 is column 1) the score after playing there; None when full."""
    @property
    def best_move(self) -> Optional[int]:
        """The best column (1-indexed), the same as solve's: among equal scores the first in
        the centre-first order (4 3 5 2 6 1 7 on 7 columns); None on a full board."""
    @property
    def best_moves(self) -> List[int]:
        """Every column with the best score (1-indexed), the best move first."""
    @property
    def nodes(self) -> int: ...
    @property
    def micros(self) -> float: ...
    @property
    def source(self) -> str:
        """"book" (from the opening book, no search) or "search"."""

class WindowResult:
    """The result of Solver.solve_window: what one search with the window (alpha, beta) proved."""

    @property
    def value(self) -> int:
        """The value the search returned (see bound)."""
    @property
    def bound(self) -> str:
        """"exact" (the score is value), "lower" (at least value, value >= beta) or "upper"
        (at most value, value <= alpha)."""
    @property
    def nodes(self) -> int: ...
    @property
    def micros(self) -> float: ...
    def above(self, x: int) -> Optional[bool]:
        """True when the score is proven above x, False when proven at most x, None when
        undecided by this result."""

class Position:
    """A position on any board the Solver takes (7x6 by default), immutable: play returns a
    new Position. Parsing, playing and wins are the library's."""

    def __init__(self, moves: str = "", board: str = "7x6") -> None:
        """Parses a move string (1-indexed columns, first player first; columns 10-12 are
        a, b, c); ValueError with the command line's message when it is illegal or its game
        is already won."""
    @staticmethod
    def parse(moves: str, board: str = "7x6") -> "Position":
        """As the constructor."""
    @property
    def board(self) -> str:
        """The board size, "WxH"."""
    def play(self, column: int) -> "Position":
        """The position after a stone in column (1-indexed); may be won (is_won)."""
    @property
    def moves(self) -> str:
        """The move string."""
    def legal_moves(self) -> List[int]:
        """Playable columns (1-indexed); empty when the game is over."""
    def can_play(self, column: int) -> bool: ...
    def is_winning_move(self, column: int) -> bool: ...
    @property
    def is_won(self) -> bool:
        """True when the last move completed a four."""
    @property
    def is_full(self) -> bool: ...
    @property
    def to_move(self) -> int:
        """1 (first player) or 2 (second)."""
    def mirror(self) -> "Position":
        """The mirror image (column c becomes width + 1 - c)."""
    def __len__(self) -> int:
        """Stones played."""
    def __str__(self) -> str:
        """The board, top row first: X first player, O second, . empty."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

PositionLike = Union[str, Position]

def centre_order(board: str = "7x6") -> List[int]:
    """The columns (1-indexed) from the centre outwards (4 3 5 2 6 1 7 on 7x6): the search's
    order and the tie-break rule of the best move."""

class Solver:
    """A solver with its own transposition table, reused across solves. Bad input raises
    ValueError with the command line's message; Ctrl-C stops a solve (KeyboardInterrupt)."""

    def __init__(
        self,
        table_mib: int = 256,
        threads: Optional[int] = None,
        board: str = "7x6",
        book: Optional[Union[str, "os.PathLike[str]"]] = "shipped",
    ) -> None:
        """table_mib: table size in MiB; threads: threads per solve and positions solved at
        once by solve_many (default: all cores); board: "WxH": any size
        the command line's --board takes (4..=12 x 4..=13 up to 128-bit positions);
        book: "shipped" (the opening book inside the library, 7x6 only), a book file's path,
        or None to search every position."""
    def solve(self, position: PositionLike) -> Solution:
        """The exact score and a best move."""
    def solve_weak(self, position: PositionLike) -> Solution:
        """Win (1), draw (0) or loss (-1) and a move keeping it."""
    def analyze(self, position: PositionLike) -> List[Optional[int]]:
        """The score of every column (index 0 is column 1); None for a full column."""
    def analysis(self, position: PositionLike) -> Analysis:
        """As analyze, with the best move, nodes, time and the source."""
    def solve_many(self, positions: Iterable[PositionLike], weak: bool = False) -> List[Solution]:
        """A batch across all threads, results in input order. Every entry is checked first:
        a bad one raises ValueError("position <index>: <message>") before anything is solved."""
    def solve_window(self, position: PositionLike, alpha: int, beta: int) -> WindowResult:
        """One search with the window (alpha, beta), alpha < beta, on the solver's threads and
        table, without the book. "Is the score above x?" is (x, x + 1). A stop raises
        RuntimeError (its .nodes: the nodes searched; .lower, .upper: the bounds proven),
        never a guess."""
    def book_positions(self, plies: int) -> List[str]:
        """The positions of an opening book of depth plies on this board, as move strings."""
    def write_book(
        self, path: Union[str, "os.PathLike[str]"], plies: int, scores: Iterable[Tuple[str, int]]
    ) -> None:
        """Writes the book of depth plies made of (move string, exact score) pairs covering
        exactly book_positions(plies): the file `fourfold book build` writes."""
    def stop(self) -> None:
        """Stops the solves in progress (RuntimeError), or else the next one."""
    @property
    def threads(self) -> int: ...
    @property
    def table_mib(self) -> int: ...
    @property
    def board(self) -> str: ...
    @property
    def book(self) -> Optional[str]:
        """The book argument: "shipped", a path, or None."""
    @property
    def book_plies(self) -> Optional[int]:
        """The depth of the book in use (it answers every position with fewer stones); None
        without a book."""
