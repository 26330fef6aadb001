//! Locality-aware two-level warp scheduler with its locality degree table (seed 000 §3.3,
//! Figs. 3.11-3.14; spec `locality_bypass_paws.md` §1.1.7-§1.1.8 with the revisions of §1.6:
//! R1, R4-R7, R9, R11). One block per warp scheduler, at the scheduler site in place of the
//! warp arbiter (`--warp-sched laws`).
//!
//! # The table
//! `table[i][j]` = [`warp_locality`] of warps `i` and `j`'s access-range vectors (7 bits,
//! symmetric, the diagonal unused: `warps * (warps - 1) / 2` entries; at most 80). The thesis
//! keeps one 48 x 48 table per SM, but a scheduler only reads the entries between its own warps
//! (R6): one table per scheduler holds every entry that is read.
//!
//! Update latency (A20): a launched warp's vector is stored at the edge of its launch cycle,
//! its row and column read 0 from then on, and the warp joins the *dirty* set. Each cycle the
//! lowest-numbered dirty warp's row (and column) is computed from the stored vectors, one
//! [`warp_locality`] per other warp, and written at the edge. A block of `n` warps has its
//! rows after `n` cycles (U <= `warps` while no warp relaunches). The RTL computes one row per
//! cycle, so the golden model does the same.
//!
//! Policy `serial` (the thesis's serial hardware, seed 000 §1.1.5: one [`warp_locality`] unit
//! instead of one per warp): a launched warp's vector is stored and the warp joins the dirty
//! set as above, but the table is not cleared: an entry reads 0 while either of its warps is
//! dirty (a mask at read time; no `2 n`-entry clear, as a table in block RAM needs). The next
//! row's warp is picked a cycle ahead and registered (so that no multiplexer select waits for
//! the search): each cycle the lowest dirty warp other than the row under way's is the next
//! start. When no row is under way and the registered start is still dirty, its row starts:
//! its vector is latched at the edge. Then a two-stage pipeline, columns `0..n` in order: a
//! cycle latches the column warp's stored vector, the next computes the entry from the two
//! latched vectors and writes it at the edge (its own column skipped), while the following
//! column is latched; the warp leaves the dirty set at the edge of its last column's write. A
//! row takes `n + 2` cycles; the first row after an idle cycle starts a cycle later (its pick
//! is registered first). It is abandoned (and starts again later) when its warp exits or is
//! launched again; a column warp launched meanwhile is dirty, so its entries are masked until
//! its own row recomputes them. The locality pick also reads registered degrees:
//! each warp's degree with the last warp as the table read at the start of the previous cycle
//! (so no path runs from the last warp through the table to the grant); the greedy pick and
//! the starved pick are unchanged.
//!
//! Policy `scan` (`serial`'s table and issue, with the thesis's linear search for the
//! promotion, L539: "finding the maximum sharing degree warp requires only linear search
//! time", hidden behind greedy issue): one promotion score is computed a cycle, for the warp
//! under a scan pointer that steps through the warps `0..n` in turn (its locality with the
//! warps staying active that cycle, the table as read that cycle), registered and written
//! into the scores at the next edge (the comparators that keep the ranking current take a
//! cycle of their own), so a warp's score is at most `n + 1` cycles old; a launched warp's
//! score is 0 until the scan reaches it (a sum of its old self still on the way is dropped);
//! and at most one warp is promoted a cycle (the thesis's "one of ready warp ... is
//! promoted"), the best pending candidate as `serial` ranks them (starved oldest first, then
//! the highest score, ties to the oldest). The hardware is one row read and one adder tree
//! for the scores and a pairwise relation kept current from `n` comparators a cycle, not a
//! rank per warp.
//!
//! # A cycle (decisions from the state at the start of the cycle; group moves at the edge)
//! * Issue (only active warps issue, R4): among active warps that are `ready`, a *starved* one
//!   first (the oldest); else the last issued warp (greedy); else the one with the highest
//!   locality with the last issued warp (still the last one after it was demoted, A13), ties to
//!   the oldest; with no last warp, the oldest.
//! * Demotion (R1, R11): every active warp on `long_stall` (a global load outstanding, a
//!   barrier) moves to pending.
//! * Promotion (R7, R4, P-2L7): the active group refills up to `active` warps from the pending
//!   warps not on `long_stall`: starved ones first (oldest first), then by their promotion
//!   score, ties to the oldest. The score is registered: at cycle `t` it is the sum of each
//!   warp's locality with the warps that stayed active at `t - 1` (the table at `t - 1`). R7
//!   asks for the warps staying at `t`; the one-cycle lag puts the per-warp adder trees in a
//!   pipeline stage of their own, so the promotion path stays under 30 logic levels.
//! * Starvation (R5): a warp is starved when more than `starve_after` thread blocks (twice the
//!   kernel's blocks per SM) were launched on the SM after its own (`tbs_launched` counts them;
//!   a 5-bit saturating gap per warp).
//! * Launched warps join pending; exited warps leave both groups (and stop being `last`).
//!
//! Age (ties, "oldest"): launch order, `launch` before `launch2`, lower warp first.

