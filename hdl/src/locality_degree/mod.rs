//! RTL of the `locality_degree` block: the locality-aware two-level warp scheduler (LAWS) of
//! one warp scheduler, with its locality degree table. Behaviour, ports and cycle timing are
//! specified in `gpusim::blocks::locality_degree` (the golden model).
//!
//! Sizes (const generics; the type aliases at the bottom fix them per preset): `N` warps
//! (`B` = clog2 `N` id bits), `K` active warps, `T = N (N - 1) / 2` table entries, `NN = N * N`
//! degree wires, `NP` = `N` rounded up to a power of two (`PB` = log2 `NP` + 1 count bits),
//! `SB` promotion-score bits (clog2 of `K * 80 + 1`), `NS = N * NP` tree nodes; the policy:
//! `SER` = 1 and `PAR` = 0 for `serial` and `scan`, 0 and 1 for `base`, `SCN` = 1 for `scan`
//! and 0 otherwise, `NU` locality units (1 for `serial` and `scan`, `N` for `base`). rust-hdl
//! takes a policy's logic as a loop over `0..SER`, `0..PAR`, `0..SCN` or `0..(1 - SCN)` (one
//! iteration or none) and its state as arrays sized by the policy, 0 where it has none:
//! `NR` = `N` registered degrees (`serial` only); `TT = T` triangle entries, `NDG = NN` degree
//! wires, `NS` tree nodes, `NRK = N` ranked warps and `NC = NRK * NP` rank-tree nodes (all 0
//! for `scan`); `NA` score-tree nodes (`N * NP`, or `NP` for `scan`'s one tree); `scan`'s
//! `NPL = 7 N` table plane words, `NDP = 7` degree planes and `NBS = N` rows of its relation
//! `beats`.
//!
//! State: `live`, `act` (the active group), `last` (one-hot; zero when none) and `dirty`
//! masks; the age matrix `older` (row `i`, bit `j`: warp `j` is older than warp `i`); per warp
//! its 5-bit starvation gap, its vector (`vreg` 55 bits, `vsub` 80 bits) and its registered
//! promotion score; the table `tri`, one 7-bit entry per unordered pair (`i < j` at
//! `j (j - 1) / 2 + i`; `scan`: the planes `pl` below). Structure, each stage a tree:
//! * issue: the oldest ready starved warp (an AND-OR per age row), else the last warp, else
//!   the ready warp that beats every other ready warp on (degree with the last warp, age):
//!   the degrees through an in-place OR tree per warp masked by `last`, then `N x N`
//!   comparators and an AND-reduction per warp (`serial`: the degrees registered, `dl`, so
//!   the comparators read the degrees with the warp that was last a cycle earlier: no path
//!   runs from `last` through the table's multiplexers to the grant);
//! * promotion: per pending warp its rank, the number of candidates that beat it on
//!   (starved, score, age) (`N x N` comparators and a population count per warp, an adder
//!   tree), promoted when the rank is below the free places (`K` minus the staying warps;
//!   `serial`: the staying warps counted in the rank's tree, the sum compared with `K`, so
//!   no subtraction and no second tree sit on the path);
//! * next scores: per warp an adder tree over its degrees with the staying warps (`log2 NP`
//!   levels), registered;
//! * `scan` instead: the table as bit planes (a full symmetric matrix: per plane and warp one
//!   `N`-bit word), so a warp's degrees with the last warp (`dl`, registered) and the scan
//!   pointer's warp's degrees with every warp are an AND of a word with a one-hot mask and an
//!   OR per plane, not a multiplexer tree per entry; one adder tree over the pointer's
//!   warp's degrees with the staying warps, registered with its warp (`sum`, `sum_oh`) and
//!   written as that warp's score a cycle later; the relation `beats` (`N x N` bits, row `w`
//!   bit `q`: `q` beats `w` on score, ties to age) kept current at the edge: the registered
//!   warp's row and column from `N` comparators of its new score with the others', a launched
//!   warp's (score 0, youngest) from the nonzero scores and its age row;
//!   the promotion, when a place is free, the oldest starved candidate or else the candidate
//!   no other candidate beats (an AND-OR per row: no comparator on the path);
//! * table row (`base`): the lowest dirty warp ([`FindFirst`]), its vector through
//!   [`OneHotMuxTree`]s, one [`WarpLocality`] per warp against it; launched warps clear their
//!   row and column;
//! * table row (`serial`): one [`WarpLocality`]; the next row's warp is picked a cycle ahead
//!   (the lowest dirty warp other than the row under way's, registered one-hot in `start_oh`,
//!   so every multiplexer select is a register); a row starts by latching that warp's vector
//!   (one-hot `row_oh`) through the same multiplexers, which then select the column warps'
//!   vectors (one-hot `col_oh`, shifted left a cycle), each latched (`col_vreg`, `col_vsub`,
//!   its column `wr_oh`) and its entry computed and written the cycle after (a two-stage
//!   pipeline: no path runs from a multiplexer through the unit); the entries of dirty warps read 0 (a mask per warp on the leaves and roots of the
//!   trees that read the table, not per entry), so launches clear nothing.
//!
//! rust-hdl evaluates array indices from loop variables only, so loops that index by `i * N +
//! j` bind `n = N` (and `t = T`, `np = NP`) with one-iteration loops; table indices are taken
//! modulo `t`, so a pair that is skipped (`i >= j`) still names an entry.

use crate::consts::{above_table, below_table, constant, onehot_table};
use crate::locality::WarpLocality;
use crate::prim::{FindFirst, OneHotIndex, OneHotMuxTree};
use crate::sim::Clocked;
use rust_hdl::prelude::*;

/// The LAWS scheduler (module documentation for the const generics).
#[derive(LogicBlock)]
pub struct Laws<
    const N: usize,
    const B: usize,
    const K: usize,
    const T: usize,
    const NN: usize,
    const NP: usize,
    const PB: usize,
    const SB: usize,
    const NS: usize,
    const NU: usize,
    const SER: usize,
    const PAR: usize,
    const NR: usize,
    const NA: usize,
    const NC: usize,
    const NRK: usize,
    const SCN: usize,
    const NBS: usize,
    const NPL: usize,
    const TT: usize,
    const NDG: usize,
    const NDP: usize,
