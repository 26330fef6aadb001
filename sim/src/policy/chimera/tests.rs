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
const MIX: &str = include_str!("../../../../mixes/periodic_task.toml");

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
        ("--kernel-sched chimera --selector software", &["switch", "drain", "flush"]),
        ("--kernel-sched chimera --drain-overhead slot-idle", &["switch", "drain", "flush"]),
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

#[test]
fn the_blocks_plan_what_the_software_plans_one_pass_later() {
    // The same requests are made (the task's two arrivals), from the same SMs' state a pass
    // apart: every request under the blocks starts at its arrival and hands over at least the
    // pass (364 cycles on gtx480) after it.
    let (hw, _) = run("--kernel-sched chimera");
    let (sw, _) = run("--kernel-sched chimera --selector software");
    let log = |r: &Report| r.kernel_sched_stats["request_log"].as_array().unwrap().clone();
    let (hw, sw) = (log(&hw), log(&sw));
    assert_eq!(hw.len(), sw.len());
    let pass = crate::blocks::chimera_tb::block::pass_cycles(8) + 1;
    for (h, s) in hw.iter().zip(&sw) {
        assert_eq!(h["cycle"], s["cycle"]);
        assert!(h["latency"].as_u64().unwrap() >= pass, "{h}");
        assert_eq!(h["sms"].as_array().unwrap().len(), s["sms"].as_array().unwrap().len());
    }
}

mod feed {
    //! The feed keeps a `chimera_tb`'s status table equal to the SM's blocks: every cycle when
    //! the SM's events fit the block's ports, and again once a burst that does not has passed.

    use super::super::feed::Feed;
    use crate::block::Block;
    use crate::blocks::chimera_tb::block::{ChimeraIn, Golden, Params};
    use crate::gpu::sites::kernel_sched::BlockView;
    use proptest::prelude::*;

    /// One cycle of a model SM: which slots end their block, start one, and issue how many.
    #[derive(Clone, Debug)]
    struct Cycle {
        leave: Vec<usize>,
        launch: Vec<(usize, u32, bool)>,
        issue: Vec<(usize, bool)>,
    }

    fn cycle(t: usize, p: usize, bursts: bool) -> impl Strategy<Value = Cycle> {
        let n = if bursts { 3 } else { 1 };
        (
            prop::collection::vec(0..t, 0..=n),
            prop::collection::vec((0..t, 0u32..500, any::<bool>()), 0..=n),
            prop::collection::vec((0..t, prop::bool::weighted(0.05)), 0..=(p + n - 1)),
        )
            .prop_map(|(leave, launch, issue)| Cycle {
                leave,
                launch,
                issue,
            })
    }

    /// Runs `cycles` on a model SM of `t` slots, feeding the block; `check(i)` says whether
    /// table and views must agree after cycle `i`.
    fn run(t: usize, p: usize, cycles: &[Cycle], check: impl Fn(usize) -> bool) {
        let params = Params {
            slots: t as u32,
            issue: p as u32,
        };
        let mut block = Golden::new(params);
        let mut feed = Feed::new(t, p);
        let mut sm: Vec<Option<BlockView>> = vec![None; t];
        let mut next_id = 0;
        for (i, c) in cycles.iter().enumerate() {
            // The SM's cycle: blocks leave, start, issue (at most one launch and leave per
            // slot), then every resident block has one more cycle.
            for &k in &c.leave {
                sm[k] = None;
            }
            for &(k, issued, ni) in &c.launch {
                if sm[k].is_none() {
                    next_id += 1;
                    sm[k] = Some(BlockView {
                        tb: k,
                        id: next_id,
                        issued: issued as u64,
                        non_idempotent: ni,
                        ..Default::default()
                    });
                }
            }
            for &(k, ni) in &c.issue {
                if let Some(b) = sm[k].as_mut().filter(|b| b.cycles > 0) {
                    b.issued += 1;
                    b.non_idempotent |= ni;
                }
            }
            let views: Vec<BlockView> = sm.iter().flatten().copied().collect();
            let mut inp = ChimeraIn::default();
            feed.events(&views, &mut inp);
            block.step(&inp);
            for b in sm.iter_mut().flatten() {
                b.cycles += 1;
            }
            if check(i) {
                let mut state = vec![];
                crate::block::Inspect::state_values(&block, &mut state);
                for k in 0..t {
                    let want = sm[k].map(|b| (b.issued as u32, b.cycles as u32 - 1));
                    assert_eq!(feed.counters(k), want, "cycle {i} slot {k}");
                    let valid = state[0] >> k & 1 == 1;
                    assert_eq!(valid, want.is_some(), "cycle {i} slot {k}: valid");
                    if let Some((issued, cycles)) = want {
                        let ni = state[1] >> k & 1 == 1;
                        assert_eq!(ni, sm[k].unwrap().non_idempotent, "cycle {i} slot {k}: NI");
                        let got = (state[3 + 2 * k] as u32, state[4 + 2 * k] as u32);
                        assert_eq!(got, (issued, cycles), "cycle {i} slot {k}: counters");
                    }
                }
            }
        }
    }