pub mod stimulus;
#[cfg(test)]
mod tests;

use crate::analysis::locality::{warp_locality, WarpVector, MAX_ARRAYS};
use crate::block::{clog2, Block, Inspect, PortSpec};
use crate::port_bundle;

/// Most warps per scheduler.
pub const MAX_WARPS: usize = 64;
/// Largest gap a warp's counter holds (5 bits).
pub const GAP_MAX: u8 = 31;

/// Packs a vector's region indices as `region` carries them: array `k`'s index in bits
/// `11k..11k+10`, its valid bit at `11k + 10`.
pub fn pack_region(v: &WarpVector) -> u64 {
    (0..MAX_ARRAYS).fold(0, |m, k| match v.region[k] {
        Some(r) => m | ((1 << 10) | (r as u64 & 0x3ff)) << (11 * k),
        None => m,
    })
}

/// Packs a vector's subregion masks as `sub` carries them: array `k`'s in bits `16k..16k+16`.
pub fn pack_sub(v: &WarpVector) -> u128 {
    (0..MAX_ARRAYS).fold(0, |m, k| m | (v.sub[k] as u128) << (16 * k))
}

/// The vector of a `region`/`sub` pair.
pub fn unpack(region: u64, sub: u128) -> WarpVector {
    let mut v = WarpVector::default();
    for k in 0..MAX_ARRAYS {
        let r = region >> (11 * k);
        v.region[k] = (r >> 10 & 1 == 1).then_some((r & 0x3ff) as u16);
        v.sub[k] = (sub >> (16 * k)) as u16;
    }
    v
}

/// Parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Warps of the scheduler, 2..=[`MAX_WARPS`].
    pub warps: usize,
    /// Active group size `K`, 1..=`warps` (R9: GPGPU-Sim's 6).
    pub active: usize,
    /// Policy `serial`: the table's rows one entry a cycle (pipelined), entries of dirty
    /// warps masked, the locality pick on registered degrees (module documentation); `base`:
    /// a row a cycle, cleared at launch.
    pub serial: bool,
    /// Policy `scan` (with `serial`): one promotion score a cycle under a scan pointer, at
    /// most one promotion a cycle (module documentation).
    pub scan: bool,
}

/// Presets: `fermi` (24 warps per scheduler, 2 per SM; K = 6) and `proto` (8 warps, K = 4).
pub const PRESETS: &[(&str, Params)] = &[
    (
        "fermi",
        Params {
            warps: 24,
            active: 6,
            serial: false,
            scan: false,
        },
    ),
    (
        "proto",
        Params {
            warps: 8,
            active: 4,
            serial: false,
            scan: false,
        },
    ),
];

port_bundle! {
    /// Inputs for one cycle. Masks are `warps` bits, bit `w` = local warp `w`.
    pub struct LawsIn for Params {
        /// Warps that could issue this cycle.
        pub ready: u64 = |p| p.warps,
        /// Warps launched this cycle (the SM's first thread block of the cycle).
        pub launch: u64 = |p| p.warps,
        /// Warps of a second thread block launched this cycle, after the first.
        pub launch2: u64 = |p| p.warps,
        /// Thread blocks launched on the SM this cycle, 0..=2 (some may have no warp here).
        pub tbs_launched: u8 = |_p| 2,
        /// Warps that exit this cycle.
        pub exit: u64 = |p| p.warps,
        /// Warps waiting on a global load or a barrier: demoted, never issued.
        pub long_stall: u64 = |p| p.warps,
        /// A warp is starved when more blocks than this were launched after its own.
        pub starve_after: u8 = |_p| 8,
        /// Per warp: its vector's region indices ([`pack_region`]; read when it launches).
        pub region: [u64; MAX_WARPS] = |p| (p.warps, 11 * MAX_ARRAYS as u32),
        /// Per warp: its vector's subregion masks ([`pack_sub`]; read when it launches).
        pub sub: [u128; MAX_WARPS] = |p| (p.warps, 16 * MAX_ARRAYS as u32),
    }
}

