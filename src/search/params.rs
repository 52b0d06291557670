//! [`Params`]: the search's tuning knobs, with the defaults measured best.

#[cfg(doc)]
use crate::{position::Position, table::Table};

/// Tuning knobs of the search. The defaults are the measured best on 7 x 6; the thresholds of
/// depth count empty cells (the size of what is left to search), so that they carry over to
/// every board, except `defer_below`, `zero_window_below` and `first_move_guess_below`
/// (stones: the plies nearest the root).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Threat-based ordering while more than this many cells are empty; the static
    /// centre-first order after.
    pub threat_order_min_empty: u32,
    /// Extra weight in the threat score (see `ordering::threat_score`): bit 0 threats on
    /// the mover's rows, bit 1 threats playable at once, bit 2 weighted low useful threats
    /// instead of the plain count.
    pub threat_bonus: u32,
    /// ETC (probing the children) at the nodes that do not store while more than this many
    /// cells are empty.
    pub etc_min_empty: u32,
    /// Use the table on every ply instead of even plies only.
    pub table_every_ply: bool,
    /// While at least this many cells are empty (0: never), use the table on every ply,
    /// and let a node whose own entry gave no move probe its children too (ETC); once the
    /// thread has searched `every_ply_after` nodes.
    pub every_ply_min_empty: u32,
    /// The nodes a thread's search counts before `every_ply_min_empty` applies. The extra
    /// probes near the root pay in long searches, whose subtrees there are large, and cost
    /// time in short ones (docs/search-ledger.md, "Where the table is used: every ply near the root,
    /// ETC"); the count tells them apart.
    pub every_ply_after: u64,
    /// Windows with `beta >= forcing_from` or `alpha <= -forcing_from` (is there a quick
    /// win, for either side?) add the threats playable at once to the threat score
    /// (`threat_bonus` bit 1).
    pub forcing_from: u32,
    /// Use the table while at least this many cells are empty (0: at every depth, on every
    /// board). Counted in empty cells, not stones, so that no board loses the table on its
    /// late plies.
    pub table_min_empty: u32,
    /// Stores of searches of at least this many nodes look for their slot again.
    pub rescan_work: u64,
    /// Use the parity bounds at all: the follow-up (claim-even)
    /// bounds, and the odd-threat ones as `odd_threat` and `odd_threat_ahead` say.
    pub claim_even: bool,
    /// Extend claim-even to positions with odd-filled columns (see `follow_up_bound`).
    pub claim_even_general: bool,
    /// Positions with fewer stones than this start the exact-score driver with the window
    /// around 0 (their score is usually small) rather than halfway to a bound.
    pub zero_window_below: u32,
    /// With the window around 0, the first test asks "is the score above `first_test`?":
    /// 0 (the default) whether the first player wins, -1 whether it does not lose. Then
    /// one step at a time away from it.
    pub first_test: i32,
    /// With one thread, on a root of fewer stones than this (and than `zero_window_below`),
    /// ask the first test of the first move alone before the root (see
    /// `Searcher::first_move_guess`): when that move is not even above `first_test - 1`, the
    /// driver starts one step lower. 1: the empty board only; 0: never.
    pub first_move_guess_below: u32,
    /// While at most this many cells are empty (0: never), the children's own first stages
    /// run before any child is searched: a child they decide is not searched (see
    /// `Searcher::static_children`).
    pub static_children_empty: u32,
    /// With several threads, put off children another thread is searching while fewer than
    /// this many stones are down. Near the root only: every child entered below it is marked
    /// and unmarked in a shared set (two atomic writes), which deeper costs more time than
    /// the deferrals save.
    pub defer_below: u32,
    /// Only helper threads put off busy children; the main thread keeps its order. Off by
    /// default: the main thread puts them off too.
    pub only_helpers_defer: bool,
    /// Helper threads test a window next to the main thread's instead of the same one.
    pub helper_windows: bool,
    /// A thread abandons its null-window test once the bounds other threads proved answer
    /// it (read at its polls), and goes on with the next test, instead of finishing it.
    pub abandon_settled: bool,
    /// Prefetch the children's buckets while ordering moves.
    pub prefetch: bool,
    /// Use the odd-threat bound (see `odd_threat_bound`) on positions with an odd number
    /// of empty cells: a lower bound for the first player, an upper one for the second.
    pub odd_threat: bool,
    /// Also try it one move ahead, after each of the first player's moves.
    pub odd_threat_ahead: bool,
    /// Key the table by [`Position::canonical_key`], so that a position and its mirror
    /// image share one entry at every depth (else each is stored under its own key).
    pub canonical: bool,
    /// With `canonical`, key the table by [`Position::reduced_key`]: positions that differ
    /// only in the colour of stones that can make or stop no four any more share an entry.
    pub dead_stones: bool,
    /// Bound the score by 0 when a side can make no four any more, even with every empty
    /// cell (see `Searcher::no_four_bounds`).
    pub no_four: bool,
    /// With several threads, guess from the proven bounds which nodes of a null-window test
    /// are all-nodes, and put off busy children only there (see
    /// `Searcher::expected_all_nodes`).
    pub guess_node_types: bool,
    /// Nodes with at most this many empty cells use their thread's near table
    /// ([`Table::with_near`], [`Table::near`]; the main table itself when the solver's
    /// table was not split). 0: never, and the solver's table is not split.
    pub near_empty: u32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            threat_order_min_empty: 6,
            threat_bonus: 0,
            etc_min_empty: 18,
            table_every_ply: false,
            every_ply_min_empty: 22,
            every_ply_after: 1 << 17,
            table_min_empty: 0,
            forcing_from: 7,
            rescan_work: 1 << 10,
            claim_even: true,
            claim_even_general: true,
            zero_window_below: 4,
            first_test: 0,
            first_move_guess_below: 1,
            static_children_empty: 6,
            prefetch: true,
            helper_windows: true,
            abandon_settled: true,
            defer_below: 16,
            only_helpers_defer: false,
            odd_threat: true,
            odd_threat_ahead: true,
            canonical: true,
            dead_stones: false,
            no_four: true,
            guess_node_types: true,
            near_empty: 12,
        }
    }
}
