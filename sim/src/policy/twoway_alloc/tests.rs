//! The 2-way allocator at the SM: what it tells the SM, single-kernel runs equal to the
//! occupancy rule's, two kernels at opposite ends, and the inputs it refuses.

use super::*;
use crate::gpu::{Gpu, SimOptions};
use crate::workload::kernel::KernelInfo;
use crate::workload::Dim3;

fn gtx480() -> GpuConfig {
    GpuConfig::preset("gtx480").unwrap()
}

/// The `twoway_alloc` block's golden model at SM 0's allocation site.
fn unit(cfg: &GpuConfig) -> Box<dyn AllocUnit<'static>> {
    TwoWayAlloc { first_fit: false }
        .build(cfg, &mut crate::gpu::sites::GoldenBlocks, 0)
        .unwrap()
}

/// A request offering launch `kernel` (blocks of 256 threads, 16 registers per thread and
/// `smem` bytes) with the places taken and freed since the last step.
fn offer(kernel: u32, smem: u32, placed: [u64; 2], freed: [u64; 2]) -> AllocRequest {
    AllocRequest {
        need: [256, 256 * 16, smem, 1],
        kernel: Some(kernel),
        placed,
        freed,
        ..Default::default()
    }
}

#[test]
fn two_kernels_grow_from_opposite_ends_and_a_third_waits() {
    let cfg = gtx480();
    let mut u = unit(&cfg);
    // Kernel 0 on the empty SM: the low end, slots 0 and 1 at the bottom.
    assert_eq!(u.step(&offer(0, 8192, [0; 2], [0; 2])).unwrap(), (true, true));
    let g = [0, 1].map(|n| u.place(n).unwrap());
    assert_eq!((g[0].end, g[0].slot, g[0].base), (0, 0, [0, 0]));
    assert_eq!((g[1].end, g[1].slot, g[1].base), (0, 1, [128, 32]));
    // Both taken; kernel 1 takes the high end: its first slot at the top.
    assert_eq!(u.step(&offer(1, 4096, [0b11, 0], [0; 2])).unwrap(), (true, true));
    let h = u.place(0).unwrap();
    assert_eq!((h.end, h.slot), (1, 0));
    assert_eq!(h.base, [1024 - 128, 192 - 16], "the top of 1024 rows and 192 units");
    // A third kernel finds both ends held.
    assert_eq!(u.step(&offer(2, 0, [0, 1], [0; 2])).unwrap(), (false, false));
    assert_eq!([u.place(0), u.place(1)], [None; 2]);
    // Kernel 0's blocks leave: its end goes to kernel 2.
    assert_eq!(u.step(&offer(2, 0, [0; 2], [0b11, 0])).unwrap(), (true, true));
    assert_eq!(u.place(0).unwrap().end, 0);
}

#[test]
fn a_quota_keeps_blocks_below_a_slot_and_reports_are_checked() {
    let cfg = gtx480();
    let mut u = unit(&cfg);
    let quota = |q, placed| AllocRequest {
        quota: Some(q),
        ..offer(0, 0, placed, [0; 2])
    };
    assert_eq!(u.step(&quota(1, [0; 2])).unwrap(), (true, false));
    assert_eq!(u.step(&quota(1, [1, 0])).unwrap(), (false, false));
    assert_eq!(u.step(&quota(3, [0; 2])).unwrap(), (true, true));
    // A slot placed twice, and one given back that was never taken, are protocol errors.
    let twice = u.step(&quota(3, [1, 0])).unwrap_err().to_string();
    assert!(twice.contains("taken slot 0"), "{twice}");
    let mut u = unit(&cfg);
    let never = u.step(&offer(0, 0, [0; 2], [0b100, 0])).unwrap_err().to_string();
    assert!(never.contains("free slot 2"), "{never}");
}

#[test]
fn no_kernel_offered_places_nothing() {
    let mut u = unit(&gtx480());
    let idle = AllocRequest {
        need: [0, 0, 0, 1],
        ..Default::default()
    };
    assert_eq!(u.step(&idle).unwrap(), (false, false));
    assert_eq!(u.place(0), None);
}

fn sim(args: &str, mix: &str) -> crate::gpu::Report {
    let mut m = crate::workload::mix::Mix::parse(mix, std::path::Path::new("m.toml")).unwrap();
    let opts = SimOptions {
        audit_interval: 101,
        ..SimOptions::parse(args).unwrap()
    };
    Gpu::golden(&gtx480(), opts)
        .unwrap()
        .run(&mut m, &mut |_| {})
        .unwrap()
}

fn pair(a: &str, b: &str) -> String {
    format!("[[kernel]]\nworkload = \"{a}\"\nstream = 0\n\n[[kernel]]\nworkload = \"{b}\"\nstream = 1\narrival = 500\n")
}

#[test]
fn one_kernel_runs_as_under_the_occupancy_rule() {
    for w in ["mm", "hs", "chimera_hw", "nw", "lbm"] {
        let mix = format!("[[kernel]]\nworkload = \"{w}\"\n");
        let occ = sim("", &mix);
        for alloc in ["twoway", "first_fit"] {
            let r = sim(&format!("--sm-alloc {alloc}"), &mix);
            assert_eq!(r.counters, occ.counters, "{w}: {alloc}");
        }
    }
}

#[test]
fn two_kernels_share_sms_and_every_instruction_runs() {
    for (a, b) in [("chimera_hw", "syrk"), ("mm", "chimera_bs"), ("hs", "lbm")] {
        let mix = pair(a, b);
        let occ = sim("--kernel-sched smk", &mix);
        for alloc in ["twoway", "first_fit"] {
            let r = sim(&format!("--kernel-sched smk --sm-alloc {alloc}"), &mix);
            for (k, o) in r.kernels.iter().zip(&occ.kernels) {
                let c = (k.counters.warp_instructions, k.counters.blocks);
                let o = (o.counters.warp_instructions, o.counters.blocks);
                assert_eq!(c, o, "{a}+{b}, {alloc}: {}", k.name);
            }
            assert!(
                r.kernels[1].start_cycle < r.kernels[0].end_cycle,
                "{a}+{b}, {alloc}: overlapped"
            );
        }
    }
}

