"""fourfold: a multi-threaded Connect-4 solver.

Solver solves positions (exact score, win/draw/loss, every column, batches across threads,
one search window); Position parses and plays move strings; Solution, Analysis and
WindowResult are results. Everything here is the compiled extension `fourfold._fourfold`
(the Rust library); `fourfold.distributed` (optional: `pip install ./python[distributed]`)
spreads a solve or a book build over a Dask cluster.
"""

from ._fourfold import (  # noqa: F401
    Analysis,
    Position,
    Solution,
    Solver,
    WindowResult,
    __version__,
    centre_order,
)

__all__ = ["Analysis", "Position", "Solution", "Solver", "WindowResult", "__version__", "centre_order"]