port_bundle! {
    /// Outputs for one cycle.
    pub struct LawsOut for Params {
        /// A warp is granted.
        pub grant_valid: bool = |_p| 1,
        /// The granted warp.
        pub grant_warp: u8 = |p| clog2(p.warps),
        /// The active group at the start of the cycle.
        pub active: u64 = |p| p.warps,
    }
}

/// Golden model.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    live: u64,
    active: u64,
    last: Option<usize>,
    /// Locality degree table.
    table: Vec<Vec<u8>>,
    vecs: Vec<WarpVector>,
    /// Launch order (smaller is older).
    stamp: Vec<u64>,
    next_stamp: u64,
    /// Blocks launched on the SM after the warp's own, saturated at [`GAP_MAX`].
    gap: Vec<u8>,
    /// Warps whose table row is still to be computed.
    dirty: u64,
    /// Policy `serial`: the row under way.
    row: Option<Row>,
    /// Policy `serial`: the next row's warp, picked a cycle ahead (the lowest dirty warp
    /// other than the row under way's; a register in the RTL).
    next_start: Option<usize>,
    /// Policy `serial`: per warp its degree with the last warp, read at the start of the
    /// previous cycle (registers in the RTL; the locality pick reads them).
    deg_last: Vec<u8>,
    /// Per warp: its promotion score (locality with the previous cycle's staying warps).
    score: Vec<u32>,
    /// Policy `scan`: the warp whose score is computed this cycle.
    scan_ptr: usize,
    /// Policy `scan`: the score computed the cycle before and its warp, written into `score`
    /// at this cycle's edge (a register in the RTL: the comparators that keep the ranking
    /// current read it a cycle after the adder tree); dropped when its warp is launched.
    scan_sum: Option<(usize, u32)>,
    /// The staying warps `score` was computed from, while the table has not changed since
    /// (the golden model's shortcut: the same sums are not added again).
    score_of: Option<u64>,
    /// A planted bug (tests show the checks catch it).
    #[cfg(test)]
    pub(crate) fault: Option<Fault>,
}

/// Policy `serial`: the row the table's one unit is computing.
#[derive(Clone, Debug)]
struct Row {
    /// Its warp.
    warp: usize,
    /// The next column to latch, `0..=warps` (`warps`: all latched).
    col: usize,
    /// The warp's vector, latched when the row started.
    vec: WarpVector,
    /// The column latched the cycle before and its warp's vector then: this cycle's entry.
    latched: Option<(usize, WarpVector)>,
}

/// Bugs a test can plant.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    /// Stalled active warps stay active.
    NoDemotion,
    /// The pick after the greedy warp ignores locality (oldest first).
    IgnoreLocality,
    /// The highest-numbered dirty row is computed first.
    HighestDirtyFirst,
    /// `scan`: every warp's score computed every cycle (no scan).
    ScanEveryWarp,
    /// `scan`: the scanned score written at the edge it is computed (no register).
    ScanSameCycle,
}

impl Golden {
    /// A scheduler in its reset state.
    pub fn new(params: Params) -> Self {
        assert!(
            (2..=MAX_WARPS).contains(&params.warps),
            "2..={MAX_WARPS} warps"
        );
        assert!(
            (1..=params.warps).contains(&params.active),
            "1..=warps active"
        );
        assert!(params.serial || !params.scan, "scan builds on serial rows");
        let n = params.warps;
        let mut g = Self {
            params,
            live: 0,
            active: 0,
            last: None,
            table: vec![vec![0; n]; n],
            vecs: vec![WarpVector::default(); n],
            stamp: vec![0; n],
            next_stamp: 0,
            gap: vec![0; n],
            dirty: 0,
            score: vec![0; n],
            score_of: None,
            scan_ptr: 0,
            scan_sum: None,
            row: None,
            next_start: None,
            deg_last: vec![0; n],
            #[cfg(test)]
            fault: None,
        };
        g.reset();
        g
    }

