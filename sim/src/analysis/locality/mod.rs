//! Address pre-computation of locality-aware dispatch (seed 000 §3.2-§3.3; spec
//! `locality_bypass_paws.md` §1.1.2-§1.1.7 with the revisions of §1.6): what the thesis's
//! compiler and the block scheduler's in-order processor compute before a thread block runs.
//!
//! * Arrays ([`geometry`]): each global array the kernel loads from, as a base address and a
//!   row pitch (a declared 2-D array) or as one row (1-D: every array of a trace, and the
//!   undeclared ones of a synthetic kernel; §1.6 R8). Addresses become *line coordinates*:
//!   `x = ((addr - base) mod pitch) >> 7`, `y = (addr - base) div pitch` (§1.1.3).
//! * Per thread block and array, its access *rectangle* in line coordinates ([`Rect`]: start,
//!   width and height as counts of lines, §1.1.2): from the first and the last thread
//!   ([`RectMode::FirstLast`], the thesis's L338, the default) or the bounding box of every
//!   line its loads touch ([`RectMode::BBox`], the spec's option).
//! * Per warp and array, its *vector* ([`WarpVector`]): the block's region index (`M` bits)
//!   and the subregions of that region the warp touches (`N`-bit mask, §1.1.6).
//! * The two locality measures the blocks compute in hardware: [`overlap`] /
//!   [`pair_locality`] between thread blocks (§1.1.4) and [`warp_locality`] between warps
//!   (§1.1.7, A9).
//!
//! # When a rectangle does not describe the accesses
//! A rectangle describes regular (affine) footprints. For a gather (graph neighbours, sparse
//! columns) the first and last thread say little about the lines in between: the rectangle
//! misses most of what the block reads, or spans what it never reads. [`analyze`] measures this
//! per array as the *coverage*: of the lines the warps touch at the array's first load (the
//! instruction the rectangle is computed from; later loop iterations are expected to move on),
//! the fraction inside their block's first-and-last-thread rectangle. An affine access scores
//! 1; a gather scores low. An array whose coverage is below [`Params::min_coverage`] is not tracked
//! (its rectangles and warp vectors are invalid, so it adds nothing to any locality score) and
//! [`Footprints::notes`] says so. A kernel left with no tracked array has every locality score
//! 0: locality-aware dispatch then gives blocks out in id order (spec P-TB4) and the warp
//! scheduler breaks every tie by age; nothing hangs and nothing is silently wrong.
//!
//! # Widths (the hardware's fields, §4 and A1)
//! Start coordinates: 16 bits per axis for a 2-D array, 24 bits for a 1-D one (R8); an array
//! whose line extent does not fit is not tracked (a note). Width and height: 8 bits, counts
//! `1..=255`; a larger extent saturates at 255 (counted in the notes). At most
//! [`MAX_ARRAYS`] arrays: the most loaded ones (ties: lower base); the rest are not tracked.

pub mod geometry;
#[cfg(test)]
mod tests;

pub use geometry::ArrayGeom;

use crate::workload::kernel::{KernelSource, MemAccess, WorkloadError};
use crate::workload::sass::OpClass;
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};

/// Arrays a kernel's blocks and warps carry locality information for (the thesis's budget:
/// 15 bytes per block-queue entry = 5 arrays x 3 bytes, §1.1.2).
pub const MAX_ARRAYS: usize = 5;
/// Largest width or height of a rectangle, lines (8-bit fields).
pub const EXTENT_MAX: u32 = 255;
/// Bytes per cache line, the unit of the coordinates.
pub const LINE_BYTES: u64 = 128;
/// Most thread blocks of a kernel the pre-computation serves (its result holds a few hundred
/// bytes per block; the thesis's largest benchmark has 525,308 blocks over 1,022 kernels).
pub const MAX_BLOCKS: u64 = 1 << 20;

/// How a block's rectangle is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RectMode {
    /// From the addresses of the block's first and last thread at the array's first load
    /// (the thesis, L338; spec §1.6 R3): start = the nearer corner, extents = the distance
    /// plus one. Warps: the same from their own first and last active thread.
    FirstLast,
    /// The bounding box of every line the block's loads of the array touch (spec §1.1.3,
    /// option). Warps: every subregion one of their loads touches.
    BBox,
}

