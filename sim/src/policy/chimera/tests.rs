//! Chimera and its baselines on a benchmark preempted by the periodic high-priority task: the
//! same stores and atomics as the two kernels one after the other (each exactly once: nothing
//! is flushed past its idempotent point), every block once, each request handed over and
//! reported, each mode's techniques its own.

use crate::config::GpuConfig;
use crate::gpu::preempt_tests::same_stores;
use crate::gpu::{Gpu, Report, SimOptions, StoreEvent};
use crate::workload::mix::Mix;
use std::path::Path;

/// `chimera_imgvf` (not idempotent: it overwrites its input at its end; 30 blocks of about
/// 26,000 cycles, one per SM) with the task (28,600 cycles on 7 SMs) arriving twice, 30,000
/// cycles apart, from cycle 2,000.
const MIX: &str = r#"
[[kernel]]
workload = "chimera_imgvf"
stream = 0

[[kernel]]
workload = "chimera_task"
stream = 1
arrival = 2000
period = 30000
count = 2
priority = 1
"#;

fn run(args: &str) -> (Report, Vec<StoreEvent>) {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions {
        record_stores: true,
        audit_interval: 64,
        ..SimOptions::parse(args).unwrap()
    };
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    let mut mix = Mix::parse(MIX, Path::new("m.toml")).unwrap();
    let r = gpu.run(&mut mix, &mut |_| {}).unwrap();
    (r, gpu.stores())
}

fn stat(r: &Report, key: &str) -> u64 {
    r.kernel_sched_stats[key].as_u64().unwrap()
}

#[test]
fn every_mode_preempts_with_the_effects_of_a_serial_run() {
    let (base, base_stores) = run("");
    for (args, allowed) in [
        ("--kernel-sched chimera", &["switch", "drain", "flush"][..]),
        ("--kernel-sched chimera --idempotence sm", &["switch", "drain", "flush"]),
        ("--kernel-sched chimera --idempotence kernel", &["switch", "drain"]),
        ("--kernel-sched chimera --lat-limit 1", &["switch", "drain", "flush"]),
        ("--kernel-sched switch-only", &["switch"]),
        ("--kernel-sched drain-only", &["drain"]),
        ("--kernel-sched flush-only", &["flush", "drain"]),
    ] {
        let (r, stores) = run(args);
        assert!(same_stores(&stores, &base_stores), "{args}");
        let reexec: u64 = r
            .kernels
            .iter()
            .map(|k| k.preemptions.reexecuted_warp_instructions)
            .sum();
        assert_eq!(r.counters.blocks, base.counters.blocks, "{args}");
        assert_eq!(
            r.counters.warp_instructions,
            base.counters.warp_instructions + reexec,
            "{args}"
        );
        let requests = stat(&r, "requests");
        assert!(requests >= 1, "{args}: {requests} requests");
        assert_eq!(stat(&r, "requests_handed_over"), requests, "{args}");
        let by = &r.kernel_sched_stats["blocks_by_technique"];
        for t in ["switch", "drain", "flush"] {
            if !allowed.contains(&t) {
                assert_eq!(by[t], 0, "{args}: {t}");
            }
        }
        // The two kernels overlap: the task runs while the benchmark has blocks left.
        assert!(r.counters.cycles < base.counters.cycles, "{args}: {} >= {}", r.counters.cycles, base.counters.cycles);
    }
}

#[test]
fn a_limit_no_technique_meets_is_a_reported_violation_not_an_error() {
    let (r, _) = run("--kernel-sched switch-only --lat-limit 1");
    assert!(stat(&r, "requests_predicted_violation") >= 1);
    assert_eq!(stat(&r, "requests_violated"), stat(&r, "requests"));
}

#[test]
fn kernels_of_the_same_priority_arriving_together_split_the_sms_and_all_finish() {
    // Two priority-1 kernels arrive in the same cycle while a priority-0 kernel holds the GPU:
    // the oldest-first partition gives each its share (by admission, not by a tie on priority),
    // and every kernel's stores are those of a serial run.
    let mix = r#"
[[kernel]]
workload = "chimera_imgvf"
stream = 0

[[kernel]]
workload = "chimera_task"
stream = 1
arrival = 2000
priority = 1

[[kernel]]
workload = "chimera_lud"
stream = 2
arrival = 2000
priority = 1
"#;
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let run = |args: &str| {
        let opts = SimOptions {
            record_stores: true,
            ..SimOptions::parse(args).unwrap()
        };
        let mut gpu = Gpu::golden(&cfg, opts).unwrap();
        let mut m = Mix::parse(mix, Path::new("m.toml")).unwrap();
        let r = gpu.run(&mut m, &mut |_| {}).unwrap();
        (r, gpu.stores())
    };
    let (base, base_stores) = run("");
    let (r, stores) = run("--kernel-sched chimera");
    assert!(same_stores(&stores, &base_stores));
    assert_eq!(r.counters.blocks, base.counters.blocks);
    assert!(r.kernels.iter().all(|k| !k.truncated));
    assert!(stat(&r, "requests") >= 1);
    assert_eq!(stat(&r, "requests_handed_over"), stat(&r, "requests"));
    // Both late kernels start in their arrival cycle, on SMs taken from the first.
    assert!(r.kernels[1..].iter().all(|k| k.start_cycle == 2000), "{:?}", r.kernels);
}
