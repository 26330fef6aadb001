//! The allocator against GPGPU-Sim's occupancy rule, and its counter arithmetic at the edges.

use super::*;
use crate::block::BlockKind;
use crate::config::GpuConfig;
use crate::core::occupancy::{occupancy, Footprint};

/// The `need_*` inputs of one block of `fp` on an SM with `warp`-thread warps.
fn need_of(fp: &Footprint, warp: u32) -> AllocIn {
    let d = fp.demand(warp);
    AllocIn {
        need_threads: d.threads,
        need_regs: d.registers as u32,
        need_smem: d.shmem_bytes,
        ..Default::default()
    }
}

#[test]
fn room_is_the_occupancy_rule_block_by_block() {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let params = Kind::params("base", "fermi");
    assert_eq!(
        params.caps(),
        [cfg.sm.max_threads, cfg.sm.registers, cfg.sm.shared_mem_bytes, cfg.sm.max_blocks],
        "the fermi preset is the GTX 480's SM"
    );
    let mut checked = 0;
    for threads in [1, 32, 100, 128, 256, 384, 512, 768, 1024, 1536] {
        for regs in [0, 1, 8, 16, 21, 32, 63] {
            for shmem in [0, 1, 4096, 12 * 1024, 16 * 1024, 48 * 1024] {
                let fp = Footprint {
                    threads,
                    regs_per_thread: regs,
                    shmem_bytes: shmem,
                };
                let Ok(occ) = occupancy(&cfg.sm, &fp) else {
                    continue;
                };
                let need = need_of(&fp, cfg.sm.warp_size);
                let mut g = Golden::new(params);
                let mut launched = AllocIn::default();
                for resident in 0..=occ.blocks {
                    let o = g.step(&AllocIn {
                        alloc_threads: launched.need_threads,
                        alloc_regs: launched.need_regs,
                        alloc_smem: launched.need_smem,
                        alloc_blocks: launched.alloc_blocks,
                        ..need
                    });
                    let ctx = format!("{fp:?}: {resident} resident of {}", occ.blocks);
                    assert_eq!(o.room, resident < occ.blocks, "{ctx}");
                    assert_eq!(o.room2, resident + 2 <= occ.blocks, "{ctx}");
                    // Launch one more next cycle.
                    launched = AllocIn {
                        alloc_blocks: 1,
                        ..need
                    };
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked} footprints");
}

#[test]
fn releases_make_room_again_in_the_same_cycle_they_are_reported() {
    let p = Kind::params("base", "proto"); // 4 blocks
    let mut g = Golden::new(p);
    let one = AllocIn {
        need_threads: 128,
        ..Default::default()
    };
    // 4 blocks of 128 threads fill 512 threads.
    g.step(&one);
    let o = g.step(&AllocIn {
        alloc_threads: 512,
        alloc_blocks: 4,
        ..one
    });
    assert!(!o.room && !o.room2);
    let o = g.step(&AllocIn {
        free_threads: 128,
        free_blocks: 1,
        ..one
    });
    assert!(o.room && !o.room2);
    let o = g.step(&AllocIn {
        free_threads: 256,
        free_blocks: 2,
        ..one
    });
    assert!(o.room && o.room2);
}

#[test]
fn counters_wrap_at_their_width_and_sums_do_not_overflow() {
    let p = Kind::params("base", "proto"); // threads: 10 bits, cap 512
    let mut g = Golden::new(p);
    // Releasing more than is in use wraps to 1023 - 1 + 1 = 1023: no room.
    let o = g.step(&AllocIn {
        free_threads: 1,
        ..Default::default()
    });
    assert!(!o.room);
    let mut s = vec![];
    g.state_values(&mut s);
    assert_eq!(s[0], 1023);
    // A need of 1023 on top of 1 in use is 1024, past any 10-bit value: no room, no wrap.
    let mut g = Golden::new(p);
    let o = g.step(&AllocIn {
        need_threads: 1023,
        alloc_threads: 1,
        ..Default::default()
    });
    assert!(!o.room);
    // Out-of-width inputs count modulo the width.
    let mut g = Golden::new(p);
    let o = g.step(&AllocIn {
        need_threads: 1024 + 512,
        ..Default::default()
    });
    assert!(o.room && !o.room2);
}

#[test]
fn a_resource_the_kernel_does_not_use_never_limits_it() {
    let mut g = Golden::new(Kind::params("base", "fermi"));
    let o = g.step(&AllocIn {
        alloc_regs: 32768,
        alloc_smem: 48 * 1024,
        alloc_threads: 1536,
        ..Default::default()
    });
    assert!(o.room && o.room2, "nothing needed, everything fits");
}