> {
    /// Rising-edge clock.
    pub clock: Signal<In, Clock>,
    /// Synchronous reset, active high.
    pub reset: Signal<In, Bit>,
    /// Warps that could issue this cycle.
    pub ready: Signal<In, Bits<N>>,
    /// Warps launched this cycle (the SM's first thread block of the cycle).
    pub launch: Signal<In, Bits<N>>,
    /// Warps of a second thread block launched this cycle.
    pub launch2: Signal<In, Bits<N>>,
    /// Thread blocks launched on the SM this cycle (3 counts as 2).
    pub tbs_launched: Signal<In, Bits<2>>,
    /// Warps that exit this cycle.
    pub exit: Signal<In, Bits<N>>,
    /// Warps waiting on a global load or a barrier.
    pub long_stall: Signal<In, Bits<N>>,
    /// A warp is starved when more blocks than this were launched after its own.
    pub starve_after: Signal<In, Bits<8>>,
    /// Per warp: its vector's region indices (read when it launches).
    pub region: [Signal<In, Bits<55>>; N],
    /// Per warp: its vector's subregion masks (read when it launches).
    pub sub: [Signal<In, Bits<80>>; N],
    /// A warp is granted.
    pub grant_valid: Signal<Out, Bit>,
    /// The granted warp (0 if none).
    pub grant_warp: Signal<Out, Bits<B>>,
    /// The active group at the start of the cycle.
    pub active: Signal<Out, Bits<N>>,
    live: DFF<Bits<N>>,
    act: DFF<Bits<N>>,
    last: DFF<Bits<N>>,
    dirty: DFF<Bits<N>>,
    older: [DFF<Bits<N>>; N],
    gap: [DFF<Bits<5>>; N],
    vreg: [DFF<Bits<55>>; N],
    vsub: [DFF<Bits<80>>; N],
    score: [DFF<Bits<SB>>; N],
    /// `scan`: the scan pointer (one-hot), whose warp's score is computed this cycle; per
    /// warp `w` the warps that beat it on (score, age) (`beats[w]` bit `q`: `q` beats `w`),
    /// kept current as scores and ages change.
    scan_oh: [DFF<Bits<N>>; SCN],
    beats: [DFF<Bits<N>>; NBS],
    /// `scan`: the score the adder tree computed the cycle before and its warp (one-hot;
    /// zero when none: the first cycle, or its warp launched since), compared and written
    /// this cycle.
    sum: [DFF<Bits<SB>>; SCN],
    sum_oh: [DFF<Bits<N>>; SCN],
    tri: [DFF<Bits<7>>; TT],
    /// `scan`: the table as bit planes instead, `pl[b * N + p]` bit `a`: bit `b` of the degree
    /// of warps `p` and `a` (both halves of the symmetric matrix, so a row is one word per
    /// plane).
    pl: [DFF<Bits<N>>; NPL],
    /// `scan`: the bits of a warp's plane words the row's entry writes this cycle (reused
    /// per warp).
    pl_m: [Signal<Local, Bits<N>>; SCN],
    /// `scan`: the registered degrees with the last warp as bit planes instead of `dl`
    /// (`dlp[b]` bit `w`: bit `b` of warp `w`'s), a plane on its way (reused), and per warp
    /// the warps whose degree is below its own and equal to it (a comparator per pair, bit
    /// serial over the planes from the top).
    dlp: [DFF<Bits<N>>; NDP],
    dlw: [Signal<Local, Bits<N>>; SCN],
    dgt: [Signal<Local, Bits<N>>; SCN],
    deq: [Signal<Local, Bits<N>>; SCN],
    /// `scan`: a warp's bit of a degree plane as a word (all ones or zero).
    dwb: [Signal<Local, Bits<N>>; SCN],
    /// Live warps past the starvation gap; active, ready and not stalled; launched.
    starved: Signal<Local, Bits<N>>,
    ready_e: Signal<Local, Bits<N>>,
    launched: Signal<Local, Bits<N>>,
    /// The three issue candidates (one-hot) and the grant.
    spick: Signal<Local, Bits<N>>,
    greedy: Signal<Local, Bits<N>>,
    lpick: Signal<Local, Bits<N>>,
    grant_oh: Signal<Local, Bits<N>>,
    grant_index: OneHotIndex<N, B>,
    /// The table read out as a full matrix: `deg[i * N + j]`, 0 on the diagonal.
    deg: [Signal<Local, Bits<7>>; NDG],
    /// Per warp `p`: its degree with the last warp at `deg_last[p * NP]`, an AND-OR
    /// multiplexer of its row selected by `last` (one-hot or zero, giving 0) as an in-place OR
    /// tree over `deg_last[p * NP..][..NP]`, built beside the next scores' adder trees (a
    /// sub-block would close a loop through this block for Verilator, as `cnt` says).
    deg_last: [Signal<Local, Bits<7>>; NS],
    /// `serial`: per warp its degree with the last warp as computed the cycle before (the
    /// issue comparators read these).
    dl: [DFF<Bits<7>>; NR],
    /// Per warp `w`: the warps `v` it beats on (degree with the last warp, age).
    wbeats: [Signal<Local, Bits<N>>; N],
    /// Promotion: the staying warps, the candidates, per candidate the candidates that beat
    /// it and its rank, the free places, the promoted warps.
    staying: Signal<Local, Bits<N>>,
    cands: Signal<Local, Bits<N>>,
    beaten: [Signal<Local, Bits<N>>; NRK],
    /// Per candidate `p`: its rank at `cnt[p * NP]`, an in-place tree over `cnt[p * NP..]`
    /// (Verilator cannot order a popcount sub-block whose input and output meet in this
    /// block); the staying warps' count at `scnt[0]`.
    cnt: [Signal<Local, Bits<PB>>; NC],
    scnt: [Signal<Local, Bits<PB>>; NP],
    free: Signal<Local, Bits<PB>>,
    promoted: Signal<Local, Bits<N>>,
    /// Next scores: per warp `p` an in-place adder tree over `acc[p * NP ..][..NP]`
    /// (`scan`: one tree, the scan pointer's warp's).
    acc: [Signal<Local, Bits<SB>>; NA],
    /// `scan`: per warp whether its score is above, below the scanned warp's new score;
    /// the warps whose scores are nonzero after the edge; `beats` after the edge.
    s_gt: [Signal<Local, Bits<N>>; SCN],
    s_lt: [Signal<Local, Bits<N>>; SCN],
    nz: [Signal<Local, Bits<N>>; SCN],
    bt: [Signal<Local, Bits<N>>; NBS],
    /// A degree on its way into `acc` (reused; `bit_cast` takes no loop variable).
    acc_leaf: Signal<Local, Bits<7>>,
    /// The dirty row: its warp, its vector (AND-OR multiplexers selected by the warp, word
    /// trees), its degrees with every warp.
    row_pick: FindFirst<N, B>,
    row_region: OneHotMuxTree<N, 55, NP>,
    row_sub: OneHotMuxTree<N, 80, NP>,
    unit: [WarpLocality; NU],
    /// `serial`: a row under way, its warp and this cycle's column (one-hot), its latched
    /// vector, its warp at the edge (before an exit or a launch abandons it), the warp whose
    /// row is done this cycle (leaving the dirty set); the next row's warp (one-hot or zero,
    /// picked the cycle before).
    row_busy: [DFF<Bit>; SER],
    row_oh: [DFF<Bits<N>>; SER],
    col_oh: [DFF<Bits<N>>; SER],
    row_vreg: [DFF<Bits<55>>; SER],
    row_vsub: [DFF<Bits<80>>; SER],
    /// `serial`: the column latched the cycle before (one-hot; zero when none) and its
    /// vector, whose entry is computed and written this cycle.
    wr_oh: [DFF<Bits<N>>; SER],
    col_vreg: [DFF<Bits<55>>; SER],
    col_vsub: [DFF<Bits<80>>; SER],
    row_next: [Signal<Local, Bits<N>>; SER],
    row_done: [Signal<Local, Bits<N>>; SER],
    start_oh: [DFF<Bits<N>>; SER],
    /// Gap increments: blocks launched (at most 2), minus one, and whether any launched.
    add: Signal<Local, Bits<5>>,
    add_less: Signal<Local, Bits<5>>,
    tick: Signal<Local, Bit>,
    gap_sum: Signal<Local, Bits<5>>,
    k_pb: Constant<Bits<PB>>,
    zero_n: Constant<Bits<N>>,
    /// `serial`: 1, the first one-hot column.
    one_n: [Constant<Bits<N>>; SER],
    zero7: Constant<Bits<7>>,
    zero5: Constant<Bits<5>>,
    zero3: Constant<Bits<3>>,
    zero_pb: Constant<Bits<PB>>,
    one_pb: Constant<Bits<PB>>,
    zero_sb: Constant<Bits<SB>>,
    one5: Constant<Bits<5>>,
    two5: Constant<Bits<5>>,
    gap_max: Constant<Bits<5>>,
    three2: Constant<Bits<2>>,
    zero2: Constant<Bits<2>>,
    onehot_n: [Constant<Bits<N>>; N],
    below_n: [Constant<Bits<N>>; N],
    above_n: [Constant<Bits<N>>; N],
}

