//! Arrays and their line coordinates, regions and subregions (spec §1.1.3, §1.1.6, §1.6 R8).
//!
//! Arrays are found from where a kernel's global loads go: addresses are grouped in 1 MiB
//! chunks, and chunks with at most one empty chunk between them belong to one array (the
//! suite's arrays are 256 MiB apart; a trace's allocations are usually far apart too, and two
//! that are not are one array to this analysis). A declared array (a synthetic kernel's 2-D
//! arrays) starts a new array at its base and takes its declared pitch.
//!
//! Regions (§1.1.6): `2^M` per array, a `2^ceil(M/2) x 2^floor(M/2)` grid (x gets the extra
//! bit) over the array's lines for a 2-D array, `2^M` along x for a 1-D one; each region
//! `ceil(lines / regions)` lines wide (and rows tall). Subregions: `N` per region, a
//! `2^ceil(log2 N / 2) x 2^floor(log2 N / 2)` grid (4 x 4 for N = 16) in 2-D, `N` along x in
//! 1-D; bit `k` = subregion `k` in raster order from the upper left.

use super::{Note, Params, Rect, LINE_BYTES, MAX_ARRAYS};
use crate::workload::kernel::ArrayDecl;
use serde::Serialize;
use std::collections::BTreeMap;

/// Address bits below a chunk (1 MiB).
pub const CHUNK_BITS: u32 = 20;
/// Largest line extent per axis of a 2-D array (16-bit start coordinates).
pub const MAX_LINES_2D: u64 = 1 << 16;
/// Largest line extent of a 1-D array (24-bit start coordinate, R8).
pub const MAX_LINES_1D: u64 = 1 << 24;

/// Loads seen in one chunk: lowest and highest address, and how many lanes.
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    /// Lowest address.
    pub min: u64,
    /// Highest address.
    pub max: u64,
    /// Lane accesses.
    pub count: u64,
}

impl Default for Chunk {
    fn default() -> Self {
        Self {
            min: u64::MAX,
            max: 0,
            count: 0,
        }
    }
}

impl Chunk {
    /// Adds one lane's address.
    pub fn add(&mut self, a: u64) {
        self.min = self.min.min(a);
        self.max = self.max.max(a);
        self.count += 1;
    }

    /// Adds another chunk's loads.
    pub fn merge(&mut self, o: &Chunk) {
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.count += o.count;
    }
}

/// One tracked array.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ArrayGeom {
    /// Base address, bytes (a declared base, else the lowest loaded address rounded down to a
    /// line).
    pub base: u64,
    /// Row pitch, bytes; 0 for a 1-D array.
    pub pitch: u64,
    /// Highest loaded address, bytes.
    pub end: u64,
    /// Lines per row (x extent).
    pub lines_x: u32,
    /// Rows (y extent; 1 for a 1-D array).
    pub rows: u32,
    /// Regions along x and y.
    pub regions: (u32, u32),
    /// Lines per region along x and y.
    pub region_size: (u32, u32),
    /// Subregions along x and y.
    pub subs: (u32, u32),
    /// Lines per subregion along x and y.
    pub sub_size: (u32, u32),
    /// Lane loads from it.
    pub loads: u64,
    /// Fraction of the lines its loads touch that lie inside their block's rectangle.
    pub coverage: f64,
}

impl ArrayGeom {
    /// The geometry of an array at `base` with row pitch `pitch` (0: 1-D) whose highest loaded
    /// address is `end`.
    pub fn new(base: u64, pitch: u64, end: u64, loads: u64, params: &Params) -> Self {
        let off = end - base;
        let (lines_x, rows) = if pitch == 0 {
            (off / LINE_BYTES + 1, 1)
        } else {
            (pitch.div_ceil(LINE_BYTES), off / pitch + 1)
        };
        let (lines_x, rows) = (
            lines_x.min(u32::MAX as u64) as u32,
            rows.min(u32::MAX as u64) as u32,
        );
        let m = params.region_bits;
        let n = params.subregions.trailing_zeros();
        let (regions, subs) = if pitch == 0 {
            ((1 << m, 1), (1 << n, 1))
        } else {
            (
                (1 << m.div_ceil(2), 1 << (m / 2)),
                (1 << n.div_ceil(2), 1 << (n / 2)),
            )
        };
        let region_size = (
            lines_x.div_ceil(regions.0).max(1),
            rows.div_ceil(regions.1).max(1),
        );
        let sub_size = (
            region_size.0.div_ceil(subs.0).max(1),
            region_size.1.div_ceil(subs.1).max(1),
        );
        Self {
            base,
            pitch,
            end,
            lines_x,
            rows,
            regions,
            region_size,
            subs,
            sub_size,
            loads,
            coverage: 1.0,
        }
    }

    /// Line coordinates `(x, y)` of byte address `addr` (at or above `base`): `x` =
    /// column byte / 128, `y` = row (§1.1.3).
    pub fn line(&self, addr: u64) -> (u32, u32) {
        let off = addr - self.base;
        if self.pitch == 0 {
            ((off / LINE_BYTES) as u32, 0)
        } else {
            (
                ((off % self.pitch) / LINE_BYTES) as u32,
                (off / self.pitch) as u32,
            )
        }
    }

    /// Region index of line `(x, y)`: `ry * RX + rx` (raster order).
    pub fn region_of(&self, x: u32, y: u32) -> u16 {
        let rx = (x / self.region_size.0).min(self.regions.0 - 1);
        let ry = (y / self.region_size.1).min(self.regions.1 - 1);
        (ry * self.regions.0 + rx) as u16
    }

