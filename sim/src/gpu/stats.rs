//! Statistics of a GPU run: event counters summed over the GPU, per SM, and per kernel (each
//! event under the kernel whose request caused it: [`KernelCounters`]), and each kernel's
//! preemptions ([`PreemptionCounts`]).

use crate::mem::data_cache::FailCauses;
use serde::Serialize;

/// Implements field-wise subtraction (`later - earlier`) for a counter struct.
macro_rules! counters_sub {
    ($t:ty { $($f:ident),+ $(,)? }) => {
        impl $t {
            /// Field-wise `self - earlier` (counts between two snapshots).
            pub fn since(&self, earlier: &Self) -> Self {
                Self { $($f: self.$f.since(&earlier.$f)),+ }
            }
        }
    };
}

trait Since {
    fn since(&self, earlier: &Self) -> Self;
}

counters_sub!(FailCauses {
    miss_queue_full,
    mshr_full,
    merge_limit,
    all_ways_reserved
});

impl Since for FailCauses {
    fn since(&self, earlier: &Self) -> Self {
        FailCauses::since(self, earlier)
    }
}

impl Since for u64 {
    fn since(&self, earlier: &Self) -> Self {
        self - earlier
    }
}

/// Accesses of one cache level (summed over its instances).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheCounts {
    /// Reads and writes taken (`hits + hit_reserved + misses + writes`).
    pub accesses: u64,
    /// Read hits.
    pub hits: u64,
    /// Reads merged into a pending miss of the same line (MSHR merges).
    pub hit_reserved: u64,
    /// Read misses (line fetches from the next level).
    pub misses: u64,
    /// Writes taken.
    pub writes: u64,
    /// Accesses refused for lack of a resource (MSHR, miss queue, merge limit, reserved set);
    /// each retry counts again (`fail_causes`' total).
    pub fails: u64,
    /// The same, by cause.
    pub fail_causes: FailCauses,
    /// Dirty lines written back (write-back caches).
    pub writebacks: u64,
    /// Lines prefetched (L1I with I-prefetch; not counted in `accesses`).
    pub prefetches: u64,
    /// Sectors the reads and writes taken touch (GPGPU-Sim's unit of a sectored cache's
    /// accesses: 32 B on the L2; equal to `accesses` in a cache without sectors).
    pub sector_accesses: u64,
    /// Sectors read misses fetch (GPGPU-Sim's `MISS + SECTOR_MISS` of reads).
    pub sector_read_misses: u64,
}
counters_sub!(CacheCounts {
    accesses,
    hits,
    hit_reserved,
    misses,
    writes,
    fails,
    fail_causes,
    writebacks,
    prefetches,
    sector_accesses,
    sector_read_misses
});

impl CacheCounts {
    /// Adds the counters of one cache instance.
    pub fn add(&mut self, s: &crate::mem::data_cache::CacheStats) {
        self.accesses += s.reads + s.writes;
        self.hits += s.hits;
        self.hit_reserved += s.hit_reserved;
        self.misses += s.misses;
        self.writes += s.writes;
        self.fails += s.fail_causes.total();
        self.fail_causes.add(&s.fail_causes);
        self.writebacks += s.writebacks;
        self.prefetches += s.prefetches;
        self.sector_accesses += s.read_sectors + s.write_sectors;
        self.sector_read_misses += s.read_sector_misses;
    }
}

/// DRAM traffic, in column bursts (`chips_per_channel * chip_bus_bytes * burst_length` bytes
/// each: 64 B on `gtx480`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct DramCounts {
    /// Read bursts.
    pub reads: u64,
    /// Write bursts.
    pub writes: u64,
    /// Bursts to a row an earlier burst had already opened (row-buffer hits).
    pub row_hits: u64,
    /// Bytes of data moved (a burst that reads a sector smaller than itself counts the
    /// sector: the useful bytes).
    pub bytes: u64,
    /// The reads' share of `bytes`.
    pub read_bytes: u64,
    /// DRAM command-clock cycles the data buses were busy (summed over channels).
    pub busy_cycles: u64,
}
counters_sub!(DramCounts {
    reads,
    writes,
    row_hits,
    bytes,
    read_bytes,
    busy_cycles
});