    fn mask(&self) -> u64 {
        if self.params.warps == 64 {
            u64::MAX
        } else {
            (1 << self.params.warps) - 1
        }
    }

    /// The set bits of `m`, lowest first.
    fn bits(mut m: u64) -> impl Iterator<Item = usize> {
        std::iter::from_fn(move || {
            let w = (m != 0).then(|| m.trailing_zeros() as usize)?;
            m &= m - 1;
            Some(w)
        })
    }

    fn oldest(&self, m: u64) -> Option<usize> {
        Self::bits(m).min_by_key(|&w| self.stamp[w])
    }

    /// The `free` warps of `cands` promoted: starved ones first (oldest first), then the
    /// highest scores, ties to the oldest.
    fn promoted(&self, cands: u64, starved: u64, free: usize) -> u64 {
        if free == 0 {
            return 0;
        }
        let mut list = [0usize; MAX_WARPS];
        let mut n = 0;
        for p in Self::bits(cands) {
            list[n] = p;
            n += 1;
        }
        let list = &mut list[..n];
        // Keys are distinct (every live warp has its own launch stamp): the `free` smallest
        // are one set whatever the order among them.
        let key = |&p: &usize| {
            let starving = starved >> p & 1 == 1;
            let score = if starving { 0 } else { u32::MAX - self.score[p] };
            (!starving, score, self.stamp[p])
        };
        if n > free {
            list.select_nth_unstable_by_key(free - 1, key);
        }
        list.iter().take(free).fold(0u64, |s, &p| s | 1 << p)
    }

    /// The live warps starved at `starve_after` (more blocks launched after their own).
    fn starved(&self, starve_after: u8) -> u64 {
        Self::bits(self.live)
            .filter(|&w| self.gap[w] > starve_after)
            .fold(0u64, |s, w| s | 1 << w)
    }

    /// This cycle's grant (module documentation, "Issue").
    fn grant(&self, inp: &LawsIn, starved: u64) -> Option<usize> {
        let long = inp.long_stall & self.mask();
        let ready = inp.ready & self.active & self.live & !long;
        self.oldest(ready & starved).or_else(|| {
            if let Some(l) = self.last.filter(|&l| ready >> l & 1 == 1) {
                return Some(l);
            }
            Self::bits(ready).min_by_key(|&w| {
                let deg = if self.params.serial {
                    self.deg_last[w]
                } else {
                    self.last.map_or(0, |l| self.degree(w, l))
                };
                #[cfg(test)]
                let deg = if self.fault == Some(Fault::IgnoreLocality) {
                    0
                } else {
                    deg
                };
                (std::cmp::Reverse(deg), self.stamp[w])
            })
        })
    }

    /// Places the active group has for promotions once the `staying` warps stay (`scan`: at
    /// most one a cycle).
    fn free(&self, staying: u64) -> usize {
        let free = self
            .params
            .active
            .saturating_sub(staying.count_ones() as usize);
        if self.params.scan {
            free.min(1)
        } else {
            free
        }
    }

    /// The locality degree between warps `i` and `j` as the scheduler reads it (under
    /// `serial`, 0 while either warp is dirty).
    pub fn degree(&self, i: usize, j: usize) -> u8 {
        if self.params.serial && (self.dirty >> i | self.dirty >> j) & 1 == 1 {
            0
        } else {
            self.table[i][j]
        }
    }

    /// The lowest warp of `m` (the highest under a planted fault), if any.
    fn lowest(&self, m: u64) -> Option<usize> {
        if m == 0 {
            return None;
        }
        #[cfg(test)]
        if self.fault == Some(Fault::HighestDirtyFirst) {
            return Some(63 - m.leading_zeros() as usize);
        }
        Some(m.trailing_zeros() as usize)
    }

    /// `base`'s row update at the edge: the lowest dirty warp's whole row.
    fn parallel_row_edge(&mut self) {
        if let Some(w) = self.lowest(self.dirty) {
            for j in (0..self.params.warps).filter(|&j| j != w) {
                let d = warp_locality(&self.vecs[w], &self.vecs[j]);
                self.table[w][j] = d;
                self.table[j][w] = d;
            }
            self.dirty &= !(1 << w);
            self.score_of = None;
        }
    }

