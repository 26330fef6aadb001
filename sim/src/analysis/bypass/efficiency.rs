//! Static load efficiency (seed 001 §IV-D, Table II; spec §2.1.3, B9, B-R1, B-R7): the useful
//! fraction of the bytes a warp's load moves, cached (128 B L1 blocks) or bypassed (32 B L2
//! blocks), from the load's array access pattern.

use serde::Serialize;

/// Threads per warp (the `32` of Table II).
pub const WARP_SIZE: u32 = 32;

/// L1 block size, bytes: the transfer unit of a cached load (Table I; Bsize of E_on).
pub const L1_BLOCK_BYTES: u32 = 128;

/// L2 block size, bytes: the transfer unit of a bypassed load (Table I; Bsize of E_off).
pub const L2_BLOCK_BYTES: u32 = 32;

/// The three analysable array access patterns of Table II, `tid` the global thread index.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub enum AccessPattern {
    /// Pattern 1, `V + tid * C0` (C0 >= 1, in elements): a strided stream.
    Strided {
        /// The stride C0, elements per thread (>= 1; real-valued, B9).
        c0: f64,
    },
    /// Pattern 2, `V + tid / C0` (C0 >= 1): runs of C0 threads share one element.
    Shared {
        /// The sharing factor C0, threads per element (>= 1).
        c0: f64,
    },
    /// Pattern 3, `V`: every thread of the warp loads the same address.
    Uniform,
}

/// A load's efficiencies, each useful bytes / transferred bytes in (0, 1] for well-formed
/// inputs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Efficiency {
    /// Efficiency when the load is cached in L1 (128 B transfers), E_on.
    pub on: f64,
    /// Efficiency when the load bypasses L1 (32 B transfers), E_off.
    pub off: f64,
}

impl Efficiency {
    /// Table II's E_on (Bsize = 128) and E_off (Bsize = 32) of `pattern` for an array of
    /// `esize_bytes` elements read `dsize_bytes` per thread.
    pub fn of_pattern(pattern: AccessPattern, esize_bytes: u32, dsize_bytes: u32) -> Self {
        Self {
            on: efficiency(pattern, esize_bytes, dsize_bytes, L1_BLOCK_BYTES),
            off: efficiency(pattern, esize_bytes, dsize_bytes, L2_BLOCK_BYTES),
        }
    }

    /// Measured efficiencies for loads no Table II pattern fits (B-R1): useful / transferred
    /// bytes of the cache-all run (`on_*`) and of the bypass-all run (`off_*`), kernel-wide for
    /// mode `GLOBAL` or per load for mode `ORACLE`. `None` when a run transferred nothing or a
    /// ratio is not in (0, 1].
    pub fn measured(
        on_useful_bytes: u64,
        on_transferred_bytes: u64,
        off_useful_bytes: u64,
        off_transferred_bytes: u64,
    ) -> Option<Self> {
        let ratio = |useful: u64, moved: u64| {
            let e = useful as f64 / moved as f64;
            (moved > 0 && e > 0.0 && e <= 1.0).then_some(e)
        };
        Some(Self {
            on: ratio(on_useful_bytes, on_transferred_bytes)?,
            off: ratio(off_useful_bytes, off_transferred_bytes)?,
        })
    }
}