/// What each warp scheduler did each cycle (one count per scheduler per cycle).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StallCounts {
    /// An instruction was issued.
    pub issued: u64,
    /// Idle or control: no warp had a decoded instruction (empty i-buffers, fetch misses,
    /// barriers, exited warps, no warps).
    pub idle: u64,
    /// Data dependence: instructions were decoded but every one waited on the scoreboard
    /// (read-after-write or write-after-write on a pending register).
    pub raw: u64,
    /// Structural: an instruction had its operands but its unit (SP, SFU, LSU) was busy.
    pub structural: u64,
    /// Cycles the load/store unit could not send an access because the L1D refused it
    /// (MSHRs, miss queue, merge limit, reserved set): the memory-side structural stall.
    pub lsu_blocked: u64,
    /// No instruction issued while some warp of the scheduler was stopped by a preemption
    /// (its block being switched out, restored or flushed); counted instead of the three
    /// above. Absent from reports without preemption.
    #[serde(skip_serializing_if = "is_zero")]
    pub preempted: u64,
    /// Of the `issued` cycles, those whose warp issued more than one instruction
    /// (`pipeline.issue_per_warp`; GPGPU-Sim's `dual_issue_nums`). Absent when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub multi_issued: u64,
}
counters_sub!(StallCounts {
    issued,
    idle,
    raw,
    structural,
    lsu_blocked,
    preempted,
    multi_issued
});

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Every counter of the GPU at one instant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Core cycles.
    pub cycles: u64,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions issued (active lanes of each warp instruction).
    pub thread_instructions: u64,
    /// Thread blocks completed.
    pub blocks: u64,
    /// L1 instruction caches.
    pub l1i: CacheCounts,
    /// L1 data caches.
    pub l1d: CacheCounts,
    /// L2 slices.
    pub l2: CacheCounts,
    /// DRAM channels.
    pub dram: DramCounts,
    /// Scheduler cycles by outcome.
    pub stalls: StallCounts,
    /// Flits through the SM-to-memory crossbar.
    pub icnt_up_flits: u64,
    /// Flits through the memory-to-SM crossbar.
    pub icnt_down_flits: u64,
    /// Transactions that entered the LSU queue (NewCAR).
    pub lsu_queue_enqueued: u64,
}
counters_sub!(Counters {
    cycles,
    warp_instructions,
    thread_instructions,
    blocks,
    l1i,
    l1d,
    l2,
    dram,
    stalls,
    icnt_up_flits,
    icnt_down_flits,
    lsu_queue_enqueued
});

/// Thread instructions per cycle (0 over no cycles).
fn ipc(thread_instructions: u64, cycles: u64) -> f64 {
    if cycles == 0 {
        0.0
    } else {
        thread_instructions as f64 / cycles as f64
    }
}

impl Counters {
    /// Thread instructions per cycle (GPGPU-Sim's `gpu_ipc`).
    pub fn ipc(&self) -> f64 {
        ipc(self.thread_instructions, self.cycles)
    }
}

/// One kernel's counters: its own instructions and blocks, and the cache and DRAM events its
/// requests caused (a write-back counts under the kernel whose access evicted the line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KernelCounters {
    /// Core cycles from its start to its end.
    pub cycles: u64,
    /// Warp instructions issued (re-executed ones of flushed blocks included).
    pub warp_instructions: u64,
    /// Thread instructions issued.
    pub thread_instructions: u64,
    /// Thread blocks completed.
    pub blocks: u64,
    /// L1 instruction caches.
    pub l1i: CacheCounts,
    /// L1 data caches.
    pub l1d: CacheCounts,
    /// L2 slices.
    pub l2: CacheCounts,
    /// DRAM channels.
    pub dram: DramCounts,
}

impl KernelCounters {
    /// Thread instructions per cycle.
    pub fn ipc(&self) -> f64 {
        ipc(self.thread_instructions, self.cycles)
    }
}