    /// `scan` at the edge: the score registered the cycle before is written; the score of
    /// the warp under the pointer, from this cycle's staying warps and table, is registered;
    /// the pointer steps on.
    fn scan_edge(&mut self, staying: u64) {
        if let Some((q, s)) = self.scan_sum.take() {
            self.score[q] = s;
        }
        let p = self.scan_ptr;
        self.scan_sum = Some((p, self.score_with(p, staying)));
        #[cfg(test)]
        if self.fault == Some(Fault::ScanSameCycle) {
            self.score[p] = self.score_with(p, staying);
            self.scan_sum = None;
        }
        #[cfg(test)]
        if self.fault == Some(Fault::ScanEveryWarp) {
            for q in 0..self.params.warps {
                self.score[q] = self.score_with(q, staying);
            }
        }
        self.scan_ptr = (p + 1) % self.params.warps;
    }

    /// Warp `p`'s promotion score against the `staying` warps: the sum of its degrees with
    /// them, the table as read now.
    fn score_with(&self, p: usize, staying: u64) -> u32 {
        Self::bits(staying).map(|a| self.degree(p, a) as u32).sum()
    }

    /// `serial`'s row engine at the edge: start the registered next row, or write the
    /// entry of this cycle; register the next start.
    fn serial_row_edge(&mut self) {
        let busy = self.row.as_ref().map_or(0, |r| 1u64 << r.warp);
        let pick = self.lowest(self.dirty & !busy);
        match self.row.take() {
            Some(mut r) => {
                if let Some((c, v)) = r.latched.take().filter(|&(c, _)| c != r.warp) {
                    let d = warp_locality(&r.vec, &v);
                    self.table[r.warp][c] = d;
                    self.table[c][r.warp] = d;
                }
                if r.col == self.params.warps {
                    self.dirty &= !(1 << r.warp);
                } else {
                    r.latched = Some((r.col, self.vecs[r.col]));
                    r.col += 1;
                    self.row = Some(r);
                }
            }
            None => {
                if let Some(warp) = self.next_start.filter(|&w| self.dirty >> w & 1 == 1) {
                    let vec = self.vecs[warp];
                    self.row = Some(Row {
                        warp,
                        col: 0,
                        vec,
                        latched: None,
                    });
                }
            }
        }
        self.next_start = pick;
    }
}

impl Block for Golden {
    type In = LawsIn;
    type Out = LawsOut;

    fn reset(&mut self) {
        let n = self.params.warps;
        self.live = 0;
        self.active = 0;
        self.last = None;
        self.table = vec![vec![0; n]; n];
        self.vecs = vec![WarpVector::default(); n];
        self.stamp = vec![0; n];
        self.next_stamp = 0;
        self.gap = vec![0; n];
        self.dirty = 0;
        self.score = vec![0; n];
        self.score_of = None;
        self.scan_ptr = 0;
        self.scan_sum = None;
        self.row = None;
        self.next_start = None;
        self.deg_last = vec![0; n];
    }

