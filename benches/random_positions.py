#!/usr/bin/env python3
"""Random positions of a board by random play from a fixed seed (BENCHMARKS.md, "16-byte
table slots"): legal move strings of `plies` moves in which nobody has four in a row yet.

usage: random_positions.py WIDTH HEIGHT PLIES COUNT SEED
"""
import random
import sys


def wins(grid, w, h, col, row, who):
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for sign in (1, -1):
            c, r = col + sign * dc, row + sign * dr
            while 0 <= c < w and 0 <= r < h and grid[c][r] == who:
                n += 1
                c, r = c + sign * dc, r + sign * dr
        if n >= 4:
            return True
    return False


def game(rng, w, h, plies):
    grid = [[None] * h for _ in range(w)]
    moves = []
    for ply in range(plies):
        who = ply % 2
        cols = [c for c in range(w) if grid[c][h - 1] is None]
        rng.shuffle(cols)
        for c in cols:
            r = grid[c].index(None)
            if not wins(grid, w, h, c, r, who):
                grid[c][r] = who
                moves.append(c)
                break
        else:
            return None
    return "".join("123456789abc"[c] for c in moves)


def main():
    w, h, plies, count, seed = map(int, sys.argv[1:6])
    rng = random.Random(seed)
    out = 0
    while out < count:
        g = game(rng, w, h, plies)
        if g is not None:
            print(g)
            out += 1


main()