impl RectMode {
    /// Mode names (`first_last`, `bbox`).
    pub const NAMES: &'static [&'static str] = &["first_last", "bbox"];

    /// Parses a mode name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "first_last" => Some(Self::FirstLast),
            "bbox" => Some(Self::BBox),
            _ => None,
        }
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::FirstLast => "first_last",
            Self::BBox => "bbox",
        }
    }
}

/// Parameters of the pre-computation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Params {
    /// How rectangles are found.
    pub rect_mode: RectMode,
    /// Bits of a region index, `M` (2^M regions per array; L517: 10).
    pub region_bits: u32,
    /// Subregions per region, `N` (bits of a warp's mask; L517: 16; a power of two <= 16).
    pub subregions: u32,
    /// Arrays whose coverage is below this are not tracked (see the module documentation).
    pub min_coverage: f64,
}

impl Default for Params {
    fn default() -> Self {
        Self {
            rect_mode: RectMode::FirstLast,
            region_bits: 10,
            subregions: 16,
            min_coverage: 0.5,
        }
    }
}

/// A block's footprint on one array, in line coordinates: lines `sx..sx + w` of rows
/// `sy..sy + h` (`w`, `h` counts, `1..=255`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct Rect {
    /// First line (x), 16 bits (2-D arrays) or 24 bits (1-D).
    pub sx: u32,
    /// First row (y), 16 bits; 0 for a 1-D array.
    pub sy: u32,
    /// Lines, 1..=255.
    pub w: u8,
    /// Rows, 1..=255.
    pub h: u8,
}

impl Rect {
    /// The rectangle spanning `(x0, y0)` and `(x1, y1)` (any order), extents saturated at
    /// [`EXTENT_MAX`]; whether one saturated.
    pub fn spanning(x0: u32, y0: u32, x1: u32, y1: u32) -> (Self, bool) {
        let (w, h) = (x0.abs_diff(x1) + 1, y0.abs_diff(y1) + 1);
        let r = Self {
            sx: x0.min(x1),
            sy: y0.min(y1),
            w: w.min(EXTENT_MAX) as u8,
            h: h.min(EXTENT_MAX) as u8,
        };
        (r, w > EXTENT_MAX || h > EXTENT_MAX)
    }

    /// Whether line `(x, y)` is inside.
    pub fn contains(&self, x: u32, y: u32) -> bool {
        x >= self.sx
            && (x - self.sx) < self.w as u32
            && y >= self.sy
            && (y - self.sy) < self.h as u32
    }
}

/// Lines two rectangles of one array share (spec §1.1.4, the general intersection; the
/// thesis's `(w - dx) * (h - dy)` for equal sizes). At most 255 x 255.
pub fn overlap(a: &Rect, b: &Rect) -> u32 {
    let span = |s0: u32, n0: u8, s1: u32, n1: u8| {
        let lo = s0.max(s1);
        let hi = (s0 + n0 as u32).min(s1 + n1 as u32);
        hi.saturating_sub(lo)
    };
    span(a.sx, a.w, b.sx, b.w) * span(a.sy, a.h, b.sy, b.h)
}

/// A thread block's rectangles, one per tracked array (`None`: it does not load the array,
/// or the array is not tracked).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct TbFootprint {
    /// Per array index.
    pub rects: [Option<Rect>; MAX_ARRAYS],
}

/// Inter-block locality (L360): the lines two blocks share, summed over the arrays both have a
/// rectangle on (at most 5 x 255 x 255, 19 bits).
pub fn pair_locality(a: &TbFootprint, b: &TbFootprint) -> u32 {
    a.rects
        .iter()
        .zip(&b.rects)
        .map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => overlap(x, y),
            _ => 0,
        })
        .sum()
}

/// A warp's access-range vector (§1.1.6): per tracked array, its block's region index
/// (`M` bits; `None`: the warp does not load the array) and the subregions it touches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct WarpVector {
    /// Region index per array.
    pub region: [Option<u16>; MAX_ARRAYS],
    /// Subregion mask per array (`N` low bits).
    pub sub: [u16; MAX_ARRAYS],
}