    fn step(&mut self, inp: &LawsIn) -> LawsOut {
        let m = self.mask();
        let (live, active) = (self.live, self.active);
        let long = inp.long_stall & m;
        let starved = self.starved(inp.starve_after);
        let grant = self.grant(inp, starved);
        let mut out = LawsOut {
            grant_valid: grant.is_some(),
            grant_warp: grant.unwrap_or(0) as u8,
            active,
        };
        if self.params.serial {
            // Edge: the degrees with the last warp, for the next cycle's pick.
            for w in 0..self.params.warps {
                self.deg_last[w] = self.last.map_or(0, |l| self.degree(w, l));
            }
        }
        // Demotion and promotion.
        let demoted = active & long;
        #[cfg(test)]
        let demoted = if self.fault == Some(Fault::NoDemotion) {
            0
        } else {
            demoted
        };
        let staying = active & !demoted;
        let promoted = self.promoted(live & !active & !long, starved, self.free(staying));
        // Edge: next cycle's scores, from this cycle's staying warps and table.
        if self.params.scan {
            self.scan_edge(staying);
        } else if self.score_of != Some(staying) {
            for p in 0..self.params.warps {
                self.score[p] = self.score_with(p, staying);
            }
            self.score_of = Some(staying);
        }
        // The table's rows.
        let dirty = self.dirty;
        if self.params.serial {
            self.serial_row_edge();
        } else {
            self.parallel_row_edge();
        }
        self.active = staying | promoted;
        if grant.is_some() {
            self.last = grant;
        }
        let exit = inp.exit & m;
        self.live &= !exit;
        self.dirty &= !exit;
        self.active &= !exit;
        if self.last.is_some_and(|l| exit >> l & 1 == 1) {
            self.last = None;
        }
        let launched = (inp.launch | inp.launch2) & m;
        if launched != 0 || inp.tbs_launched > 0 {
            let add = inp.tbs_launched.min(2);
            for w in Self::bits(self.live) {
                self.gap[w] = (self.gap[w] + add).min(GAP_MAX);
            }
            for (mask, gap) in [
                (inp.launch & m, add.saturating_sub(1)),
                (inp.launch2 & m, 0),
            ] {
                for w in Self::bits(mask) {
                    self.vecs[w] = unpack(inp.region[w], inp.sub[w]);
                    self.stamp[w] = self.next_stamp;
                    self.next_stamp += 1;
                    self.gap[w] = gap;
                    if self.params.scan {
                        // Its score is 0 until the scan reaches it (as it reads while the
                        // warp is dirty); a score of its old self still on the way is dropped.
                        self.score[w] = 0;
                        self.scan_sum = self.scan_sum.filter(|&(q, _)| q != w);
                    }
                }
            }
            if !self.params.serial {
                for w in Self::bits(launched) {
                    for j in 0..self.params.warps {
                        self.table[w][j] = 0;
                        self.table[j][w] = 0;
                    }
                }
            }
            self.score_of = None;
            self.dirty |= launched;
            self.live |= launched;
            self.active &= !launched;
        }
        if let Some(r) = &self.row {
            if (exit | launched) >> r.warp & 1 == 1 {
                self.row = None;
            }
        }
        if self.params.serial && (self.dirty != dirty || self.row.is_some()) {
            // An entry written or a mask changed.
            self.score_of = None;
        }
        out.active &= m;
        out
    }

    /// A step with `inp` changes nothing when no warp launches, exits, is demoted or is
    /// promoted, the grant (if any) is the last warp, the table has no row to compute
    /// (`serial`: none under way or picked), the scores are the active group's and (`serial`)
    /// the registered degrees the last warp's. Never under `scan`: its pointer steps every
    /// cycle.
    fn holds(&self, inp: &LawsIn) -> Option<LawsOut> {
        let m = self.mask();
        let rows_idle = self.dirty == 0 && self.row.is_none() && self.next_start.is_none();
        let moves = (inp.launch | inp.launch2 | inp.exit) & m != 0 || inp.tbs_launched != 0;
        let long = inp.long_stall & m;
        if self.params.scan || !rows_idle || moves || self.active & long != 0 {
            return None;
        }
        if self.score_of != Some(self.active) {
            return None;
        }
        let starved = self.starved(inp.starve_after);
        let pending = self.live & !self.active & !long;
        if self.promoted(pending, starved, self.free(self.active)) != 0 {
            return None;
        }
        let grant = self.grant(inp, starved);
        if grant.is_some() && grant != self.last {
            return None;
        }
        let deg_last = |w: usize| self.last.map_or(0, |l| self.degree(w, l));
        if self.params.serial && (0..self.params.warps).any(|w| self.deg_last[w] != deg_last(w)) {
            return None;
        }
        Some(LawsOut {
            grant_valid: grant.is_some(),
            grant_warp: grant.unwrap_or(0) as u8,
            active: self.active & m,
        })
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let (n, b) = (self.params.warps as u32, clog2(self.params.warps));
        let mut specs = vec![
            PortSpec::new("live", n),
            PortSpec::new("active", n),
            PortSpec::new("last_valid", 1),
            PortSpec::new("last", b),
            PortSpec::new("dirty", n),
        ];
        if self.params.serial {
            specs.extend([
                PortSpec::new("row_busy", 1),
                PortSpec::new("row_warp", b),
                PortSpec::new("row_col", b + 1),
                PortSpec::new("row_start_valid", 1),
                PortSpec::new("row_start", b),
            ]);
        }
        if self.params.scan {
            specs.extend([
                PortSpec::new("scan", b),
                PortSpec::new("scan_sum_valid", 1),
                PortSpec::new("scan_sum_warp", b),
                // A sum of at most `active` degrees of at most 80.
                PortSpec::new("scan_sum", clog2(self.params.active * 80 + 1)),
            ]);
        }
        specs
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend([
            self.live,
            self.active,
            self.last.is_some() as u64,
            self.last.unwrap_or(0) as u64,
            self.dirty,
        ]);
        if self.params.serial {
            let r = self.row.as_ref();
            out.extend([
                r.is_some() as u64,
                r.map_or(0, |r| r.warp as u64),
                r.map_or(0, |r| r.col as u64),
                self.next_start.is_some() as u64,
                self.next_start.unwrap_or(0) as u64,
            ]);
        }
        if self.params.scan {
            let (q, sum) = self.scan_sum.unwrap_or((0, 0));
            out.extend([
                self.scan_ptr as u64,
                self.scan_sum.is_some() as u64,
                q as u64,
                sum as u64,
            ]);
        }
    }
}

