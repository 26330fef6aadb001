//! SM resource allocator: whether one or two more thread blocks fit on an SM, from counters of
//! the SM's resources in use. Its baseline policy (`base`) is GPGPU-Sim's occupancy rule
//! (`shader_core_config::max_cta`, [`crate::core::occupancy`]) done the way hardware does it:
//! instead of a division per kernel, four counters (threads, registers, shared memory, block
//! slots) and a compare per resource each cycle. With every block of a kernel alike, "`k` more
//! fit" is exactly `resident + k <= occupancy`. GPU Maestro's 2-way allocator (two kernels
//! sharing an SM) plugs in at the same site.
//!
//! # Ports and cycle semantics (the SM resource allocator site's protocol)
//! Per resource `r` (threads, padded to whole warps; registers, rounded as GPGPU-Sim does;
//! shared memory, bytes; block slots), with `w_r` = bits of its capacity `cap_r`:
//! * `need_r` (`w_r` bits): what one block of the next kernel's blocks needs (block slots: 1,
//!   implied, no port). Held by the SM while its kernel runs.
//! * `alloc_r`, `free_r` (`w_r` bits): totals of the blocks the SM made resident and released
//!   in the *previous* cycle (the allocator is stepped before the dispatcher, and the SM's
//!   launches and retirements of a cycle come after it).
//! * Outputs (Mealy): with `used'_r = used_r + alloc_r - free_r` (modulo `2^w_r`), `room`:
//!   `used'_r + need_r <= cap_r` for every `r`; `room2`: `used'_r + 2 need_r <= cap_r` for
//!   every `r` (sums without overflow). At the edge `used_r <- used'_r`; reset clears it.
//!
//! A resource the block does not use (`need_r = 0`) never limits it, as in GPGPU-Sim.

use crate::block::{Block, Inspect, PortSpec};
use crate::port_bundle;

/// The four resources, in port order.
pub const RESOURCES: [&str; 4] = ["threads", "regs", "smem", "blocks"];

/// Allocator parameters: the SM's capacities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Resident threads (GPGPU-Sim `-gpgpu_shader_core_pipeline`), 1..=2^31.
    pub threads: u32,
    /// 32-bit registers (`-gpgpu_shader_registers`).
    pub registers: u32,
    /// Shared memory, bytes (`-gpgpu_shmem_size`).
    pub shared_mem: u32,
    /// Thread-block slots (`-gpgpu_shader_cta`).
    pub blocks: u32,
}

/// Parameter presets: the SMs of the papers' GPUs and a small one.
pub const PRESETS: &[(&str, Params)] = &[
    (
        "fermi",
        Params {
            threads: 1536,
            registers: 32768,
            shared_mem: 48 * 1024,
            blocks: 8,
        },
    ),
    (
        "titanv",
        Params {
            threads: 2048,
            registers: 65536,
            shared_mem: 96 * 1024,
            blocks: 32,
        },
    ),
    (
        "proto",
        Params {
            threads: 512,
            registers: 8192,
            shared_mem: 16 * 1024,
            blocks: 4,
        },
    ),
];

/// Bits of an unsigned value (at least 1).
pub fn bits_of(v: u32) -> u32 {
    (32 - v.leading_zeros()).max(1)
}

impl Params {
    /// Capacities in [`RESOURCES`] order.
    pub fn caps(&self) -> [u32; 4] {
        [self.threads, self.registers, self.shared_mem, self.blocks]
    }

    /// Port widths in [`RESOURCES`] order: the bits of each capacity.
    pub fn widths(&self) -> [u32; 4] {
        self.caps().map(bits_of)
    }
}

port_bundle! {
    /// Allocator inputs for one cycle.
    pub struct AllocIn for Params {
        /// Threads of one more block (padded to whole warps).
        pub need_threads: u32 = |p| p.widths()[0],
        /// Registers of one more block.
        pub need_regs: u32 = |p| p.widths()[1],
        /// Shared memory of one more block, bytes.
        pub need_smem: u32 = |p| p.widths()[2],
        /// Threads of the blocks made resident last cycle.
        pub alloc_threads: u32 = |p| p.widths()[0],
        /// Their registers.
        pub alloc_regs: u32 = |p| p.widths()[1],
        /// Their shared memory.
        pub alloc_smem: u32 = |p| p.widths()[2],
        /// How many blocks were made resident last cycle.
        pub alloc_blocks: u32 = |p| p.widths()[3],
        /// Threads of the blocks released last cycle.
        pub free_threads: u32 = |p| p.widths()[0],
        /// Their registers.
        pub free_regs: u32 = |p| p.widths()[1],
        /// Their shared memory.
        pub free_smem: u32 = |p| p.widths()[2],
        /// How many blocks were released last cycle.
        pub free_blocks: u32 = |p| p.widths()[3],
    }
}

