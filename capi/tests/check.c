/* The C interface's test: calls every function of include/fourfold.h and checks the
 * answers against a test set (`<moves> <score>` per line).
 *
 *   check <test-set file> <positions>
 *
 * Built and run by .ci/run with gcc -Wall -Wextra -Werror against the header. */
#include "fourfold.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed = 0, failed = 0;

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (cond) {                                                                       \
            passed++;                                                                     \
        } else {                                                                          \
            failed++;                                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fprintf(stderr, "\n");                                                        \
        }                                                                                 \
    } while (0)

#define MAX_CASES 1000

/* The tie-break rule, written here independently: the best-scoring column nearest the
 * centre, the left one on equal distance (1-indexed). */
static int centre_first_best(const int32_t *scores) {
    int best = 0;
    for (int c = 0; c < 7; c++) {
        if (scores[c] == FF_COLUMN_FULL) continue;
        int d = abs(2 * c - 6), bd = best ? abs(2 * (best - 1) - 6) : 99;
        if (!best || scores[c] > scores[best - 1] ||
            (scores[c] == scores[best - 1] && d < bd))
            best = c + 1;
    }
    return best;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s <test-set file> <positions>\n", argv[0]);
        return 2;
    }
    size_t want = (size_t)atoi(argv[2]);
    if (want > MAX_CASES) want = MAX_CASES;
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    static char moves[MAX_CASES][64];
    static int expected[MAX_CASES];
    size_t n = 0;
    char line[128];
    while (n < want && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%63s %d", moves[n], &expected[n]) == 2) n++;
    }
    fclose(f);
    CHECK(n == want && n > 0, "read %zu of %zu positions from %s", n, want, argv[1]);

    CHECK(ff_version() != NULL && strlen(ff_version()) > 0, "version");

    ff_solver *s = NULL;
    int rc = ff_solver_new(16, 2, 7, 6, &s);
    CHECK(rc == FF_OK && s != NULL, "ff_solver_new: %d %s", rc, ff_last_error());
    if (!s) return 1;
    CHECK(strcmp(ff_last_error(), "") == 0, "no error after a success");

    const char *batch[MAX_CASES];
    for (size_t i = 0; i < n; i++) {
        ff_solution sol, weak;
        rc = ff_solve(s, moves[i], &sol);
        CHECK(rc == FF_OK && sol.score == expected[i], "ff_solve %s: rc %d score %d, want %d",
              moves[i], rc, sol.score, expected[i]);
        CHECK(sol.best_move >= 1 && sol.best_move <= 7, "best move %d", sol.best_move);
        rc = ff_solve_weak(s, moves[i], &weak);
        int sign = (expected[i] > 0) - (expected[i] < 0);
        CHECK(rc == FF_OK && weak.score == sign, "ff_solve_weak %s: %d, want %d", moves[i],
              weak.score, sign);
        int32_t scores[7];
        rc = ff_analyze(s, moves[i], scores, 7);
        int32_t best = FF_COLUMN_FULL;
        for (int c = 0; c < 7; c++)
            if (scores[c] != FF_COLUMN_FULL && scores[c] > best) best = scores[c];
        CHECK(rc == FF_OK && best == expected[i], "ff_analyze %s: best %d, want %d", moves[i],
              best, expected[i]);
        CHECK(scores[sol.best_move - 1] == sol.score, "ff_analyze agrees with best_move");
        int32_t best_move = -1, source = -1;
        rc = ff_analyze_best(s, moves[i], scores, 7, &best_move, &source);
        CHECK(rc == FF_OK && best_move == sol.best_move, "ff_analyze_best %s: %d, solve %d",
              moves[i], best_move, sol.best_move);
        CHECK(best_move == centre_first_best(scores), "tie-break %s: %d", moves[i], best_move);
        CHECK(source == sol.source, "analyze and solve sources %s", moves[i]);
        batch[i] = moves[i];
    }

    /* The batch, with a bad entry in the middle. */
    static ff_solution out[MAX_CASES + 1];
    static int status[MAX_CASES + 1];
    const char *with_bad[MAX_CASES + 1];
    size_t bad = n / 2;
    for (size_t i = 0, j = 0; i <= n; i++) with_bad[i] = i == bad ? "448" : batch[j++];
    rc = ff_solve_many(s, with_bad, n + 1, 0, out, status);
    CHECK(rc == FF_ERR_POSITION, "ff_solve_many with a bad entry: %d", rc);
    char want_msg[64];
    snprintf(want_msg, sizeof want_msg, "position %zu: column 8", bad);
    CHECK(strncmp(ff_last_error(), want_msg, strlen(want_msg)) == 0, "batch message: %s",
          ff_last_error());
    for (size_t i = 0, j = 0; i <= n; i++) {
        if (i == bad) {
            CHECK(status[i] == FF_ERR_POSITION, "bad entry status %d", status[i]);
            continue;
        }
        CHECK(status[i] == FF_OK && out[i].score == expected[j], "batch %zu: %d, want %d", i,
              out[i].score, expected[j]);
        j++;
    }
    rc = ff_solve_many(s, batch, n, 1, out, status);
    CHECK(rc == FF_OK, "weak batch: %d %s", rc, ff_last_error());
    for (size_t i = 0; i < n; i++) {
        int sign = (expected[i] > 0) - (expected[i] < 0);
        CHECK(out[i].score == sign, "weak batch %zu", i);
    }

    /* Errors: codes and the command line's messages. */
    ff_solution sol;
    rc = ff_solve(s, "448", &sol);
    CHECK(rc == FF_ERR_POSITION, "bad column: %d", rc);
    CHECK(strcmp(ff_last_error(), "column 8 at move 3 is out of range") == 0, "message: %s",
          ff_last_error());
    rc = ff_solve(s, "1212121", &sol);
    CHECK(rc == FF_ERR_POSITION && strstr(ff_last_error(), "already won"), "won: %d %s", rc,
          ff_last_error());
    CHECK(ff_solve(s, NULL, &sol) == FF_ERR_ARGUMENT, "null moves");
    CHECK(ff_solve(NULL, "4", &sol) == FF_ERR_ARGUMENT, "null solver");
    CHECK(ff_solve_weak(s, "4", NULL) == FF_ERR_ARGUMENT, "null out");
    int32_t short_scores[3];
    CHECK(ff_analyze(s, "4", short_scores, 3) == FF_ERR_ARGUMENT, "short array");
    CHECK(ff_solve(s, "\xff", &sol) == FF_ERR_ARGUMENT, "not UTF-8");

    ff_solver *t = NULL;
    CHECK(ff_solver_new(16, 1, 13, 4, &t) == FF_ERR_BOARD && t == NULL, "13x4: %s",
          ff_last_error());
    CHECK(strstr(ff_last_error(), "4 to 12 columns") != NULL, "13x4 message: %s",
          ff_last_error());
    /* A 10-column board: column 10 is `a` in move strings. */
    CHECK(ff_solver_new(16, 1, 10, 4, &t) == FF_OK && t != NULL, "10x4: %s", ff_last_error());
    if (t) {
        /* A late position (12 empty cells): a quick solve. */
        CHECK(ff_solve(t, "92464a4a79789961686417385281", &sol) == FF_OK, "10x4 solve: %s",
              ff_last_error());
        ff_solver_free(t);
        t = NULL;
    }
    CHECK(ff_solver_new(16, 0, 7, 6, &t) == FF_ERR_BUILD && t == NULL, "0 threads: %s",
          ff_last_error());
    CHECK(strlen(ff_last_error()) > 0, "build error message");
    CHECK(ff_solver_new(16, 1, 7, 6, NULL) == FF_ERR_ARGUMENT, "null out");

    /* The book: a new 7x6 solver answers the first moves from the shipped book, with the
     * test set's scores; without a book the same positions are searched. */
    static const char *early[] = {"", "4", "44", "445"};
    int ties = 0;
    for (size_t i = 0; i < sizeof early / sizeof *early; i++) {
        rc = ff_solve(s, early[i], &sol);
        CHECK(rc == FF_OK && sol.source == FF_SOURCE_BOOK, "book %s: %d source %d", early[i],
              rc, sol.source);
        int32_t scores[7], best_move = -1, source = -1;
        rc = ff_analyze_best(s, early[i], scores, 7, &best_move, &source);
        CHECK(rc == FF_OK && source == FF_SOURCE_BOOK && best_move == sol.best_move &&
                  best_move == centre_first_best(scores),
              "book analyze %s: best %d solve %d", early[i], best_move, sol.best_move);
        for (int c = 0; c < 7; c++)
            if (c + 1 != best_move && scores[c] == scores[best_move - 1]) ties++;
    }
    CHECK(ties > 0, "a book position with a tie");
    /* Begin-Hard's lines of at most three moves: from the book, with the set's scores. */
    FILE *hard = fopen("tests/data/Test_L1_R3", "r");
    CHECK(hard != NULL, "tests/data/Test_L1_R3");
    int covered = 0;
    while (hard && fgets(line, sizeof line, hard)) {
        char m[64];
        int want_score;
        if (sscanf(line, "%63s %d", m, &want_score) != 2 || strlen(m) > 3) continue;
        covered++;
        rc = ff_solve(s, m, &sol);
        CHECK(rc == FF_OK && sol.source == FF_SOURCE_BOOK && sol.score == want_score,
              "book %s: %d, want %d", m, sol.score, want_score);
    }
    if (hard) fclose(hard);
    CHECK(covered > 10, "only %d covered positions", covered);
    CHECK(ff_solver_set_book(s, "no-such.book") == FF_ERR_BOOK, "missing book");
    CHECK(strstr(ff_last_error(), "no-such.book") != NULL, "book message: %s", ff_last_error());
    CHECK(ff_solver_set_book(NULL, NULL) == FF_ERR_ARGUMENT, "null solver book");
    CHECK(ff_solver_set_book(s, NULL) == FF_OK, "no book: %s", ff_last_error());
    rc = ff_solve(s, moves[0], &sol);
    CHECK(rc == FF_OK && sol.source == FF_SOURCE_SEARCH && sol.score == expected[0],
          "searched without a book: %d", rc);
    CHECK(ff_solver_set_book(s, "books/7x6-2.book") == FF_OK, "2-ply book: %s",
          ff_last_error());
    rc = ff_solve(s, "4", &sol);
    CHECK(rc == FF_OK && sol.source == FF_SOURCE_BOOK, "2-ply book answers 4: %d", rc);
    ff_solution shipped;
    ff_solver *u = NULL;
    CHECK(ff_solver_new(16, 1, 7, 6, &u) == FF_OK, "second solver");
    if (u) {
        CHECK(ff_solve(u, "4", &shipped) == FF_OK && shipped.score == sol.score &&
                  shipped.best_move == sol.best_move,
              "two books agree on 4");
        ff_solver_free(u);
    }
    ff_solver *w = NULL;
    CHECK(ff_solver_new(16, 1, 6, 7, &w) == FF_OK, "6x7 solver");
    if (w) {
        CHECK(ff_solver_set_book(w, "books/7x6-4.book") == FF_ERR_BOOK, "7x6 book on 6x7");
        CHECK(strstr(ff_last_error(), "7x6") != NULL, "wrong-board message: %s",
              ff_last_error());
        ff_solver_free(w);
    }
    CHECK(ff_solver_set_book(s, NULL) == FF_OK, "no book again");

    /* Stop: the empty board (no book) takes far longer than the poll interval. */
    ff_solver_stop(s, 1);
    rc = ff_solve(s, "", &sol);
    CHECK(rc == FF_ERR_INTERRUPTED, "stopped solve: %d", rc);
    CHECK(strstr(ff_last_error(), "stopped") != NULL, "stop message: %s", ff_last_error());
    ff_solver_stop(s, 0);
    rc = ff_solve(s, moves[0], &sol);
    CHECK(rc == FF_OK && sol.score == expected[0], "after stop: %d", rc);

    ff_solver_free(s);
    ff_solver_free(NULL);
    ff_solver_stop(NULL, 1);

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