    proptest! {
        #[test]
        fn the_table_equals_the_sm_every_cycle_when_the_events_fit_the_ports(
            cycles in prop::collection::vec(cycle(8, 2, false), 1..300)
        ) {
            // At most one launch and one leave, and at most P issues a cycle: the table is
            // equal to the SM after every cycle.
            let fits = cycles.iter().all(|c| c.issue.len() <= 2);
            prop_assume!(fits);
            run(8, 2, &cycles, |_| true);
        }

        #[test]
        fn the_table_catches_up_after_bursts(
            burst in prop::collection::vec(cycle(4, 1, true), 1..100),
        ) {
            // Bursts of several launches, leaves and issues a cycle, then quiet cycles: equal
            // once the ports have caught up.
            let quiet = Cycle { leave: vec![], launch: vec![], issue: vec![] };
            let mut cycles = burst.clone();
            cycles.extend(std::iter::repeat_n(quiet, 4 * burst.len() * 3 + 8));
            let end = cycles.len() - 1;
            run(4, 1, &cycles, |i| i == end);
        }
    }
}

#[test]
fn an_sm_too_large_for_the_block_is_refused_by_the_block_selector_only() {
    let mut cfg = GpuConfig::preset("gtx480").unwrap();
    cfg.sm.max_blocks = 32;
    let opts = SimOptions::parse("--kernel-sched chimera").unwrap();
    let e = Gpu::golden(&cfg, opts).err().expect("refused").to_string();
    assert!(e.contains("--selector block") && e.contains("32 block slots (max_blocks)"), "{e}");
    let opts = SimOptions::parse("--kernel-sched chimera --selector software").unwrap();
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    let mut mix = Mix::parse(MIX, Path::new("m.toml")).unwrap();
    let r = gpu.run(&mut mix, &mut |_| {}).unwrap();
    assert!(stat(&r, "requests") >= 1);
}

#[test]
fn a_late_request_counts_what_its_sms_ran_and_kills_the_late_kernel_with_kill_late() {
    // The task must be handed its SMs within 1 cycle: every request is late. The victim's
    // instructions on those SMs after that cycle are counted; with --kill-late the task is
    // killed 1,000 + 1 cycles after its arrival (its deadline plus the limit).
    let mix = MIX.replace("priority = 1", "priority = 1\ndeadline = 1000");
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let run = |args: &str| {
        let mut gpu = Gpu::golden(&cfg, SimOptions::parse(args).unwrap()).unwrap();
        let mut m = Mix::parse(&mix, Path::new("m.toml")).unwrap();
        gpu.run(&mut m, &mut |_| {}).unwrap()
    };
    let kept = run("--kernel-sched drain-only --lat-limit 1");
    assert_eq!(stat(&kept, "kernels_killed"), 0);
    assert!(stat(&kept, "withheld_warp_instructions") > 0);
    assert!(kept.kernels.iter().all(|k| !k.killed));
    let r = run("--kernel-sched drain-only --lat-limit 1 --kill-late");
    assert!(stat(&r, "kernels_killed") >= 1);
    let task = r.kernels.iter().find(|k| k.killed).expect("a killed task");
    assert_eq!(task.name, "chimera_task_small");
    assert_eq!(task.deadline_met, Some(false));
    // Killed at arrival + deadline + limit; it leaves once its flushed blocks' replies are in.
    assert!(task.end_cycle >= task.arrival + 1001, "{task:?}");
    assert!(task.end_cycle < task.arrival + 1001 + 2000, "{}", task.end_cycle);
    assert!(task.counters.blocks < 7);
    // The benchmark still completes every block.
    let bench = &r.kernels[0];
    assert!(!bench.killed && !bench.truncated);
    assert_eq!(bench.counters.blocks, kept.kernels[0].counters.blocks);
}