/// A kernel of 128-thread blocks (12 fit by threads, 8 by block slots on the GTX 480).
fn kernel(regs: u32, smem: u32) -> KernelCtx {
    let info = KernelInfo {
        name: "k".into(),
        grid: Dim3 { x: 64, y: 1, z: 1 },
        block: Dim3 { x: 128, y: 1, z: 1 },
        regs_per_thread: regs,
        shmem_bytes: smem,
        binary_version: 20,
    };
    KernelCtx::new(&gtx480(), &info, 0, 0).unwrap()
}

#[test]
fn shared_memory_units_that_would_lose_a_block_are_refused() {
    let cfg = gtx480();
    // 7000 B: 7 blocks fit 48 kB byte by byte, 6 in 28 units of 256 B.
    let err = TwoWayAlloc { first_fit: false }
        .check_kernel(&cfg, &kernel(8, 7000))
        .unwrap_err()
        .to_string();
    assert!(err.contains("let 6 blocks") && err.contains("the 7 that fit"), "{err}");
    // 6144 B is 24 whole units: 8 blocks either way; no registers or no shared memory
    // limits nothing.
    for (regs, smem) in [(8, 6144), (0, 6144), (8, 0), (0, 0)] {
        TwoWayAlloc { first_fit: false }
            .check_kernel(&cfg, &kernel(regs, smem))
            .unwrap_or_else(|e| panic!("{regs} regs, {smem} B: {e}"));
    }
    assert_eq!(alone(caps(&cfg), Need::of_resources(kernel(0, 0).need)), 8);
}

#[test]
fn more_block_slots_than_the_allocator_tracks_are_refused() {
    let mut cfg = gtx480();
    cfg.sm.max_blocks = 65;
    let err = TwoWayAlloc { first_fit: false }.check(&cfg).unwrap_err().to_string();
    assert!(err.contains("65 thread-block slots"), "{err}");
}

#[test]
fn first_fit_places_at_the_lowest_free_addresses_and_checks_reports() {
    let cfg = gtx480();
    let mut u = first_fit::FirstFitUnit::new(&cfg);
    assert_eq!(u.step(&offer(0, 8192, [0; 2], [0; 2])).unwrap(), (true, true));
    let g = u.place(1).unwrap();
    assert_eq!((g.end, g.slot, g.base), (0, 1, [128, 32]));
    // Slot 0 leaves: a block of another kernel (fewer registers) takes its interval.
    u.step(&offer(0, 8192, [0b11, 0], [0; 2])).unwrap();
    let small = AllocRequest {
        need: [64, 64 * 16, 1024, 1],
        ..offer(1, 0, [0; 2], [0b01, 0])
    };
    assert_eq!(u.step(&small).unwrap(), (true, true));
    let g = u.place(0).unwrap();
    assert_eq!((g.slot, g.base), (0, [0, 0]));
    let err = u.step(&offer(1, 0, [0, 1], [0; 2])).unwrap_err().to_string();
    assert!(err.contains("end 1"), "{err}");
}

#[test]
fn refusals_by_fragmentation_and_for_want_of_an_end_are_counted() {
    let cfg = gtx480();
    let mut u = unit(&cfg);
    // Kernel 0: 4 blocks of 128 rows (slots 0..3), then slots 0 and 1 leave: 256 rows in use,
    // but its region reaches row 512.
    u.step(&offer(0, 0, [0; 2], [0; 2])).unwrap();
    u.step(&offer(0, 0, [0b11, 0], [0; 2])).unwrap();
    u.step(&offer(0, 0, [0b1100, 0], [0; 2])).unwrap();
    let big = |placed, freed| AllocRequest {
        need: [320, 320 * 64, 0, 1],
        ..offer(1, 0, placed, freed)
    };
    // Kernel 1's block needs 640 rows: 768 are free, 512 of them in the middle.
    assert_eq!(u.step(&big([0; 2], [0b11, 0])).unwrap(), (false, false));
    assert_eq!(u.report()["fragmented_cycles"], 1);
    // A third kernel while both ends hold blocks.
    let mut v = unit(&cfg);
    v.step(&offer(0, 0, [0; 2], [0; 2])).unwrap();
    v.step(&offer(1, 0, [1, 0], [0; 2])).unwrap();
    assert_eq!(v.step(&offer(2, 0, [0, 1], [0; 2])).unwrap(), (false, false));
    let r = v.report();
    assert_eq!((r["offered_cycles"], r["refused_cycles"]), (3, 1));
    assert_eq!((r["no_end_cycles"], r["fragmented_cycles"]), (1, 0));
}

#[test]
fn the_report_keeps_the_counters_over_time() {
    let r = sim("--kernel-sched smk --sm-alloc twoway", &pair("mm", "chimera_bs"));
    let t = &r.sm_alloc_timeline;
    assert_eq!(t.window, crate::gpu::timeline::SAMPLE);
    for (k, total) in &r.sm_alloc_stats {
        assert_eq!(t.series[k].iter().sum::<u64>(), *total, "{k}");
    }
    let points = r.counters.cycles.div_ceil(t.window) as usize;
    assert_eq!(t.series["offered_cycles"].len(), points);
    let alone = sim("", "[[kernel]]\nworkload = \"mm\"\n");
    assert!(alone.sm_alloc_timeline.is_empty(), "a counting allocator reports none");
}
