//! Thread blocks per SM, as GPGPU-Sim's `shader_core_config::max_cta` computes them: the
//! minimum over
//! * threads: `max_threads / padded`, where `padded` is the block's threads rounded up to whole
//!   warps;
//! * shared memory: `shared_mem_bytes / shmem_per_block` (no limit without shared memory);
//! * registers: `registers / (padded * round_up(regs_per_thread, 4))` (no limit without
//!   registers);
//! * block slots: `max_blocks`.
//!
//! Ties name the first limiter in that order, as GPGPU-Sim's reports do.

use crate::config::SmConfig;
use serde::Serialize;
use thiserror::Error;

/// What one thread block of a kernel needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Threads per block.
    pub threads: u32,
    /// Registers per thread.
    pub regs_per_thread: u32,
    /// Shared memory per block, bytes.
    pub shmem_bytes: u32,
}

impl Footprint {
    /// One block of the kernel `info` describes.
    pub fn of_kernel(info: &crate::workload::kernel::KernelInfo) -> Self {
        Self {
            threads: info.block_threads(),
            regs_per_thread: info.regs_per_thread,
            shmem_bytes: info.shmem_bytes,
        }
    }
}

/// What one block of a [`Footprint`] takes of an SM's resources, as GPGPU-Sim counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Demand {
    /// Threads, padded to whole warps.
    pub threads: u32,
    /// Registers: padded threads x registers per thread rounded up to a multiple of 4.
    pub registers: u64,
    /// Shared memory, bytes.
    pub shmem_bytes: u32,
}

impl Footprint {
    /// What one block takes on an SM with `warp_size`-thread warps.
    pub fn demand(&self, warp_size: u32) -> Demand {
        let warp = warp_size.max(1);
        let threads = self.threads.div_ceil(warp) * warp;
        Demand {
            threads,
            registers: threads as u64 * ((self.regs_per_thread as u64 + 3) & !3),
            shmem_bytes: self.shmem_bytes,
        }
    }
}

/// The resource that bounds the number of resident blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Limiter {
    /// Threads (warp slots).
    Threads,
    /// Shared memory.
    SharedMemory,
    /// Register file.
    Registers,
    /// Thread-block slots.
    BlockSlots,
}

/// Resident blocks per SM and the limit each resource imposes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Occupancy {
    /// Blocks that fit at once (at least 1).
    pub blocks: u32,
    /// The binding resource.
    pub limiter: Limiter,
    /// Limit from threads.
    pub by_threads: u32,
    /// Limit from shared memory (`u32::MAX` when the kernel uses none).
    pub by_shared_mem: u32,
    /// Limit from registers (`u32::MAX` when the kernel uses none).
    pub by_registers: u32,
    /// Limit from block slots.
    pub by_slots: u32,
}

/// A kernel whose thread block cannot run on the SM at all.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("a thread block of {threads} threads, {regs} registers/thread and {shmem} B of shared memory does not fit on one SM: {why}")]
pub struct DoesNotFit {
    threads: u32,
    regs: u32,
    shmem: u32,
    why: String,
}