    /// The subregion bit of line `(x, y)` in `region` (0 when the line lies outside it: a
    /// warp's mask covers only its block's region, A8).
    pub fn line_mask(&self, region: u16, x: u32, y: u32) -> u16 {
        if self.region_of(x, y) != region {
            return 0;
        }
        let (rx, ry) = (
            region as u32 % self.regions.0,
            region as u32 / self.regions.0,
        );
        let (ix, iy) = (x - rx * self.region_size.0, y - ry * self.region_size.1);
        let (sx, sy) = (ix / self.sub_size.0, iy / self.sub_size.1);
        1 << (sy * self.subs.0 + sx)
    }

    /// The subregions of `region` that rectangle `r` intersects (each subregion clipped to
    /// the region: when a region is smaller than the subregion grid, the subregions past its
    /// edge are empty and never set).
    pub fn rect_mask(&self, region: u16, r: &Rect) -> u16 {
        let (rx, ry) = (
            region as u32 % self.regions.0,
            region as u32 / self.regions.0,
        );
        let (x0, y0) = (rx * self.region_size.0, ry * self.region_size.1);
        // Lines `lo..hi` of subregion `i` along one axis, clipped to the region.
        let range = |origin: u32, size: u32, sub: u32, i: u32| {
            let lo = origin + i * sub;
            (lo, (lo + sub).min(origin + size))
        };
        let meets = |(lo, hi): (u32, u32), s: u32, n: u8| lo < hi && lo < s + n as u32 && s < hi;
        let mut mask = 0;
        for sy in 0..self.subs.1 {
            for sx in 0..self.subs.0 {
                if meets(
                    range(x0, self.region_size.0, self.sub_size.0, sx),
                    r.sx,
                    r.w,
                ) && meets(
                    range(y0, self.region_size.1, self.sub_size.1, sy),
                    r.sy,
                    r.h,
                ) {
                    mask |= 1 << (sy * self.subs.0 + sx);
                }
            }
        }
        mask
    }
}

/// The array holding `addr` (arrays sorted by base, none overlapping).
pub fn array_of(arrays: &[ArrayGeom], addr: u64) -> Option<usize> {
    let i = arrays.partition_point(|g| g.base <= addr);
    (i > 0 && addr <= arrays[i - 1].end).then(|| i - 1)
}

/// The arrays the loads in `chunks` (by chunk index) go to, declared ones with their pitch;
/// at most [`MAX_ARRAYS`] (the most loaded), sorted by base. Notes for the rest.
pub fn discover(
    chunks: &BTreeMap<u64, Chunk>,
    decls: &[ArrayDecl],
    params: &Params,
) -> (Vec<ArrayGeom>, Vec<Note>) {
    let mut notes = vec![];
    let mut decls: Vec<ArrayDecl> = decls.to_vec();
    decls.sort_by_key(|d| d.base);
    // Runs of chunks, split at gaps and at declared bases.
    let mut runs: Vec<(u64, Chunk)> = vec![]; // (first chunk index, merged loads)
    let mut prev: Option<u64> = None;
    for (&c, ch) in chunks {
        let declared_here = decls
            .iter()
            .any(|d| d.base >> CHUNK_BITS == c && prev.is_some_and(|p| p < c));
        let split = prev.is_none_or(|p| c > p + 2) || declared_here;
        if split {
            runs.push((c, *ch));
        } else {
            runs.last_mut().expect("a run is open").1.merge(ch);
        }
        prev = Some(c);
    }
    let mut found = vec![];
    for (_, ch) in runs {
        // The declared array this run belongs to: the last declared base at or below its
        // lowest address, within one chunk of it.
        let decl = decls
            .iter()
            .rev()
            .find(|d| d.base <= ch.min && (ch.min - d.base) >> CHUNK_BITS <= 1);
        let (base, pitch) = match decl {
            Some(d) => (d.base, d.pitch),
            None => (ch.min - ch.min % LINE_BYTES, 0),
        };
        if pitch != 0 && pitch % LINE_BYTES != 0 {
            notes.push(Note::UnalignedPitch { base, pitch });
        }
        let g = ArrayGeom::new(base, pitch, ch.max, ch.count, params);
        let fits = if pitch == 0 {
            (g.lines_x as u64) <= MAX_LINES_1D
        } else {
            (g.lines_x as u64) <= MAX_LINES_2D && (g.rows as u64) <= MAX_LINES_2D
        };
        if !fits {
            notes.push(Note::Untracked {
                base,
                reason: format!(
                    "{} lines x {} rows exceed the start coordinates' width ({} bits)",
                    g.lines_x,
                    g.rows,
                    if pitch == 0 { 24 } else { 16 }
                ),
            });
            continue;
        }
        found.push(g);
    }
    if found.len() > MAX_ARRAYS {
        // Keep the most loaded (ties: the lower base).
        let mut order: Vec<usize> = (0..found.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(found[i].loads), found[i].base));
        for &i in &order[MAX_ARRAYS..] {
            notes.push(Note::Untracked {
                base: found[i].base,
                reason: format!(
                    "the kernel loads from {} arrays; the {MAX_ARRAYS} most loaded are tracked",
                    found.len()
                ),
            });
        }
        let keep: std::collections::HashSet<usize> = order[..MAX_ARRAYS].iter().copied().collect();
        found = found
            .into_iter()
            .enumerate()
            .filter(|(i, _)| keep.contains(i))
            .map(|(_, g)| g)
            .collect();
    }
    found.sort_by_key(|g| g.base);
    (found, notes)
}