/// Inter-warp locality (L434, A9): over the arrays both warps load in the same region, the
/// subregions both touch. At most 5 x 16 = 80 (an 8-bit table entry).
pub fn warp_locality(a: &WarpVector, b: &WarpVector) -> u8 {
    (0..MAX_ARRAYS)
        .map(|k| match (a.region[k], b.region[k]) {
            (Some(x), Some(y)) if x == y => (a.sub[k] & b.sub[k]).count_ones(),
            _ => 0,
        })
        .sum::<u32>() as u8
}

/// Something [`analyze`] did that the user should know.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Note {
    /// An array is not tracked.
    Untracked {
        /// Its base address.
        base: u64,
        /// Why.
        reason: String,
    },
    /// Rectangles whose width or height exceeded 255 lines and saturated.
    Saturated {
        /// How many (block, array) rectangles.
        rects: u64,
    },
    /// A declared row pitch that is not a multiple of 128 bytes (columns floor to lines).
    UnalignedPitch {
        /// The array's base.
        base: u64,
        /// Its pitch, bytes.
        pitch: u64,
    },
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::Untracked { base, reason } => {
                write!(f, "array at {base:#x} is not tracked: {reason}")
            }
            Note::Saturated { rects } => write!(
                f,
                "{rects} block rectangles were wider or taller than {EXTENT_MAX} lines and \
                 saturated"
            ),
            Note::UnalignedPitch { base, pitch } => write!(
                f,
                "array at {base:#x}: row pitch {pitch} B is not a multiple of {LINE_BYTES} B; \
                 columns floor to lines"
            ),
        }
    }
}

/// The pre-computation of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Footprints {
    /// The tracked arrays, in array-index order (by base address).
    pub arrays: Vec<ArrayGeom>,
    /// Per thread block (linear id) that loads anything: its rectangles.
    pub tbs: BTreeMap<u64, TbFootprint>,
    /// Per thread block that loads anything, per warp: its vector.
    pub warps: BTreeMap<u64, Vec<WarpVector>>,
    /// What was not tracked or saturated, and why.
    pub notes: Vec<Note>,
}

impl Footprints {
    /// Block `tb`'s footprint (all-invalid for a block without loads or not in the kernel).
    pub fn tb(&self, tb: u64) -> TbFootprint {
        self.tbs.get(&tb).copied().unwrap_or_default()
    }

    /// Warp `w` of block `tb`'s vector (all-invalid when unknown).
    pub fn warp(&self, tb: u64, w: usize) -> WarpVector {
        self.warps
            .get(&tb)
            .and_then(|v| v.get(w))
            .copied()
            .unwrap_or_default()
    }
}

/// The pre-computation of `kernel` (two visits of its memory instructions: the arrays, then
/// the footprints); `None` when the kernel cannot be visited.
pub fn analyze(
    kernel: &dyn KernelSource,
    params: &Params,
) -> Result<Option<Footprints>, WorkloadError> {
    assert!(
        params.subregions.is_power_of_two() && params.subregions <= 16,
        "subregions: a power of two <= 16"
    );
    assert!(
        (1..=16).contains(&params.region_bits),
        "region bits: 1..=16"
    );
    // Visit 1: where the loads go, per opcode key (classes are known once it returns).
    let mut seen: BTreeMap<(u16, u64), geometry::Chunk> = BTreeMap::new();
    let Some(classes) = kernel.visit_memory(&mut |m: &MemAccess| {
        for &a in m.addrs {
            seen.entry((m.key, a >> geometry::CHUNK_BITS))
                .or_default()
                .add(a);
        }
    })?
    else {
        return Ok(None);
    };
    let is_load = |key: u16| classes.get(key as usize) == Some(&OpClass::LoadGlobal);
    let mut chunks: BTreeMap<u64, geometry::Chunk> = BTreeMap::new();
    for (&(key, c), ch) in &seen {
        if is_load(key) {
            chunks.entry(c).or_default().merge(ch);
        }
    }
    drop(seen);
    let (mut arrays, mut notes) = geometry::discover(&chunks, &kernel.array_decls(), params);
    // Visit 2: per block, per array, the rectangle; per warp, the lines it touches.
    let info = kernel.info();
    let nblocks = info.blocks();
    let nwarps = (info.block_threads() as usize).div_ceil(crate::workload::WARP_SIZE);
    let mut acc = Accumulator::new(nwarps, arrays.len(), params.rect_mode);
    kernel.visit_memory(&mut |m: &MemAccess| {
        if is_load(m.key) {
            acc.observe(m, &arrays, nblocks);
        }
    })?;
    let mut fp = acc.finish(&arrays, &mut notes);
    // Arrays whose rectangles miss most of what the blocks read: not tracked.
    let mut k = 0;
    while k < arrays.len() {
        let cov = fp.coverage[k];
        if cov < params.min_coverage {
            notes.push(Note::Untracked {
                base: arrays[k].base,
                reason: format!(
                    "its rectangles hold {:.0}% of the lines its loads touch (below {:.0}%): \
                     an irregular (gather) pattern",
                    cov * 100.0,
                    params.min_coverage * 100.0
                ),
            });
            arrays.remove(k);
            fp.coverage.remove(k);
            for t in fp.tbs.values_mut() {
                t.rects[k..].rotate_left(1);
                t.rects[MAX_ARRAYS - 1] = None;
            }
            for w in fp.warps.values_mut().flatten() {
                w.region[k..].rotate_left(1);
                w.sub[k..].rotate_left(1);
                w.region[MAX_ARRAYS - 1] = None;
                w.sub[MAX_ARRAYS - 1] = 0;
            }
        } else {
            arrays[k].coverage = cov;
            k += 1;
        }
    }
    Ok(Some(Footprints {
        arrays,
        tbs: fp.tbs,
        warps: fp.warps,
        notes,
    }))
}