/// Preemptions of one technique.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TechniqueCounts {
    /// Blocks taken off their SMs.
    pub blocks: u64,
    /// Cycles from each request until the block's slot was free, summed.
    pub cycles: u64,
    /// Context bytes moved to and from memory (saved and restored).
    pub bytes: u64,
}

/// One kernel's preemptions, by technique.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PreemptionCounts {
    /// Context switches.
    pub switch: TechniqueCounts,
    /// Drains.
    pub drain: TechniqueCounts,
    /// Flushes.
    pub flush: TechniqueCounts,
    /// Blocks restored after a switch.
    pub restored: u64,
    /// Warp instructions flushed blocks had issued, executed again when they restarted.
    pub reexecuted_warp_instructions: u64,
}

impl PreemptionCounts {
    /// Counts a block taken off its SM by `technique` in `cycles`, moving `bytes`.
    pub fn add(
        &mut self,
        technique: super::sites::kernel_sched::Technique,
        cycles: u64,
        bytes: u64,
    ) {
        use super::sites::kernel_sched::Technique;
        let t = match technique {
            Technique::Switch => &mut self.switch,
            Technique::Drain => &mut self.drain,
            Technique::Flush => &mut self.flush,
        };
        t.blocks += 1;
        t.cycles += cycles;
        t.bytes += bytes;
    }
}

/// Per-SM counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SmCounts {
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Thread instructions issued.
    pub thread_instructions: u64,
    /// Thread blocks completed.
    pub blocks: u64,
    /// Cycles with at least one resident thread block.
    pub busy_cycles: u64,
    /// Transactions that entered the LSU queue (NewCAR).
    pub lsu_queue_enqueued: u64,
}

/// The fraction of the run's DRAM command-clock cycles during which the data buses were busy,
/// averaged over the channels of `cfg` (0 to 1; a run of `c.cycles` core cycles lasts
/// `c.cycles * dram.clock_mhz / sm.core_clock_mhz` DRAM cycles).
pub fn dram_bus_busy(cfg: &crate::config::GpuConfig, c: &Counters) -> f64 {
    let dram_cycles = c.cycles as f64 * cfg.dram.clock_mhz / cfg.sm.core_clock_mhz;
    c.dram.busy_cycles as f64 / (dram_cycles * cfg.dram.channels as f64).max(1.0)
}

/// One static global load of a kernel (one PC): what its warp instructions asked of the L1D
/// and the L2 (the bypass framework's profile, seed 001 §III-A; `sim --json` lists them per
/// kernel as `loads`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LoadCounts {
    /// Its PC (bytes from the kernel's start).
    pub pc: u32,
    /// Warp instructions issued.
    pub warp_instructions: u64,
    /// Distinct bytes the active lanes asked for, summed over the warp instructions.
    pub useful_bytes: u64,
    /// Coalesced transactions: L1D accesses of a cached load (one per 128 B line for 4 B and
    /// wider accesses) and 32 B sector requests of a bypassed one.
    pub accesses: u64,
    /// L1D read hits.
    pub hits: u64,
    /// L1D reads merged into a pending miss of their line (no L2 request either).
    pub hit_reserved: u64,
    /// L1D read misses (each fetches its line from the L2).
    pub misses: u64,
    /// Sector requests that bypassed the L1D (to the L2, neither looked up nor filled).
    pub bypassed: u64,
    /// Bytes moved between the L1D and the L2 for it: a miss's line, a bypassed sector.
    pub l2_bytes: u64,
}

impl LoadCounts {
    /// Accesses that sent no request to the L2 (hits and merges): the paper's `hit_i`.
    pub fn l1_hits(&self) -> u64 {
        self.hits + self.hit_reserved
    }

    /// Adds `other`'s counts (the same load seen on another SM).
    pub fn add(&mut self, other: &Self) {
        self.warp_instructions += other.warp_instructions;
        self.useful_bytes += other.useful_bytes;
        self.accesses += other.accesses;
        self.hits += other.hits;
        self.hit_reserved += other.hit_reserved;
        self.misses += other.misses;
        self.bypassed += other.bypassed;
        self.l2_bytes += other.l2_bytes;
    }
}