/// The inputs of a cycle but the warp vectors.
fn scalars(i: &LawsIn) -> (u64, u64, u64, u8, u64, u64, u8) {
    let LawsIn {
        ready,
        launch,
        launch2,
        tbs_launched,
        exit,
        long_stall,
        starve_after,
        region: _,
        sub: _,
    } = *i;
    (ready, launch, launch2, tbs_launched, exit, long_stall, starve_after)
}

/// The scheduler as a block kind.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "locality_degree";
    const SUMMARY: &'static str = "locality-aware two-level warp scheduler with its locality \
        degree table (seed 000)";
    const POLICIES: &'static [&'static str] = &["base", "serial", "scan"];
    const PRESETS: &'static [&'static str] = &["fermi", "proto"];
    type Params = Params;
    type In = LawsIn;
    type Out = LawsOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(policy: &str, preset: &str) -> Params {
        Params {
            serial: policy == "serial" || policy == "scan",
            scan: policy == "scan",
            ..crate::block::preset_of(PRESETS, preset)
        }
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        // `serial` and `scan` are the policy's name.
        vec![("warps", p.warps as u64), ("active", p.active as u64)]
    }
    fn paper_budget(p: &Params) -> Option<crate::block::PaperBudget> {
        let n = p.warps as u64;
        Some(crate::block::PaperBudget {
            bits: Some(n * n / 2 * 8 + n * 16 * 8),
            structure: format!(
                "locality degree table {n} x {n} / 2 one-byte entries and {n} warp access-range \
                 vectors of 16 B, for one scheduler's {n} warps (seed 000 Table 5.2: 48 per SM, \
                 2.1 kB); the highest degree by a linear search (L539)"
            ),
        })
    }
    fn busy(out: &LawsOut) -> bool {
        out.grant_valid
    }
    const HOLDS: bool = true;
    fn may_hold(p: &Params) -> bool {
        !p.scan
    }
    /// The vectors (`region`, `sub`: 1.5 kB) are read only for launched warps.
    fn repeats(last: &LawsIn, inp: &LawsIn) -> bool {
        scalars(last) == scalars(inp)
            && (inp.launch | inp.launch2 == 0 || (last.region == inp.region && last.sub == inp.sub))
    }
    /// The vectors only in a cycle that launches warps (the only one `repeats` compares them
    /// in).
    fn remember(last: &mut LawsIn, inp: &LawsIn) {
        if inp.launch | inp.launch2 == 0 {
            (last.ready, last.launch, last.launch2) = (inp.ready, inp.launch, inp.launch2);
            (last.tbs_launched, last.exit) = (inp.tbs_launched, inp.exit);
            (last.long_stall, last.starve_after) = (inp.long_stall, inp.starve_after);
        } else {
            last.clone_from(inp);
        }
    }
    fn describe(p: &Params) -> String {
        let rows = if p.serial { ", serial rows" } else { "" };
        let scan = if p.scan { ", scan promotion" } else { "" };
        format!("{} warps, {} active{rows}{scan}", p.warps, p.active)
    }
}