/// Visit 2's state: the block being visited (a block's instructions arrive together, in
/// both synthetic kernels and traces), and per finished block what it contributes; memory is
/// one block's lines plus a few words per block.
struct Accumulator {
    mode: RectMode,
    narrays: usize,
    nwarps: usize,
    /// Per array: the PC of its first load in program order (FirstLast's anchor), found on
    /// the way (the lowest PC any block loads it at).
    anchor: Vec<Option<u64>>,
    /// The block being visited.
    cur: Option<Current>,
    /// Per visited block, per array.
    done: BTreeMap<u64, Vec<Option<BlockArray>>>,
}

/// One block's state while it is visited.
struct Current {
    block: u64,
    /// Per array: the block's anchor, first and last thread, bounding box.
    ends: Vec<Ends>,
    /// Per warp, per array.
    warp_lines: Vec<Vec<WarpLines>>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Ends {
    /// The block's lowest PC loading the array (the first and last thread are taken there).
    pc: Option<u64>,
    first: Option<(usize, u32, u32)>,
    last: Option<(usize, u32, u32)>,
    bbox: Option<(u32, u32, u32, u32)>,
}

/// A line `(x, y)`.
type Line = (u32, u32);

#[derive(Clone, Debug, Default)]
struct WarpLines {
    /// The warp's first instance of its lowest PC loading the array: (pc, first lane's line,
    /// last lane's line).
    anchor: Option<(u64, Line, Line)>,
    /// The lines of that instance (coverage).
    anchor_lines: Vec<Line>,
    /// BBox: every line.
    lines: HashSet<Line>,
}

/// What one block contributes on one array.
#[derive(Clone, Debug)]
struct BlockArray {
    /// The PC its first-and-last rectangle was taken at.
    pc: u64,
    /// Its rectangle and whether it saturated (the mode's).
    rect: Option<(Rect, bool)>,
    /// Lines of the warps' first instances, and how many lie inside the first-and-last
    /// rectangle (coverage).
    inside: u64,
    total: u64,
    /// Per warp: its region and subregion mask.
    masks: Vec<Option<(u16, u16)>>,
}

struct Partial {
    tbs: BTreeMap<u64, TbFootprint>,
    warps: BTreeMap<u64, Vec<WarpVector>>,
    coverage: Vec<f64>,
}

impl Accumulator {
    fn new(nwarps: usize, narrays: usize, mode: RectMode) -> Self {
        Self {
            mode,
            narrays,
            nwarps,
            anchor: vec![None; narrays],
            cur: None,
            done: BTreeMap::new(),
        }
    }

