/*
 * fourfold.h: the C interface of fourfold, a multi-threaded Connect-4 solver.
 *
 * Link with -lfourfold (libfourfold.so, built by `cargo build --release -p fourfold-capi`
 * into target/release/). Written by hand to match capi/src/lib.rs; CI compiles
 * capi/tests/check.c, which calls every function, against it with -Wall -Werror.
 *
 * Positions are move strings: one digit per move, the 1-indexed column, first player first
 * ("4453"; "" is the empty board). Scores are for the player to move: on 7x6, 22 - s for a
 * win with the player's s-th stone, its negation for a loss, 0 for a draw.
 *
 * Errors: every function returning int returns FF_OK (0) or an FF_ERR_* code, and then
 * ff_last_error() gives the message (the same text as the fourfold command line's).
 *
 * Threads: one solver may be used by several threads at once (each call is its own solve
 * on the shared table); ff_solver_free must not race any other call on that solver. The last
 * error message is per thread. No Rust panic crosses into C (FF_ERR_INTERNAL instead).
 */
#ifndef FOURFOLD_H
#define FOURFOLD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define FF_OK 0
#define FF_ERR_POSITION 1    /* the move string is not a legal, unfinished game */
#define FF_ERR_INTERRUPTED 2 /* stopped by ff_solver_stop */
#define FF_ERR_BUILD 3       /* the solver could not be built (table size, threads) */
#define FF_ERR_BOARD 4       /* the board size is not supported */
#define FF_ERR_ARGUMENT 5    /* a null pointer, a string not UTF-8, an array too short,
                                or another argument out of range */
#define FF_ERR_INTERNAL 6    /* a bug in fourfold */
#define FF_ERR_BOOK 7        /* a book file that cannot be read or is for another board */
#define FF_ERR_CHECKPOINT 8  /* a checkpoint file that cannot be written or read, or is
                                corrupt, truncated or for another board (no function takes
                                one yet: every library error has its code) */

/* Where an answer came from (ff_solution.source, ff_analyze_best). */
#define FF_SOURCE_SEARCH 0 /* a search */
#define FF_SOURCE_BOOK 1   /* the opening book: no search */

/* The score of a full column in ff_analyze's output. */
#define FF_COLUMN_FULL INT32_MIN

/* An opaque solver with its own transposition table. */
typedef struct FfSolver ff_solver;

/* The result of a solve. */
typedef struct ff_solution {
    int32_t score;     /* for the player to move; -1/0/1 for a weak solve */
    int32_t best_move; /* the best column, 1-indexed (among equal scores the first in the
                        * centre-first order 4 3 5 2 6 1 7 on 7 columns); 0 on a full board */
    uint64_t nodes;    /* nodes searched */
    uint64_t micros;   /* wall time in microseconds */
    int32_t source;    /* FF_SOURCE_SEARCH or FF_SOURCE_BOOK */
} ff_solution;

/* Creates a solver: table of table_mib MiB (at least 1), threads per solve (at least 1),
 * width x height board (7 x 6). On success *out is the solver; free it with
 * ff_solver_free. */
int ff_solver_new(uint32_t table_mib, uint32_t threads, uint32_t width, uint32_t height,
                  ff_solver **out);

/* Frees a solver; NULL is allowed. */
void ff_solver_free(ff_solver *s);

/* Sets the solver's opening book: the book file at path (written by `fourfold book build`),
 * or none when path is NULL (every position is then searched). A new 7 x 6 solver starts
 * with the book shipped inside the library. Must not race other calls on the same solver.
 * On error (FF_ERR_BOOK) the solver keeps its book. */
int ff_solver_set_book(ff_solver *s, const char *path);

/* The exact score and a best move of the position. */
int ff_solve(const ff_solver *s, const char *moves, ff_solution *out);

/* Win (1), draw (0) or loss (-1) for the player to move, and a move keeping it. */
int ff_solve_weak(const ff_solver *s, const char *moves, ff_solution *out);

/* The score of every column for the player to move into scores[0 .. width - 1]
 * (FF_COLUMN_FULL for a full column); len is the array's length, at least the width. */
int ff_analyze(const ff_solver *s, const char *moves, int32_t *scores, size_t len);

/* As ff_analyze, and the best column (1-indexed, the same as ff_solve's: among equal scores
 * the first in the centre-first order, 4 3 5 2 6 1 7 on 7 columns; 0 on a full board) into
 * *best_move and the source (FF_SOURCE_*) into *source; either may be NULL. */
int ff_analyze_best(const ff_solver *s, const char *moves, int32_t *scores, size_t len,
                    int32_t *best_move, int32_t *source);

/* Solves n positions across the solver's threads: out[i] and status[i] for moves[i].
 * Returns FF_OK when all succeeded, else the first failure's code, whose message
 * ("position <i>: ...", 0-based) is the last error. weak nonzero: win/draw/loss only. */
int ff_solve_many(const ff_solver *s, const char *const *moves, size_t n, int weak,
                  ff_solution *out, int *status);

/* Raises (stop nonzero) or lowers (stop zero) the solver's stop flag: solves in progress
 * or started while it is up return FF_ERR_INTERRUPTED. Callable from any thread. */
void ff_solver_stop(const ff_solver *s, int stop);

/* The message of the last failed call on this thread ("" after a success); valid until
 * the next call into fourfold on this thread. Never NULL. */
const char *ff_last_error(void);

/* The library version, e.g. "0.1.0". */
const char *ff_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FOURFOLD_H */