port_bundle! {
    /// Allocator outputs for one cycle.
    pub struct AllocOut for Params {
        /// One more block fits.
        pub room: bool = |_p| 1,
        /// Two more blocks fit.
        pub room2: bool = |_p| 1,
    }
}

impl AllocIn {
    /// `need`, `alloc` and `free` per resource, in [`RESOURCES`] order (`need_blocks` = 1).
    pub fn by_resource(&self) -> [(u32, u32, u32); 4] {
        [
            (self.need_threads, self.alloc_threads, self.free_threads),
            (self.need_regs, self.alloc_regs, self.free_regs),
            (self.need_smem, self.alloc_smem, self.free_smem),
            (1, self.alloc_blocks, self.free_blocks),
        ]
    }
}

/// Golden model of the allocator.
#[derive(Clone, Debug)]
pub struct Golden {
    params: Params,
    /// Per resource: in use (`w_r` bits).
    used: [u32; 4],
    /// Per resource: the capacity, and the mask of its `w_r` port bits (from `params`).
    caps: [u64; 4],
    masks: [u64; 4],
}

impl Golden {
    /// An allocator in its reset state (nothing in use).
    pub fn new(params: Params) -> Self {
        Self {
            params,
            used: [0; 4],
            caps: params.caps().map(u64::from),
            masks: params.widths().map(|w| (1u64 << w) - 1),
        }
    }
}

impl Block for Golden {
    type In = AllocIn;
    type Out = AllocOut;

    fn reset(&mut self) {
        self.used = [0; 4];
    }

    fn step(&mut self, inp: &AllocIn) -> AllocOut {
        let (used, out) = self.next(inp);
        self.used = used;
        out
    }

    /// Answers for a cycle in which no block was made resident or released (the counts stay).
    fn holds(&self, inp: &AllocIn) -> Option<AllocOut> {
        let quiet = (inp.by_resource().iter()).all(|&(_, alloc, free)| alloc == 0 && free == 0);
        quiet.then(|| self.next(inp).1)
    }
}

impl Golden {
    /// The counts after a step with `inp`, and its outputs.
    fn next(&self, inp: &AllocIn) -> ([u32; 4], AllocOut) {
        let (caps, masks) = (self.caps, self.masks);
        let (mut room, mut room2) = (true, true);
        let mut used = self.used;
        for (r, (need, alloc, free)) in inp.by_resource().into_iter().enumerate() {
            let mask = masks[r];
            let now = (used[r] as u64 + (alloc as u64 & mask)).wrapping_sub(free as u64 & mask)
                & mask;
            let need = need as u64 & mask;
            room &= now + need <= caps[r];
            room2 &= now + 2 * need <= caps[r];
            used[r] = now as u32;
        }
        (used, AllocOut { room, room2 })
    }
}

impl Inspect for Golden {
    fn state_specs(&self) -> Vec<PortSpec> {
        let w = self.params.widths();
        (0..4)
            .map(|r| PortSpec::new(format!("used_{}", RESOURCES[r]), w[r]))
            .collect()
    }

    fn state_values(&self, out: &mut Vec<u64>) {
        out.clear();
        out.extend(self.used.map(u64::from));
    }
}

/// The allocator as a registry entry.
pub struct Kind;

impl crate::block::BlockKind for Kind {
    const NAME: &'static str = "sm_alloc";
    const SUMMARY: &'static str =
        "SM resource allocator: room for one/two more thread blocks (threads, registers, shared memory, slots)";
    const POLICIES: &'static [&'static str] = &["base"];
    const PRESETS: &'static [&'static str] = &["fermi", "titanv", "proto"];
    type Params = Params;
    type In = AllocIn;
    type Out = AllocOut;
    type Golden = Golden;
    type Stim = stimulus::Stimulus;

    fn params(_policy: &str, preset: &str) -> Params {
        crate::block::preset_of(PRESETS, preset)
    }
    fn golden(params: &Params) -> Golden {
        Golden::new(*params)
    }
    fn stimulus(params: &Params, seed: u64) -> stimulus::Stimulus {
        stimulus::Stimulus::new(*params, seed)
    }
    const HOLDS: bool = true;
    fn manifest_params(p: &Params) -> Vec<(&'static str, u64)> {
        vec![
            ("threads", p.threads as u64),
            ("registers", p.registers as u64),
            ("shared_mem", p.shared_mem as u64),
            ("blocks", p.blocks as u64),
        ]
    }
    fn busy(out: &AllocOut) -> bool {
        out.room
    }
    fn describe(p: &Params) -> String {
        format!(
            "{} threads, {} registers, {} B shared memory, {} blocks",
            p.threads, p.registers, p.shared_mem, p.blocks
        )
    }
}

pub mod stimulus;

#[cfg(test)]
mod tests;