    fn observe(&mut self, m: &MemAccess, arrays: &[ArrayGeom], nblocks: u64) {
        let (b, w) = (m.block, m.warp);
        if b >= nblocks || w >= self.nwarps || m.addrs.is_empty() {
            return;
        }
        if self.cur.as_ref().is_none_or(|c| c.block != b) {
            self.close(arrays);
            self.cur = Some(Current {
                block: b,
                ends: vec![Ends::default(); self.narrays],
                warp_lines: vec![vec![WarpLines::default(); self.narrays]; self.nwarps],
            });
        }
        let cur = self.cur.as_mut().expect("opened above");
        if self.mode == RectMode::BBox {
            for &a in m.addrs {
                let Some(k) = geometry::array_of(arrays, a) else {
                    continue;
                };
                let (x, y) = arrays[k].line(a);
                let e = &mut cur.ends[k];
                e.bbox = Some(match e.bbox {
                    None => (x, y, x, y),
                    Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                });
                cur.warp_lines[w][k].lines.insert((x, y));
            }
        }
        // First and last thread: the instruction's array is its first active lane's, and its
        // last active lane must be in it too.
        let last_addr = *m.addrs.last().expect("non-empty");
        let Some(k) = geometry::array_of(arrays, m.addrs[0]) else {
            return;
        };
        if geometry::array_of(arrays, last_addr) != Some(k) {
            return;
        }
        let g = &arrays[k];
        let (lo, hi) = (g.line(m.addrs[0]), g.line(last_addr));
        // A lower PC than the anchor so far: it becomes the array's anchor everywhere.
        if self.anchor[k].is_none_or(|p| m.pc < p) {
            self.anchor[k] = Some(m.pc);
        }
        let wl = &mut cur.warp_lines[w][k];
        if wl.anchor.is_none_or(|(p, _, _)| m.pc < p) {
            wl.anchor = Some((m.pc, lo, hi));
            wl.anchor_lines.clear();
            for &a in m.addrs {
                if a >= g.base && a <= g.end {
                    let l = g.line(a);
                    if wl.anchor_lines.last() != Some(&l) {
                        wl.anchor_lines.push(l);
                    }
                }
            }
        }
        let e = &mut cur.ends[k];
        if e.pc.is_none_or(|p| m.pc < p) {
            e.pc = Some(m.pc);
            e.first = Some((w, lo.0, lo.1));
            e.last = Some((w, hi.0, hi.1));
        } else if e.pc == Some(m.pc) {
            // The lowest warp's first instance gives the first thread, the highest warp's
            // first instance the last one.
            if e.first.is_some_and(|(fw, _, _)| w < fw) {
                e.first = Some((w, lo.0, lo.1));
            }
            if e.last.is_some_and(|(lw, _, _)| w > lw) {
                e.last = Some((w, hi.0, hi.1));
            }
        }
    }

    /// Finishes the block being visited: its rectangles, coverage counts and warp masks.
    fn close(&mut self, arrays: &[ArrayGeom]) {
        let Some(cur) = self.cur.take() else {
            return;
        };
        let mut per = vec![None; self.narrays];
        for (k, g) in arrays.iter().enumerate() {
            let e = &cur.ends[k];
            let (Some(pc), Some(f), Some(l)) = (e.pc, e.first, e.last) else {
                continue;
            };
            let (fl, fl_sat) = Rect::spanning(f.1, f.2, l.1, l.2);
            let (mut inside, mut total) = (0, 0);
            for wl in &cur.warp_lines {
                let wl = &wl[k];
                if wl.anchor.is_some_and(|(p, _, _)| p == pc) {
                    total += wl.anchor_lines.len() as u64;
                    inside += wl
                        .anchor_lines
                        .iter()
                        .filter(|&&(x, y)| fl.contains(x, y))
                        .count() as u64;
                }
            }
            let rect = match self.mode {
                RectMode::FirstLast => Some((fl, fl_sat)),
                RectMode::BBox => e
                    .bbox
                    .map(|(x0, y0, x1, y1)| Rect::spanning(x0, y0, x1, y1)),
            };
            // The block's region: the one holding its rectangle's upper-left line (A8).
            let masks = match rect {
                None => vec![None; self.nwarps],
                Some((r, _)) => {
                    let region = g.region_of(r.sx, r.sy);
                    cur.warp_lines
                        .iter()
                        .map(|wl| {
                            let wl = &wl[k];
                            match self.mode {
                                RectMode::FirstLast => match wl.anchor {
                                    Some((p, lo, hi)) if p == pc => {
                                        let (wr, _) = Rect::spanning(lo.0, lo.1, hi.0, hi.1);
                                        Some((region, g.rect_mask(region, &wr)))
                                    }
                                    _ => None,
                                },
                                RectMode::BBox => (!wl.lines.is_empty()).then(|| {
                                    let m = wl
                                        .lines
                                        .iter()
                                        .fold(0u16, |m, &(x, y)| m | g.line_mask(region, x, y));
                                    (region, m)
                                }),
                            }
                        })
                        .collect()
                }
            };
            per[k] = Some(BlockArray {
                pc,
                rect,
                inside,
                total,
                masks,
            });
        }
        self.done.insert(cur.block, per);
    }