impl<
        const N: usize,
        const B: usize,
        const K: usize,
        const T: usize,
        const NN: usize,
        const NP: usize,
        const PB: usize,
        const SB: usize,
        const NS: usize,
        const NU: usize,
        const SER: usize,
        const PAR: usize,
        const NR: usize,
        const NA: usize,
        const NC: usize,
        const NRK: usize,
        const SCN: usize,
        const NBS: usize,
        const NPL: usize,
        const TT: usize,
        const NDG: usize,
        const NDP: usize,
    > Default for Laws<N, B, K, T, NN, NP, PB, SB, NS, NU, SER, PAR, NR, NA, NC, NRK, SCN, NBS, NPL, TT, NDG, NDP>
{
    fn default() -> Self {
        assert!((2..=64).contains(&N) && N <= 1 << B && (N - 1) >> (B - 1) == 1);
        assert!((1..=N).contains(&K), "1..=N active warps");
        assert!(T == N * (N - 1) / 2 && NN == N * N && NS == (1 - SCN) * N * NP);
        assert!(TT == (1 - SCN) * T && NDG == (1 - SCN) * NN && NPL == SCN * 7 * N);
        assert!(NP.is_power_of_two() && NP >= N && NP < 2 * N && 1 << (PB - 1) == NP);
        assert!(K * 80 < 1 << SB, "SB holds K * 80");
        assert!(SER + PAR == 1 && NU == SER + PAR * N, "serial: 1, 0, 1 unit; base: 0, 1, N");
        assert!(NR == (SER - SCN) * N, "serial: N registered degrees; base, scan: none");
        assert!(NDP == SCN * 7, "scan: the registered degrees' planes");
        assert!(SCN <= SER, "scan builds on the serial rows");
        assert!(NRK == (1 - SCN) * N && NC == NRK * NP && NBS == SCN * N);
        assert!(NA == (1 - SCN) * N * NP + SCN * NP, "a score tree per warp, or one");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            ready: Default::default(),
            launch: Default::default(),
            launch2: Default::default(),
            tbs_launched: Default::default(),
            exit: Default::default(),
            long_stall: Default::default(),
            starve_after: Default::default(),
            region: array_init::array_init(|_| Default::default()),
            sub: array_init::array_init(|_| Default::default()),
            grant_valid: Default::default(),
            grant_warp: Default::default(),
            active: Default::default(),
            live: Default::default(),
            act: Default::default(),
            last: Default::default(),
            dirty: Default::default(),
            older: array_init::array_init(|_| Default::default()),
            gap: array_init::array_init(|_| Default::default()),
            vreg: array_init::array_init(|_| Default::default()),
            vsub: array_init::array_init(|_| Default::default()),
            score: array_init::array_init(|_| Default::default()),
            scan_oh: array_init::array_init(|_| Default::default()),
            beats: array_init::array_init(|_| Default::default()),
            sum: array_init::array_init(|_| Default::default()),
            sum_oh: array_init::array_init(|_| Default::default()),
            tri: array_init::array_init(|_| Default::default()),
            pl: array_init::array_init(|_| Default::default()),
            dlp: array_init::array_init(|_| Default::default()),
            dlw: array_init::array_init(|_| Default::default()),
            dgt: array_init::array_init(|_| Default::default()),
            deq: array_init::array_init(|_| Default::default()),
            starved: Default::default(),
            ready_e: Default::default(),
            launched: Default::default(),
            spick: Default::default(),
            greedy: Default::default(),
            lpick: Default::default(),
            grant_oh: Default::default(),
            grant_index: Default::default(),
            deg: array_init::array_init(|_| Default::default()),
            deg_last: array_init::array_init(|_| Default::default()),
            dl: array_init::array_init(|_| Default::default()),
            wbeats: array_init::array_init(|_| Default::default()),
            staying: Default::default(),
            cands: Default::default(),
            beaten: array_init::array_init(|_| Default::default()),
            cnt: array_init::array_init(|_| Default::default()),
            scnt: array_init::array_init(|_| Default::default()),
            free: Default::default(),
            promoted: Default::default(),
            acc: array_init::array_init(|_| Default::default()),
            s_gt: array_init::array_init(|_| Default::default()),
            s_lt: array_init::array_init(|_| Default::default()),
            nz: array_init::array_init(|_| Default::default()),
            bt: array_init::array_init(|_| Default::default()),
            acc_leaf: Default::default(),
            pl_m: array_init::array_init(|_| Default::default()),
            dwb: array_init::array_init(|_| Default::default()),
            row_pick: Default::default(),
            row_region: Default::default(),
            row_sub: Default::default(),
            unit: array_init::array_init(|_| Default::default()),
            row_busy: array_init::array_init(|_| Default::default()),
            row_oh: array_init::array_init(|_| Default::default()),
            col_oh: array_init::array_init(|_| Default::default()),
            row_vreg: array_init::array_init(|_| Default::default()),
            row_vsub: array_init::array_init(|_| Default::default()),
            wr_oh: array_init::array_init(|_| Default::default()),
            col_vreg: array_init::array_init(|_| Default::default()),
            col_vsub: array_init::array_init(|_| Default::default()),
            row_next: array_init::array_init(|_| Default::default()),
            row_done: array_init::array_init(|_| Default::default()),
            start_oh: array_init::array_init(|_| Default::default()),
            add: Default::default(),
            add_less: Default::default(),
            tick: Default::default(),
            gap_sum: Default::default(),
            k_pb: constant(K as u64),
            zero_n: constant(0),
            one_n: array_init::array_init(|_| constant(1)),
            zero7: constant(0),
            zero5: constant(0),
            zero3: constant(0),
            zero_pb: constant(0),
            one_pb: constant(1),
            zero_sb: constant(0),
            one5: constant(1),
            two5: constant(2),
            gap_max: constant(31),
            three2: constant(3),
            zero2: constant(0),
            onehot_n: onehot_table(),
            below_n: below_table(),
            above_n: above_table(),
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const K: usize,
        const T: usize,
        const NN: usize,
        const NP: usize,
        const PB: usize,
        const SB: usize,
        const NS: usize,
        const NU: usize,
        const SER: usize,
        const PAR: usize,
        const NR: usize,
        const NA: usize,
        const NC: usize,
        const NRK: usize,
        const SCN: usize,
        const NBS: usize,
        const NPL: usize,
        const TT: usize,
        const NDG: usize,
        const NDP: usize,
    > Logic for Laws<N, B, K, T, NN, NP, PB, SB, NS, NU, SER, PAR, NR, NA, NC, NRK, SCN, NBS, NPL, TT, NDG, NDP>
{
    #[hdl_gen]
    fn update(&mut self) {
        // Clocks.
        self.live.clock.next = self.clock.val();
        self.act.clock.next = self.clock.val();
        self.last.clock.next = self.clock.val();
        self.dirty.clock.next = self.clock.val();
        for w in 0..N {
            self.older[w].clock.next = self.clock.val();
            self.gap[w].clock.next = self.clock.val();
            self.vreg[w].clock.next = self.clock.val();
            self.vsub[w].clock.next = self.clock.val();
            self.score[w].clock.next = self.clock.val();
        }
        for w in 0..NBS {
            self.beats[w].clock.next = self.clock.val();
        }
        for c in 0..SCN {
            self.scan_oh[c].clock.next = self.clock.val();
            self.sum[c].clock.next = self.clock.val();
            self.sum_oh[c].clock.next = self.clock.val();
        }
        for e in 0..TT {
            self.tri[e].clock.next = self.clock.val();
        }
        for e in 0..NPL {
            self.pl[e].clock.next = self.clock.val();
        }
        for b in 0..NDP {
            self.dlp[b].clock.next = self.clock.val();
        }
        for s in 0..SER {
            self.row_busy[s].clock.next = self.clock.val();
            self.row_oh[s].clock.next = self.clock.val();
            self.col_oh[s].clock.next = self.clock.val();
            self.row_vreg[s].clock.next = self.clock.val();
            self.row_vsub[s].clock.next = self.clock.val();
            self.wr_oh[s].clock.next = self.clock.val();
            self.col_vreg[s].clock.next = self.clock.val();
            self.col_vsub[s].clock.next = self.clock.val();
            self.start_oh[s].clock.next = self.clock.val();
        }
        for w in 0..NR {
            self.dl[w].clock.next = self.clock.val();
        }
        // The table as a full matrix (but for `scan`).
        for _r in 0..(1 - SCN) {
            for n in N..(N + 1) {
                for t in T..(T + 1) {
                    for i in 0..N {
                        for j in 0..N {
                            self.deg[i * n + j].next = self.zero7.val();
                            if self.above_n[i].val().get_bit(j) {
                                self.deg[i * n + j].next =
                                    self.tri[((j * j - j) / 2 + i) % t].q.val();
                            }
                            if self.above_n[j].val().get_bit(i) {
                                self.deg[i * n + j].next =
                                    self.tri[((i * i - i) / 2 + j) % t].q.val();
                            }
                        }
                    }
                }
            }
        }
        // Per warp `p` (but for `scan`), in-place trees side by side: its degree with the last
        // warp (an OR tree of its degrees masked by `last`) and its next score (an adder tree
        // of its degrees with the staying warps).
        self.staying.next = self.act.q.val() & !self.long_stall.val();
        self.acc_leaf.next = self.zero7.val();
        for _r in 0..(1 - SCN) {
            for n in N..(N + 1) {
                for np in NP..(NP + 1) {
                    for p in 0..N {
                        for a in 0..NP {
                            self.acc[p * np + a].next = self.zero_sb.val();
                            self.deg_last[p * np + a].next = self.zero7.val();
                        }
                        for a in 0..N {
                            if self.staying.val().get_bit(a) {
                                self.acc_leaf.next = self.deg[p * n + a].val();
                                self.acc[p * np + a].next = bit_cast::<SB, 7>(self.acc_leaf.val());
                            }
                            if self.last.q.val().get_bit(a) {
                                self.deg_last[p * np + a].next = self.deg[p * n + a].val();
                            }
                            // `serial`: a dirty warp's entries read 0 (its column here, its row
                            // below: a mask per warp, not per entry).
                            for _s in 0..SER {
                                if self.dirty.q.val().get_bit(a) {
                                    self.acc[p * np + a].next = self.zero_sb.val();
                                    self.deg_last[p * np + a].next = self.zero7.val();
                                }
                            }
                        }
                        for i in 0..(NP / 2) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        for i in 0..(NP / 4) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        for i in 0..(NP / 8) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        for i in 0..(NP / 16) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        for i in 0..(NP / 32) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        for i in 0..(NP / 64) {
                            self.acc[p * np + i].next =
                                self.acc[p * np + 2 * i].val() + self.acc[p * np + 2 * i + 1].val();
                            self.deg_last[p * np + i].next = self.deg_last[p * np + 2 * i].val()
                                | self.deg_last[p * np + 2 * i + 1].val();
                        }
                        self.score[p].d.next = self.acc[p * np].val();
                        for _s in 0..SER {
                            if self.dirty.q.val().get_bit(p) {
                                self.deg_last[p * np].next = self.zero7.val();
                                self.score[p].d.next = self.zero_sb.val();
                            }
                        }
                    }
                    // `serial`: the comparators read last cycle's degrees; this cycle's are
                    // registered for the next.
                    for _s in 0..SER {
                        for p in 0..N {
                            self.dl[p].d.next = self.deg_last[p * np].val();
                            self.deg_last[p * np].next = self.dl[p].q.val();
                        }
                    }
                }
            }
        }
        // `scan`: per warp its degree with the last warp, a bit per plane (the plane's row
        // AND `last`, any), 0 while either warp is dirty; registered as planes for the next
        // cycle's locality pick (as `serial`'s `dl`).
        for c in 0..SCN {
            for n in N..(N + 1) {
                for b in 0..7 {
                    self.dlw[c].next = self.zero_n.val();
                    for p in 0..N {
                        self.dlw[c].next = self.dlw[c].val().replace_bit(
                            p,
                            (self.pl[b * n + p].q.val() & self.last.q.val() & !self.dirty.q.val())
                                .any(),
                        );
                    }
                    self.dlp[b].d.next = self.dlw[c].val() & !self.dirty.q.val();
                }
            }
        }
        // Masks.
        self.launched.next = self.launch.val() | self.launch2.val();
        self.starved.next = self.zero_n.val();
        for w in 0..N {
            // A 5-bit gap exceeds `starve_after` only when its upper 3 bits are 0.
            self.starved.next = self.starved.val().replace_bit(
                w,
                self.live.q.val().get_bit(w)
                    & (self.starve_after.val().get_bits::<3>(5) == self.zero3.val())
                    & (self.gap[w].q.val() > self.starve_after.val().get_bits::<5>(0)),
            );
        }
        self.ready_e.next = self.ready.val()
            & self.act.q.val()
            & self.live.q.val()
            & !self.long_stall.val();
        // Issue: the oldest ready starved warp.
        self.spick.next = self.zero_n.val();
        for w in 0..N {
            self.spick.next = self.spick.val().replace_bit(
                w,
                self.ready_e.val().get_bit(w)
                    & self.starved.val().get_bit(w)
                    & !(self.older[w].q.val() & self.ready_e.val() & self.starved.val()).any(),
            );
        }
        self.greedy.next = self.last.q.val() & self.ready_e.val();
        // The ready warp of highest degree with the last warp, ties to the oldest (`scan`:
        // the registered degrees read from `dl`, there being no trees).
        for _r in 0..(1 - SCN) {
            for np in NP..(NP + 1) {
                for w in 0..N {
                    self.wbeats[w].next = self.zero_n.val();
                    for v in 0..N {
                        self.wbeats[w].next = self.wbeats[w].val().replace_bit(
                            v,
                            (self.deg_last[w * np].val() > self.deg_last[v * np].val())
                                | ((self.deg_last[w * np].val() == self.deg_last[v * np].val())
                                    & self.older[v].q.val().get_bit(w)),
                        );
                    }
                }
            }
        }
        for c in 0..SCN {
            for w in 0..N {
                self.dgt[c].next = self.zero_n.val();
                self.deq[c].next = !self.zero_n.val();
                for b in 0..7 {
                    // `w`'s bit of the plane as a word (all ones or zero), so the comparator is
                    // word operations without a branch per bit in the Verilated model.
                    self.dwb[c].next = self.zero_n.val();
                    if self.dlp[6 - b].q.val().get_bit(w) {
                        self.dwb[c].next = !self.zero_n.val();
                    }
                    self.dgt[c].next = self.dgt[c].val()
                        | (self.deq[c].val() & !self.dlp[6 - b].q.val() & self.dwb[c].val());
                    self.deq[c].next =
                        self.deq[c].val() & !(self.dlp[6 - b].q.val() ^ self.dwb[c].val());
                }
                // Ages are a total order: `v` is older than `w` unless `w` is older than `v`.
                self.wbeats[w].next = self.dgt[c].val()
                    | (self.deq[c].val() & !self.older[w].q.val() & !self.onehot_n[w].val());
            }
        }
        self.lpick.next = self.zero_n.val();
        for w in 0..N {
            self.lpick.next = self.lpick.val().replace_bit(
                w,
                self.ready_e.val().get_bit(w)
                    & !(self.ready_e.val() & !self.wbeats[w].val() & !self.onehot_n[w].val())
                        .any(),
            );
        }
        self.grant_oh.next = self.lpick.val();
        if self.greedy.val().any() {
            self.grant_oh.next = self.greedy.val();
        }
        if (self.ready_e.val() & self.starved.val()).any() {
            self.grant_oh.next = self.spick.val();
        }
        self.grant_index.onehot.next = self.grant_oh.val();
        self.grant_valid.next = self.ready_e.val().any();
        self.grant_warp.next = self.grant_index.index.val();
        self.active.next = self.act.q.val();
        // Promotion.
        self.cands.next = self.live.q.val() & !self.act.q.val() & !self.long_stall.val();
        for p in 0..NRK {
            self.beaten[p].next = self.zero_n.val();
            for q in 0..N {
                self.beaten[p].next = self.beaten[p].val().replace_bit(
                    q,
                    (self.starved.val().get_bit(q) & !self.starved.val().get_bit(p))
                        | (self.starved.val().get_bit(q)
                            & self.starved.val().get_bit(p)
                            & self.older[p].q.val().get_bit(q))
                        | (!self.starved.val().get_bit(q)
                            & !self.starved.val().get_bit(p)
                            & ((self.score[q].q.val() > self.score[p].q.val())
                                | ((self.score[q].q.val() == self.score[p].q.val())
                                    & self.older[p].q.val().get_bit(q)))),
                );
            }
        }
        // Ranks and the staying count.
        for np in NP..(NP + 1) {
            for p in 0..NRK {
                for q in 0..NP {
                    self.cnt[p * np + q].next = self.zero_pb.val();
                }
                for q in 0..N {
                    if self.beaten[p].val().get_bit(q) & self.cands.val().get_bit(q) {
                        self.cnt[p * np + q].next = self.one_pb.val();
                    }
                    // `serial`: the staying warps counted in the same tree (they are not
                    // candidates), so the rank is compared with `K`, not with `free`.
                    for _s in 0..SER {
                        if self.staying.val().get_bit(q) {
                            self.cnt[p * np + q].next = self.one_pb.val();
                        }
                    }
                }
                for i in 0..(NP / 2) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
                for i in 0..(NP / 4) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
                for i in 0..(NP / 8) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
                for i in 0..(NP / 16) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
                for i in 0..(NP / 32) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
                for i in 0..(NP / 64) {
                    self.cnt[p * np + i].next = self.cnt[p * np + 2 * i].val() + self.cnt[p * np + 2 * i + 1].val();
                }
            }
        }
        for q in 0..NP {
            self.scnt[q].next = self.zero_pb.val();
        }
        for q in 0..N {
            if self.staying.val().get_bit(q) {
                self.scnt[q].next = self.one_pb.val();
            }
        }
        for i in 0..(NP / 2) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        for i in 0..(NP / 4) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        for i in 0..(NP / 8) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        for i in 0..(NP / 16) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        for i in 0..(NP / 32) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        for i in 0..(NP / 64) {
            self.scnt[i].next = self.scnt[2 * i].val() + self.scnt[2 * i + 1].val();
        }
        self.free.next = self.k_pb.val() - self.scnt[0].val();
        self.promoted.next = self.zero_n.val();
        for np in NP..(NP + 1) {
            for p in 0..NRK {
                self.promoted.next = self.promoted.val().replace_bit(
                    p,
                    self.cands.val().get_bit(p) & (self.cnt[p * np].val() < self.free.val()),
                );
                for _s in 0..SER {
                    self.promoted.next = self.promoted.val().replace_bit(
                        p,
                        self.cands.val().get_bit(p) & (self.cnt[p * np].val() < self.k_pb.val()),
                    );
                }
            }
        }
        // `scan`: one warp when a place is free: the oldest starved candidate, else the
        // candidate no other candidate beats.
        for _c in 0..SCN {
            if self.free.val() != self.zero_pb.val() {
                for w in 0..N {
                    self.promoted.next = self.promoted.val().replace_bit(
                        w,
                        self.cands.val().get_bit(w)
                            & !self.starved.val().get_bit(w)
                            & !(self.beats[w].q.val() & self.cands.val() & !self.starved.val())
                                .any(),
                    );
                }
                if (self.cands.val() & self.starved.val()).any() {
                    for w in 0..N {
                        self.promoted.next = self.promoted.val().replace_bit(
                            w,
                            self.cands.val().get_bit(w)
                                & self.starved.val().get_bit(w)
                                & !(self.older[w].q.val() & self.cands.val() & self.starved.val())
                                    .any(),
                        );
                    }
                }
            }
        }
        // The dirty row: the multiplexers select the lowest dirty warp's vector (`serial`:
        // the registered start's, or the column warp's while a row is under way; the search
        // picks the next start, the row under way's warp excluded).
        self.row_pick.req.next = self.dirty.q.val();
        self.row_region.sel.next = self.row_pick.onehot.val();
        self.row_sub.sel.next = self.row_pick.onehot.val();
        for s in 0..SER {
            self.row_region.sel.next = self.start_oh[s].q.val();
            self.row_sub.sel.next = self.start_oh[s].q.val();
            if self.row_busy[s].q.val() {
                self.row_pick.req.next = self.dirty.q.val() & !self.row_oh[s].q.val();
                self.row_region.sel.next = self.col_oh[s].q.val();
                self.row_sub.sel.next = self.col_oh[s].q.val();
            }
        }
        for w in 0..N {
            self.row_region.data[w].next = self.vreg[w].q.val();
            self.row_sub.data[w].next = self.vsub[w].q.val();
        }
        // `base`: the whole row at the edge, one unit per warp; launches clear theirs.
        for _p in 0..PAR {
            for w in 0..N {
                self.unit[w].region_a.next = self.row_region.out.val();
                self.unit[w].sub_a.next = self.row_sub.out.val();
                self.unit[w].region_b.next = self.vreg[w].q.val();
                self.unit[w].sub_b.next = self.vsub[w].q.val();
            }
        }
        // Edge: the table.
        for e in 0..TT {
            self.tri[e].d.next = self.tri[e].q.val();
        }
        for _p in 0..PAR {
            for t in T..(T + 1) {
                for i in 0..N {
                    for j in 0..N {
                        if self.above_n[i].val().get_bit(j) {
                            if self.row_pick.onehot.val().get_bit(i) {
                                self.tri[((j * j - j) / 2 + i) % t].d.next =
                                    self.unit[j].degree.val();
                            }
                            if self.row_pick.onehot.val().get_bit(j) {
                                self.tri[((j * j - j) / 2 + i) % t].d.next =
                                    self.unit[i].degree.val();
                            }
                            if self.launched.val().get_bit(i) | self.launched.val().get_bit(j) {
                                self.tri[((j * j - j) / 2 + i) % t].d.next = self.zero7.val();
                            }
                        }
                    }
                }
            }
        }
        // `serial`: an entry a cycle from the latched row vector and the column vector
        // latched the cycle before.
        for s in 0..SER {
            self.unit[s].region_a.next = self.row_vreg[s].q.val();
            self.unit[s].sub_a.next = self.row_vsub[s].q.val();
            self.unit[s].region_b.next = self.col_vreg[s].q.val();
            self.unit[s].sub_b.next = self.col_vsub[s].q.val();
            for _r in 0..(1 - SCN) {
                for t in T..(T + 1) {
                    for i in 0..N {
                        for j in 0..N {
                            if self.above_n[i].val().get_bit(j)
                                & self.row_busy[s].q.val()
                                & ((self.row_oh[s].q.val().get_bit(i)
                                    & self.wr_oh[s].q.val().get_bit(j))
                                    | (self.row_oh[s].q.val().get_bit(j)
                                        & self.wr_oh[s].q.val().get_bit(i)))
                            {
                                self.tri[((j * j - j) / 2 + i) % t].d.next =
                                    self.unit[s].degree.val();
                            }
                        }
                    }
                }
            }
            // `scan`: the entry into the row warp's word of each plane at the column's bit
            // and the column warp's at the row's (none on the diagonal): per warp the bits of
            // its words written (`pl_m`), each set or cleared by the degree's bit.
            for c in 0..SCN {
                for n in N..(N + 1) {
                    for p in 0..N {
                        self.pl_m[c].next = self.zero_n.val();
                        if self.row_busy[s].q.val()
                            & !(self.row_oh[s].q.val() & self.wr_oh[s].q.val()).any()
                        {
                            if self.row_oh[s].q.val().get_bit(p) {
                                self.pl_m[c].next = self.wr_oh[s].q.val();
                            }
                            if self.wr_oh[s].q.val().get_bit(p) {
                                self.pl_m[c].next = self.row_oh[s].q.val();
                            }
                        }
                        for b in 0..7 {
                            self.pl[b * n + p].d.next =
                                self.pl[b * n + p].q.val() & !self.pl_m[c].val();
                            if self.unit[s].degree.val().get_bit(b) {
                                self.pl[b * n + p].d.next =
                                    self.pl[b * n + p].q.val() | self.pl_m[c].val();
                            }
                        }
                    }
                }
            }
            self.start_oh[s].d.next = self.row_pick.onehot.val();
            self.row_busy[s].d.next = self.row_busy[s].q.val();
            self.row_oh[s].d.next = self.row_oh[s].q.val();
            self.col_oh[s].d.next = self.col_oh[s].q.val() << self.one_n[s].val();
            self.wr_oh[s].d.next = self.col_oh[s].q.val();
            self.col_vreg[s].d.next = self.row_region.out.val();
            self.col_vsub[s].d.next = self.row_sub.out.val();
            self.row_vreg[s].d.next = self.row_vreg[s].q.val();
            self.row_vsub[s].d.next = self.row_vsub[s].q.val();
            self.row_next[s].next = self.row_oh[s].q.val();
            self.row_done[s].next = self.zero_n.val();
            if self.row_busy[s].q.val() {
                if !self.col_oh[s].q.val().any() {
                    self.row_done[s].next = self.row_oh[s].q.val();
                    self.row_busy[s].d.next = false;
                    self.row_next[s].next = self.zero_n.val();
                }
            } else {
                self.row_busy[s].d.next = (self.start_oh[s].q.val() & self.dirty.q.val()).any();
                self.row_oh[s].d.next = self.start_oh[s].q.val();
                self.col_oh[s].d.next = self.one_n[s].val();
                self.wr_oh[s].d.next = self.zero_n.val();
                self.row_vreg[s].d.next = self.row_region.out.val();
                self.row_vsub[s].d.next = self.row_sub.out.val();
                self.row_next[s].next = self.start_oh[s].q.val() & self.dirty.q.val();
            }
            // Abandoned when its warp exits or is launched again.
            if (self.row_next[s].val() & (self.exit.val() | self.launched.val())).any() {
                self.row_busy[s].d.next = false;
            }
        }
        // `scan`: the scanned warp's score, an adder tree over its degrees with the staying
        // warps (its column of the planes: each plane's rows AND the pointer, any; 0 while
        // either warp is dirty), registered with its warp; the score registered the cycle
        // before written, `beats` kept current: its warp's row and column from that score
        // against every other (`N` comparators), a launched warp's (score 0, youngest) from
        // the scores left nonzero and its new age row (the same expressions as `older`'s
        // update below); the pointer steps on.
        for c in 0..SCN {
            for n in N..(N + 1) {
                for a in 0..NP {
                    self.acc[a].next = self.zero_sb.val();
                }
                for p in 0..N {
                    if self.staying.val().get_bit(p) & !self.dirty.q.val().get_bit(p) {
                        self.acc_leaf.next = self.zero7.val();
                        for b in 0..7 {
                            self.acc_leaf.next = self.acc_leaf.val().replace_bit(
                                b,
                                (self.pl[b * n + p].q.val()
                                    & self.scan_oh[c].q.val()
                                    & !self.dirty.q.val())
                                .any(),
                            );
                        }
                        self.acc[p].next = bit_cast::<SB, 7>(self.acc_leaf.val());
                    }
                }
                for i in 0..(NP / 2) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                for i in 0..(NP / 4) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                for i in 0..(NP / 8) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                for i in 0..(NP / 16) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                for i in 0..(NP / 32) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                for i in 0..(NP / 64) {
                    self.acc[i].next = self.acc[2 * i].val() + self.acc[2 * i + 1].val();
                }
                // Registered for the next cycle (a launch of its warp drops it).
                self.sum[c].d.next = self.acc[0].val();
                self.sum_oh[c].d.next = self.scan_oh[c].q.val() & !self.launched.val();
                self.s_gt[c].next = self.zero_n.val();
                self.s_lt[c].next = self.zero_n.val();
                self.nz[c].next = self.zero_n.val();
                for q in 0..N {
                    self.s_gt[c].next = self.s_gt[c]
                        .val()
                        .replace_bit(q, self.score[q].q.val() > self.sum[c].q.val());
                    self.s_lt[c].next = self.s_lt[c]
                        .val()
                        .replace_bit(q, self.score[q].q.val() < self.sum[c].q.val());
                    self.nz[c].next = self.nz[c]
                        .val()
                        .replace_bit(q, self.score[q].q.val() != self.zero_sb.val());
                    self.score[q].d.next = self.score[q].q.val();
                    if self.sum_oh[c].q.val().get_bit(q) {
                        self.score[q].d.next = self.sum[c].q.val();
                    }
                    if self.launched.val().get_bit(q) {
                        self.score[q].d.next = self.zero_sb.val();
                    }
                }
                self.nz[c].next = self.nz[c].val() & !self.sum_oh[c].q.val();
                if self.sum[c].q.val() != self.zero_sb.val() {
                    self.nz[c].next = self.nz[c].val() | self.sum_oh[c].q.val();
                }
                self.nz[c].next = self.nz[c].val() & !self.launched.val();
                for q in 0..N {
                    self.bt[q].next = self.beats[q].q.val() & !self.sum_oh[c].q.val();
                    if self.s_lt[c].val().get_bit(q)
                        | (!self.s_gt[c].val().get_bit(q)
                            & !self.s_lt[c].val().get_bit(q)
                            & (self.older[q].q.val() & self.sum_oh[c].q.val()).any())
                    {
                        self.bt[q].next = self.bt[q].val() | self.sum_oh[c].q.val();
                    }
                    if self.sum_oh[c].q.val().get_bit(q) {
                        self.bt[q].next = (self.s_gt[c].val()
                            | (!self.s_gt[c].val() & !self.s_lt[c].val() & self.older[q].q.val()))
                            & (self.below_n[q].val() | self.above_n[q].val());
                    }
                    self.bt[q].next = self.bt[q].val() & !self.launched.val();
                    if self.launch2.val().get_bit(q) {
                        self.bt[q].next = self.nz[c].val()
                            | !self.launched.val()
                            | self.launch.val()
                            | (self.launch2.val() & self.below_n[q].val());
                    }
                    if self.launch.val().get_bit(q) {
                        self.bt[q].next = self.nz[c].val()
                            | !self.launched.val()
                            | (self.launch.val() & self.below_n[q].val());
                    }
                    self.beats[q].d.next = self.bt[q].val();
                }
                self.scan_oh[c].d.next = self.scan_oh[c].q.val() << self.one_n[c].val();
                if self.scan_oh[c].q.val().get_bit(n - 1) {
                    self.scan_oh[c].d.next = self.one_n[c].val();
                }
            }
        }
        // Edge: groups, last, dirty rows.
        self.act.d.next = (self.staying.val() | self.promoted.val())
            & !self.exit.val()
            & !self.launched.val();
        self.live.d.next = (self.live.q.val() & !self.exit.val()) | self.launched.val();
        self.last.d.next = self.last.q.val() & !self.exit.val();
        if self.ready_e.val().any() {
            self.last.d.next = self.grant_oh.val() & !self.exit.val();
        }
        self.dirty.d.next = (self.dirty.q.val() & !self.row_pick.onehot.val() & !self.exit.val())
            | self.launched.val();
        for s in 0..SER {
            self.dirty.d.next = (self.dirty.q.val() & !self.row_done[s].val() & !self.exit.val())
                | self.launched.val();
        }
        // Edge: gaps, vectors, ages.
        self.add.next = self.zero5.val();
        for b in 0..2 {
            self.add.next = self
                .add
                .val()
                .replace_bit(b, self.tbs_launched.val().get_bit(b));
        }
        if self.tbs_launched.val() == self.three2.val() {
            self.add.next = self.two5.val();
        }
        self.add_less.next = self.zero5.val();
        if self.add.val() != self.zero5.val() {
            self.add_less.next = self.add.val() - self.one5.val();
        }
        self.tick.next =
            self.launched.val().any() | (self.tbs_launched.val() != self.zero2.val());
        for w in 0..N {
            self.gap_sum.next = self.gap[w].q.val() + self.add.val();
            if self.gap_sum.val() < self.gap[w].q.val() {
                self.gap_sum.next = self.gap_max.val();
            }
            self.gap[w].d.next = self.gap[w].q.val();
            if self.tick.val() & self.live.q.val().get_bit(w) & !self.exit.val().get_bit(w) {
                self.gap[w].d.next = self.gap_sum.val();
            }
            if self.launch2.val().get_bit(w) {
                self.gap[w].d.next = self.zero5.val();
            }
            if self.launch.val().get_bit(w) {
                self.gap[w].d.next = self.add_less.val();
            }
            self.vreg[w].d.next = self.vreg[w].q.val();
            self.vsub[w].d.next = self.vsub[w].q.val();
            if self.launched.val().get_bit(w) {
                self.vreg[w].d.next = self.region[w].val();
                self.vsub[w].d.next = self.sub[w].val();
            }
            self.older[w].d.next = self.older[w].q.val() & !self.launched.val();
            if self.launch2.val().get_bit(w) {
                self.older[w].d.next = !self.launched.val()
                    | self.launch.val()
                    | (self.launch2.val() & self.below_n[w].val());
            }
            if self.launch.val().get_bit(w) {
                self.older[w].d.next =
                    !self.launched.val() | (self.launch.val() & self.below_n[w].val());
            }
        }
        // Reset.
        if self.reset.val() {
            self.live.d.next = self.zero_n.val();
            self.act.d.next = self.zero_n.val();
            self.last.d.next = self.zero_n.val();
            self.dirty.d.next = self.zero_n.val();
            for w in 0..N {
                self.older[w].d.next = self.below_n[w].val();
                self.gap[w].d.next = self.zero5.val();
                self.score[w].d.next = self.zero_sb.val();
            }
            for c in 0..SCN {
                self.scan_oh[c].d.next = self.one_n[c].val();
                self.sum_oh[c].d.next = self.zero_n.val();
                for w in 0..N {
                    self.beats[w].d.next = self.below_n[w].val();
                }
            }
            for e in 0..TT {
                self.tri[e].d.next = self.zero7.val();
            }
            for e in 0..NPL {
                self.pl[e].d.next = self.zero_n.val();
            }
            for s in 0..SER {
                self.row_busy[s].d.next = false;
                self.start_oh[s].d.next = self.zero_n.val();
            }
            for w in 0..NR {
                self.dl[w].d.next = self.zero7.val();
            }
            for b in 0..NDP {
                self.dlp[b].d.next = self.zero_n.val();
            }
        }
    }
}

impl<
        const N: usize,
        const B: usize,
        const K: usize,
        const T: usize,
        const NN: usize,
        const NP: usize,
        const PB: usize,
        const SB: usize,
        const NS: usize,
        const NU: usize,
        const SER: usize,
        const PAR: usize,
        const NR: usize,
        const NA: usize,
        const NC: usize,
        const NRK: usize,
        const SCN: usize,
        const NBS: usize,
        const NPL: usize,
        const TT: usize,
        const NDG: usize,
        const NDP: usize,
    > Clocked for Laws<N, B, K, T, NN, NP, PB, SB, NS, NU, SER, PAR, NR, NA, NC, NRK, SCN, NBS, NPL, TT, NDG, NDP>
{
    fn clock_signal(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// `base`, `fermi`: 24 warps per scheduler (48 per SM, two schedulers), 6 active.
pub type BaseFermi =
    Laws<24, 5, 6, 276, 576, 32, 6, 9, 768, 24, 0, 1, 0, 768, 768, 24, 0, 0, 0, 276, 576, 0>;
/// `base`, `proto`: 8 warps, 4 active.
pub type BaseProto = Laws<8, 3, 4, 28, 64, 8, 4, 9, 64, 8, 0, 1, 0, 64, 64, 8, 0, 0, 0, 28, 64, 0>;
/// `serial`, `fermi`.
pub type SerialFermi =
    Laws<24, 5, 6, 276, 576, 32, 6, 9, 768, 1, 1, 0, 24, 768, 768, 24, 0, 0, 0, 276, 576, 0>;
/// `serial`, `proto`.
pub type SerialProto = Laws<8, 3, 4, 28, 64, 8, 4, 9, 64, 1, 1, 0, 8, 64, 64, 8, 0, 0, 0, 28, 64, 0>;
/// `scan`, `fermi`.
pub type ScanFermi =
    Laws<24, 5, 6, 276, 576, 32, 6, 9, 0, 1, 1, 0, 0, 32, 0, 0, 1, 24, 168, 0, 0, 7>;
/// `scan`, `proto`.
pub type ScanProto = Laws<8, 3, 4, 28, 64, 8, 4, 9, 0, 1, 1, 0, 0, 8, 0, 0, 1, 8, 56, 0, 0, 7>;

/// The scheduler's RTL per policy and preset.
pub struct Rtl;

impl crate::RtlKind for Rtl {
    const NAME: &'static str = "locality_degree";
    fn verilog(policy: &str, preset: &str, module: &str) -> Result<String, String> {
        use crate::verilog_of;
        match (policy, preset) {
            ("base", "fermi") => verilog_of::<BaseFermi>(module),
            ("base", "proto") => verilog_of::<BaseProto>(module),
            ("serial", "fermi") => verilog_of::<SerialFermi>(module),
            ("serial", "proto") => verilog_of::<SerialProto>(module),
            ("scan", "fermi") => verilog_of::<ScanFermi>(module),
            ("scan", "proto") => verilog_of::<ScanProto>(module),
            _ => Err(crate::no_variant(Self::NAME, policy, preset)),
        }
    }
}

#[cfg(test)]
mod tests;