/// Table II's load efficiency (a fraction) of `pattern` with element size `esize_bytes`,
/// `dsize_bytes` requested per thread and transfer unit `block_bytes` (128 for E_on, 32 for
/// E_off), in real arithmetic (B9).
///
/// The formulas are the paper's verbatim, including pattern 2's `max(Esize*32/C0, 1)` whose
/// `1` is one byte, not one element. They give 0 < E <= 1 and E_off >= E_on when
/// 1 <= Dsize <= min(Esize, 32) and C0 >= 1; pattern 1 with C0 = 1 and Dsize = Esize has
/// E_on = E_off = 1 only for 4 <= Esize <= 32 (B-R7).
pub fn efficiency(
    pattern: AccessPattern,
    esize_bytes: u32,
    dsize_bytes: u32,
    block_bytes: u32,
) -> f64 {
    let (esize, dsize, bsize) = (
        f64::from(esize_bytes),
        f64::from(dsize_bytes),
        f64::from(block_bytes),
    );
    let warp = f64::from(WARP_SIZE);
    match pattern {
        AccessPattern::Strided { c0 } => {
            let threads_per_block = (bsize / (esize * c0)).max(1.0).min(warp);
            threads_per_block * dsize / bsize
        }
        AccessPattern::Shared { c0 } => {
            let spanned_bytes = (esize * warp / c0).max(1.0).min(bsize);
            spanned_bytes * dsize / (esize * bsize)
        }
        AccessPattern::Uniform => (dsize / bsize).min(1.0),
    }
}

/// Which Table II pattern one warp instruction's addresses follow, from its active lanes'
/// `(lane, byte address)` pairs (any order) and the per-lane access width in bytes.
///
/// It assumes Esize = Dsize = `width_bytes` (a trace shows only what a lane reads). That costs
/// nothing for pattern 1, whose efficiency depends only on the stride Esize*C0 in bytes and
/// Dsize; a struct field read with stride S gives C0 = S / width. Patterns are tried in the
/// order 3, 1, 2: all addresses equal is `Uniform`; `V + lane*S` with S >= width is
/// `Strided { c0: S / width }`; `V + floor((lane + p) / C0) * width` for an integer
/// 2 <= C0 <= 32 and phase 0 <= p < C0 (the warp's first thread need not start a run) is
/// `Shared`, the smallest fitting C0 first. `None` when nothing fits (irregular or decreasing
/// addresses, a stride below the width), on an empty list, a repeated lane or a zero width.
pub fn classify(lane_addrs: &[(u32, u64)], width_bytes: u32) -> Option<AccessPattern> {
    if lane_addrs.is_empty() || width_bytes == 0 {
        return None;
    }
    let mut lanes: Vec<(i128, i128)> = lane_addrs
        .iter()
        .map(|&(lane, addr)| (i128::from(lane), i128::from(addr)))
        .collect();
    lanes.sort_unstable();
    if lanes.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let width = i128::from(width_bytes);
    if lanes.iter().all(|&(_, addr)| addr == lanes[0].1) {
        return Some(AccessPattern::Uniform);
    }
    strided(&lanes, width).or_else(|| shared(&lanes, width))
}

/// Pattern 1 on lane-sorted `(lane, address)` pairs: one integer stride >= `width`.
fn strided(lanes: &[(i128, i128)], width: i128) -> Option<AccessPattern> {
    let (first, second) = (lanes[0], *lanes.get(1)?);
    let (dlane, daddr) = (second.0 - first.0, second.1 - first.1);
    if daddr % dlane != 0 {
        return None;
    }
    let stride = daddr / dlane;
    let fits = stride >= width
        && lanes
            .iter()
            .all(|&(lane, addr)| addr == first.1 + (lane - first.0) * stride);
    fits.then(|| AccessPattern::Strided {
        c0: stride as f64 / width as f64,
    })
}

/// Pattern 2 on lane-sorted `(lane, address)` pairs: the smallest C0 in 2..=32, then the
/// smallest phase, with `address = V + floor((lane + phase) / C0) * width` for every lane.
fn shared(lanes: &[(i128, i128)], width: i128) -> Option<AccessPattern> {
    let (lane0, addr0) = lanes[0];
    (2..=i128::from(WARP_SIZE)).find_map(|c0| {
        let fits_phase = |phase: i128| {
            let base = addr0 - (lane0 + phase) / c0 * width;
            lanes
                .iter()
                .all(|&(lane, addr)| addr == base + (lane + phase) / c0 * width)
        };
        (0..c0)
            .any(fits_phase)
            .then_some(AccessPattern::Shared { c0: c0 as f64 })
    })
}