    fn finish(mut self, arrays: &[ArrayGeom], notes: &mut Vec<Note>) -> Partial {
        self.close(arrays);
        let mut tbs = BTreeMap::new();
        let mut warps = BTreeMap::new();
        let (mut inside, mut total) = (vec![0u64; self.narrays], vec![0u64; self.narrays]);
        let mut saturated = 0;
        for (&b, per) in &self.done {
            let mut tb = TbFootprint::default();
            let mut wv = vec![WarpVector::default(); self.nwarps];
            for (k, ba) in per.iter().enumerate() {
                // Only the kernel-wide anchor counts (a block that never runs the array's
                // first load has no rectangle on it).
                let Some(ba) = ba.as_ref().filter(|ba| Some(ba.pc) == self.anchor[k]) else {
                    continue;
                };
                inside[k] += ba.inside;
                total[k] += ba.total;
                let Some((rect, sat)) = ba.rect else {
                    continue;
                };
                saturated += sat as u64;
                tb.rects[k] = Some(rect);
                for (w, m) in ba.masks.iter().enumerate() {
                    if let Some((region, mask)) = *m {
                        wv[w].region[k] = Some(region);
                        wv[w].sub[k] = mask;
                    }
                }
            }
            tbs.insert(b, tb);
            warps.insert(b, wv);
        }
        if saturated > 0 {
            notes.push(Note::Saturated { rects: saturated });
        }
        let coverage = (0..self.narrays)
            .map(|k| {
                if total[k] == 0 {
                    0.0
                } else {
                    inside[k] as f64 / total[k] as f64
                }
            })
            .collect();
        Partial {
            tbs,
            warps,
            coverage,
        }
    }
}

/// The pre-computation of `kernel`, kept in `prepared` once per kernel: the first policy to
/// ask fixes its rectangle mode (the dispatcher prepares before the warp scheduler, so LAWS
/// shares locality-aware dispatch's rectangles), and its notes go into the kernel's report
/// (`locality_notes`). A kernel that cannot be visited has no rectangles (every locality is
/// 0: blocks go out in id order, ties by age); one of more than [`MAX_BLOCKS`] blocks is an
/// error.
pub fn prepare(
    kernel: &dyn KernelSource,
    rect_mode: RectMode,
    prepared: &mut crate::gpu::kernel::Prepared,
) -> Result<std::sync::Arc<Footprints>, crate::gpu::SimError> {
    prepared.get_or_make(|prepared| {
        let info = kernel.info();
        if info.blocks() > MAX_BLOCKS {
            return Err(crate::gpu::SimError::Config(format!(
                "kernel `{}`: locality-aware scheduling pre-computes every thread block's \
                 rectangles and holds them while the kernel runs; this kernel has {} \
                 blocks, at most {MAX_BLOCKS} are supported",
                info.name,
                info.blocks()
            )));
        }
        let params = Params {
            rect_mode,
            ..Params::default()
        };
        let (fp, notes) = match analyze(kernel, &params)? {
            Some(fp) => {
                let notes: Vec<String> = fp.notes.iter().map(|n| n.to_string()).collect();
                (fp, notes)
            }
            None => (
                Footprints::default(),
                vec![format!(
                    "kernel `{}` cannot be visited for its addresses: no rectangles or \
                     vectors, every locality is 0",
                    info.name
                )],
            ),
        };
        if !notes.is_empty() {
            prepared.report("locality_notes", notes.into());
        }
        Ok(fp)
    })
}