/// Resident blocks of `fp` on an SM of `sm`.
pub fn occupancy(sm: &SmConfig, fp: &Footprint) -> Result<Occupancy, DoesNotFit> {
    let demand = fp.demand(sm.warp_size);
    let padded = demand.threads;
    let regs = (fp.regs_per_thread as u64 + 3) & !3;
    let by_threads = sm.max_threads.checked_div(padded).unwrap_or(0);
    let by_shared_mem = sm
        .shared_mem_bytes
        .checked_div(fp.shmem_bytes)
        .unwrap_or(u32::MAX);
    let by_registers = match demand.registers {
        0 => u32::MAX,
        per_block => (sm.registers as u64 / per_block) as u32,
    };
    let by_slots = sm.max_blocks;
    let limits = [
        (Limiter::Threads, by_threads),
        (Limiter::SharedMemory, by_shared_mem),
        (Limiter::Registers, by_registers),
        (Limiter::BlockSlots, by_slots),
    ];
    let (limiter, blocks) = limits
        .into_iter()
        .fold(limits[0], |best, l| if l.1 < best.1 { l } else { best });
    if blocks == 0 || fp.threads == 0 {
        let why = match limiter {
            _ if fp.threads == 0 => "the block has no threads".to_string(),
            Limiter::Threads => format!(
                "{padded} threads (padded to warps) > {} per SM",
                sm.max_threads
            ),
            Limiter::SharedMemory => format!(
                "{} B > {} B of shared memory per SM",
                fp.shmem_bytes, sm.shared_mem_bytes
            ),
            Limiter::Registers => format!(
                "{} registers ({padded} threads x {regs}) > {} per SM",
                demand.registers, sm.registers
            ),
            Limiter::BlockSlots => "the SM has no thread-block slots".to_string(),
        };
        return Err(DoesNotFit {
            threads: fp.threads,
            regs: fp.regs_per_thread,
            shmem: fp.shmem_bytes,
            why,
        });
    }
    Ok(Occupancy {
        blocks,
        limiter,
        by_threads,
        by_shared_mem,
        by_registers,
        by_slots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GpuConfig;

    fn sm(name: &str) -> SmConfig {
        GpuConfig::preset(name).unwrap().sm
    }

    fn fp(threads: u32, regs_per_thread: u32, shmem_bytes: u32) -> Footprint {
        Footprint {
            threads,
            regs_per_thread,
            shmem_bytes,
        }
    }

    #[test]
    fn the_real_traces_fit_one_block_per_gtx480_sm() {
        // vectoradd: 1024 threads, 8 registers: threads limit 1, registers 4.
        let o = occupancy(&sm("gtx480"), &fp(1024, 8, 0)).unwrap();
        assert_eq!(
            (o.blocks, o.limiter, o.by_registers, o.by_shared_mem),
            (1, Limiter::Threads, 4, u32::MAX)
        );
        // matrixmul: 1024 threads, 30 registers (-> 32), 8 KB shared memory.
        let o = occupancy(&sm("gtx480"), &fp(1024, 30, 8192)).unwrap();
        assert_eq!(
            (o.blocks, o.by_threads, o.by_registers, o.by_shared_mem),
            (1, 1, 1, 6)
        );
        assert_eq!(o.limiter, Limiter::Threads, "ties name the first limiter");
    }

    #[test]
    fn each_resource_can_be_the_limit() {
        let s = sm("gtx480"); // 1536 threads, 8 blocks, 32768 regs, 48 KB
        assert_eq!(
            occupancy(&s, &fp(128, 16, 0)).unwrap().limiter,
            Limiter::BlockSlots
        ); // 12 by threads
        let o = occupancy(&s, &fp(128, 16, 12 * 1024)).unwrap();
        assert_eq!((o.blocks, o.limiter), (4, Limiter::SharedMemory));
        let o = occupancy(&s, &fp(256, 21, 0)).unwrap(); // 21 -> 24 regs: 32768 / 6144 = 5
        assert_eq!((o.blocks, o.limiter), (5, Limiter::Registers));
        // 100 threads pad to 128: 1536 / 128 = 12 by threads, slots 8.
        assert_eq!(occupancy(&s, &fp(100, 0, 0)).unwrap().by_threads, 12);
        let o = occupancy(&sm("titanv"), &fp(64, 32, 0)).unwrap();
        assert_eq!(
            (o.blocks, o.limiter),
            (32, Limiter::Threads),
            "2048 / 64 = 32 = slots: threads first"
        );
    }

    #[test]
    fn blocks_that_cannot_fit_are_errors_naming_the_resource() {
        let s = sm("gtx480");
        let e = occupancy(&s, &fp(2048, 8, 0)).unwrap_err().to_string();
        assert!(
            e.contains("2048 threads (padded to warps) > 1536 per SM"),
            "{e}"
        );
        let e = occupancy(&s, &fp(256, 8, 64 * 1024))
            .unwrap_err()
            .to_string();
        assert!(e.contains("65536 B > 49152 B of shared memory"), "{e}");
        let e = occupancy(&s, &fp(1024, 63, 0)).unwrap_err().to_string();
        assert!(
            e.contains("65536 registers (1024 threads x 64) > 32768"),
            "{e}"
        );
        assert!(occupancy(&s, &fp(0, 8, 0))
            .unwrap_err()
            .to_string()
            .contains("no threads"));
    }
}
