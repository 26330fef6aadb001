//! SMs that sleep through quiet cycles (`sm/sleep.rs`) change no statistic: the suite's and
//! the real traces' runs, and multi-kernel mixes with preemptions, give the same report and
//! the same stores with and without sleeping, under the policies and configurations whose SMs
//! sleep and those whose SMs do not; the runs do sleep; and planted sleep bugs change them.

use super::sm::SleepFault;
use super::tests::{gtx480, opts, suite_and_traces, Opener};
use super::*;
use crate::config::GpuConfig;
use crate::workload::kernel::WorkloadSource;

/// What a run gave: its report as JSON and its stores (`Err`: the run's error).
type Outcome = Result<(serde_json::Value, Vec<StoreEvent>), String>;

/// `opts`'s run of `w` on `cfg` (audited every 512 cycles, stores recorded), SMs sleeping as
/// `sleep` says and with `fault` planted; with the SM-cycles slept and run.
fn run(
    cfg: &GpuConfig,
    w: &mut dyn WorkloadSource,
    opts: &SimOptions,
    sleep: bool,
    fault: Option<SleepFault>,
) -> (Outcome, u64, u64) {
    let opts = SimOptions {
        record_stores: true,
        audit_interval: 512,
        sm_sleep: sleep,
        ..opts.clone()
    };
    let mut gpu = Gpu::golden(cfg, opts).unwrap();
    for sm in &mut gpu.sms {
        sm.sleep_fault = fault;
    }
    let r = gpu.run(w, &mut |_| {}).map_err(|e| e.to_string());
    let slept = gpu.sms.iter().map(|s| s.slept_cycles).sum();
    let sm_cycles = gpu.now * gpu.sms.len() as u64;
    let out = r.map(|r| (serde_json::to_value(&r).unwrap(), gpu.stores()));
    (out, slept, sm_cycles)
}

/// Runs `open` on `cfg` under `args` with and without sleeping and asserts they agree;
/// returns the SM-cycles slept and run.
fn assert_same(cfg: &GpuConfig, open: &Opener, args: &str, what: &str) -> (u64, u64) {
    let o = opts(args);
    let (stepped, ..) = run(cfg, &mut *open(), &o, false, None);
    let (sleeping, slept, cycles) = run(cfg, &mut *open(), &o, true, None);
    let stepped = stepped.unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        sleeping.as_ref() == Ok(&stepped),
        "{what}: sleeping SMs changed the run"
    );
    (slept, cycles)
}

#[test]
fn sleeping_sms_change_no_statistic() {
    let sleeping = [
        "--warp-sched gto",
        "--warp-sched lrr",
        "--warp-sched gto --bypass all",
        "--warp-sched lrr --iprefetch 8",
        "--warp-sched gto --tb-sched bcs",
        "--warp-sched gto --paired-issue",
        "--warp-sched laws --tb-sched locality",
        "--warp-sched laws --la-rows serial",
    ];
    // Units whose SMs do not sleep (their runs must not change either).
    let awake = [
        "--warp-sched two_level",
        "--warp-sched elf++",
        "--newcar",
        "--warp-sched laws --la-search scan",
    ];
    let mut collector = gtx480();
    collector.pipeline.operand_collector.enabled = true;
    let configs = [
        ("gtx480", gtx480(), &sleeping[..]),
        ("gtx480", gtx480(), &awake[..]),
        ("gtx480-3.2.2", preset("gtx480-3.2.2"), &sleeping[..2]),
        ("titanv", preset("titanv"), &sleeping[..2]),
        ("collector", collector, &sleeping[..1]),
    ];
    // Per policy on gtx480: the SM-cycles slept and run.
    let mut sums = std::collections::BTreeMap::<&str, (u64, u64)>::new();
    for (name, open) in suite_and_traces("small") {
        for (cfg_name, cfg, policies) in &configs {
            for args in policies.iter() {
                let what = format!("{name} on {cfg_name} under {args}");
                let (s, c) = assert_same(cfg, &open, args, &what);
                if *cfg_name == "gtx480" {
                    let sum = sums.entry(args).or_default();
                    *sum = (sum.0 + s, sum.1 + c);
                }
            }
        }
    }
    // The SMs do sleep: GTO on gtx480 skips at least 3 in 10 of the suite's SM-cycles, LAWS
    // at least 1 in 10.
    for (args, tenths) in [(sleeping[0], 3), (sleeping[6], 1), (sleeping[7], 1)] {
        let (slept, cycles) = sums[args];
        eprintln!("{args}: slept {slept} of {cycles} SM-cycles");
        assert!(
            slept * 10 >= cycles * tenths,
            "{args}: slept {slept} of {cycles} SM-cycles"
        );
    }
}

#[test]
fn sleeping_sms_change_no_statistic_of_mixes_preemptions_and_cut_runs() {
    let text = "[[kernel]]\nworkload = \"mm\"\nstream = 0\n\n[[kernel]]\nworkload = \"stream\"\nstream = 1\narrival = 3000\n";
    let mix: Opener = Box::new(move || {
        let path = std::path::Path::new("m.toml");
        Box::new(crate::workload::mix::Mix::parse(text, path).unwrap())
    });
    for sched in super::preempt_tests::OVERLAPPING {
        assert_same(&gtx480(), &mix, sched, &format!("mix under {sched}"));
        // LAWS's starvation threshold changes with the kernel offered.
        let laws = format!("{sched} --warp-sched laws");
        assert_same(&gtx480(), &mix, &laws, &format!("mix under {laws}"));
    }
    // Cut at half the run: the slept cycles up to the cut are counted.
    for (name, open) in suite_and_traces("small").into_iter().take(5) {
        let (Ok((full, _)), ..) = run(&gtx480(), &mut *open(), &opts(""), true, None) else {
            panic!("{name}");
        };
        let half = full["cycles"].as_u64().unwrap() / 2;
        let cut = SimOptions {
            max_cycles: Some(half.max(1)),
            ..opts("")
        };
        let (a, ..) = run(&gtx480(), &mut *open(), &cut, false, None);
        let (b, ..) = run(&gtx480(), &mut *open(), &cut, true, None);
        assert!(a.is_ok() && a == b, "{name} cut at {half}");
    }
}

#[test]
fn planted_sleep_bugs_change_the_runs() {
    for fault in [SleepFault::NoRotation, SleepFault::LateReplies] {
        let (mut caught, mut runs) = (0, 0);
        for (name, open) in suite_and_traces("small") {
            for args in ["--warp-sched gto", "--warp-sched lrr"] {
                let o = opts(args);
                let (good, ..) = run(&gtx480(), &mut *open(), &o, true, None);
                let (bad, ..) = run(&gtx480(), &mut *open(), &o, true, Some(fault));
                assert!(good.is_ok(), "{name} {args}");
                runs += 1;
                caught += (bad != good) as usize;
            }
        }
        assert!(
            caught * 4 >= runs * 3,
            "{fault:?} changed {caught} of {runs} runs"
        );
    }
}

fn preset(name: &str) -> GpuConfig {
    GpuConfig::preset(name).unwrap()
}
