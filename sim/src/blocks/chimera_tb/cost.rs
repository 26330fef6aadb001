//! Chimera's cost estimator (spec §1.5 with the resolutions of §5 A2-A4, A7 and §6 C-R1): from a
//! kernel's statistics (its KCB entry) and a thread block's counters (its SMST entry), the
//! preemption latency (cycles) and throughput overhead (warp instructions) of each technique.
//!
//! Every value is a 32-bit unsigned integer that saturates at [`MAX`], which also stands for
//! "unknown" (a statistic not gathered yet: the technique is then never preferred, L872).
//! Ratios are Q16.16 fixed point, truncating; products are taken in 64 bits, shifted, then
//! saturated. The functions are combinational: the RTL computes the same bits.

use crate::gpu::sites::kernel_sched::Technique;

/// Saturation value of every cost and counter; also "unknown / infinite".
pub const MAX: u32 = u32::MAX;

/// Fraction bits of the Q16.16 ratios.
pub const FRAC: u32 = 16;

/// The techniques in tie-break order (FLUSH < DRAIN < SWITCH, spec §5 A6): index 0, 1, 2 of
/// [`Costs`].
pub const ORDER: [Technique; 3] = [Technique::Flush, Technique::Drain, Technique::Switch];

/// `x` saturated to 32 bits.
pub fn sat(x: u64) -> u32 {
    x.min(MAX as u64) as u32
}

/// `a + b`, saturating at [`MAX`].
pub fn sat_add(a: u32, b: u32) -> u32 {
    a.saturating_add(b)
}

/// `(a * b) >> FRAC` for a Q16.16 `b`, saturating; [`MAX`] if either is.
pub fn mul_q(a: u32, b_q: u32) -> u32 {
    if a == MAX || b_q == MAX {
        return MAX;
    }
    sat((a as u64 * b_q as u64) >> FRAC)
}

/// `(num << FRAC) / den` in Q16.16, truncating and saturating; [`MAX`] when `den` is 0.
pub fn div_q(num: u64, den: u64) -> u32 {
    if den == 0 {
        return MAX;
    }
    let q = ((num as u128) << FRAC) / den as u128;
    q.min(MAX as u128) as u32
}

/// What the kernel scheduler keeps of a kernel (the KCB's runtime fields, spec §1.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KernelStats {
    /// Blocks completed (flushed runs excluded).
    pub done_tbs: u64,
    /// Their warp instructions and their cycles resident (S3).
    pub done_instr: u64,
    /// See `done_instr`.
    pub done_cycles: u64,
    /// Warp instructions the kernel has issued, and SM-cycles with a block of it resident
    /// (their ratio is its IPC on one SM, §5 A4).
    pub instrs: u64,
    /// See `instrs`.
    pub sm_cycles: u64,
    /// Cycles to save one block's context at one SM's share of the DRAM bandwidth
    /// (`ceil(context bytes / bytes per cycle per SM)`, 24 bits, precomputed at launch).
    pub sw_cyc_tb: u32,
}

/// The ratios the estimator uses, derived from [`KernelStats`] (S4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Derived {
    /// Average warp instructions per completed block (integer; [`MAX`] before any completes).
    pub avg_i: u32,
    /// A block's cycles per warp instruction, Q16.16 (`done_cycles / done_instr`).
    pub cpi_q: u32,
    /// The kernel's warp instructions per cycle on one SM, Q16.16 (`instrs / sm_cycles`).
    pub ipc_q: u32,
    /// See [`KernelStats::sw_cyc_tb`].
    pub sw_cyc_tb: u32,
}

impl KernelStats {
    /// The derived ratios (truncating; unknown ones [`MAX`]).
    pub fn derive(&self) -> Derived {
        Derived {
            avg_i: self.done_instr.checked_div(self.done_tbs).map_or(MAX, sat),
            cpi_q: div_q(self.done_cycles, self.done_instr),
            ipc_q: div_q(self.instrs, self.sm_cycles),
            sw_cyc_tb: self.sw_cyc_tb,
        }
    }
}

/// A resident block's counters, as the estimator reads them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TbCounters {
    /// Warp instructions issued since it started (`I_t`, saturating).
    pub issued: u32,
    /// It may be flushed (strict: its kernel is idempotent; relaxed: its NI bit, or its SM's,
    /// is clear).
    pub flushable: bool,
}

/// One block's latency and overhead per technique, indexed as [`ORDER`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    /// Preemption latency, cycles.
    pub lat: [u32; 3],
    /// Throughput overhead, warp instructions.
    pub ovh: [u32; 3],
}

impl Costs {
    /// The latency and overhead of `t`.
    pub fn of(&self, t: Technique) -> (u32, u32) {
        let i = ORDER.iter().position(|&o| o == t).expect("a technique");
        (self.lat[i], self.ovh[i])
    }
}

/// Which per-block drain overhead the estimator uses (spec §5 A3: the thesis gives the SM's
/// sum only, L827).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DrainOvh {
    /// `I_max - I_t`: how far the block is behind the most advanced victim (the literal
    /// reading: the sum is the thesis's `sum(I_max - I_t)`).
    #[default]
    Literal,
    /// `I_t - I_min`: how long the block's slot idles while the least advanced victim
    /// finishes (the slot-idle reading of §5 A3).
    SlotIdle,
}

/// The victim kernel's blocks on one SM, as each block's costs see them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victims {
    /// How many there are (`n`).
    pub n: u32,
    /// The most and the least warp instructions any of them has issued (0 and [`MAX`] when
    /// there are none).
    pub i_max: u32,
    /// See `i_max`.
    pub i_min: u32,
}

impl Victims {
    /// The figures of `tbs`.
    pub fn of(tbs: &[TbCounters]) -> Self {
        Self {
            n: tbs.len() as u32,
            i_max: tbs.iter().map(|t| t.issued).max().unwrap_or(0),
            i_min: tbs.iter().map(|t| t.issued).min().unwrap_or(MAX),
        }
    }
}

/// The costs of preempting block `tb`, one of the victims `sm` of an SM, with the drain
/// overhead `drain` (spec §1.5, REC per-TB form):
///
/// | | latency | overhead |
/// |---|---|---|
/// | flush | 0 (MAX if not flushable) | `I_t` (MAX if not flushable) |
/// | drain | `(avgI - I_t)+ * CPI` | `I_max - I_t` (literal) or `I_t - I_min` (slot-idle) |
/// | switch | `n * SW_CYC_TB` (the whole SM's save, C-R1) | `2 * SW_CYC_TB * IPC1SM` |
pub fn costs(k: &Derived, sm: &Victims, drain: DrainOvh, tb: TbCounters) -> Costs {
    let (lat_fl, ovh_fl) = if tb.flushable {
        (0, tb.issued)
    } else {
        (MAX, MAX)
    };
    let lat_dr = if k.avg_i == MAX {
        MAX
    } else {
        mul_q(k.avg_i.saturating_sub(tb.issued), k.cpi_q)
    };
    let ovh_dr = match drain {
        DrainOvh::Literal => sm.i_max.saturating_sub(tb.issued),
        DrainOvh::SlotIdle => tb.issued.saturating_sub(sm.i_min),
    };
    let lat_sw = sat(sm.n as u64 * k.sw_cyc_tb as u64);
    let ovh_sw = mul_q(sat(2 * k.sw_cyc_tb as u64), k.ipc_q);
    Costs {
        lat: [lat_fl, lat_dr, lat_sw],
        ovh: [ovh_fl, ovh_dr, ovh_sw],
    }
}
