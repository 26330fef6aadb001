//! Preemption round trips. The model carries addresses, not data, so a preemption is checked
//! by its effects: a run whose blocks are switched out and restored on other SMs, or flushed
//! and restarted, issues the same global stores and atomics (kernel, block, warp, lane,
//! address), each exactly once, and the same instructions (a flush's re-executed ones counted
//! apart) as a run without preemption; the lost-request audit holds throughout. Planted bugs
//! show each check can fail.

use super::sites::kernel_sched::{
    KernelSchedIn, KernelSchedOut, KernelSchedUnit, Preempt, Technique,
};
use super::sm::PreemptFault;
use super::stats::PreemptionCounts;
use super::*;
use crate::workload::kernel::{TraceWorkload, WorkloadSource};
use crate::workload::shared_trace;
use proptest::prelude::*;

/// Offers every SM to slot 0's kernel; at cycle `at` preempts its blocks on SM `sm` by
/// `technique`, and keeps that SM from it afterwards (so the blocks taken off go elsewhere).
struct PreemptAt {
    at: u64,
    sm: usize,
    technique: Technique,
}

impl KernelSchedUnit for PreemptAt {
    fn slots(&self) -> usize {
        1
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        if inp.kernels[0].is_none() {
            return Ok(());
        }
        for (s, o) in out.offer.iter_mut().enumerate() {
            if inp.now < self.at || s != self.sm {
                *o = Some(0);
            }
        }
        if inp.now == self.at {
            out.preempt.push(Preempt {
                sm: self.sm,
                slot: 0,
                technique: self.technique,
                block: None,
            });
        }
        Ok(())
    }
}

/// What a run did.
#[derive(Debug, PartialEq, Eq)]
struct Effects {
    stores: Vec<StoreEvent>,
    warp: u64,
    thread: u64,
    blocks: u64,
    cycles: u64,
    pre: PreemptionCounts,
}

type Opener = Box<dyn Fn() -> Box<dyn WorkloadSource>>;

fn run(
    open: &Opener,
    at: Option<PreemptAt>,
    fault: Option<PreemptFault>,
) -> Result<Effects, SimError> {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions {
        record_stores: true,
        audit_interval: 64,
        watchdog: 20_000,
        ..SimOptions::default()
    };
    let mut gpu = Gpu::golden(&cfg, opts)?;
    if let Some(at) = at {
        gpu.set_kernel_sched(Box::new(at));
    }
    if let Some(f) = fault {
        gpu.plant(f);
    }
    let r = gpu.run(&mut *open(), &mut |_| {})?;
    let c = &r.counters;
    let mut pre = PreemptionCounts::default();
    for k in &r.kernels {
        let p = &k.preemptions;
        for (t, x) in [
            (&mut pre.switch, &p.switch),
            (&mut pre.drain, &p.drain),
            (&mut pre.flush, &p.flush),
        ] {
            t.blocks += x.blocks;
            t.cycles += x.cycles;
            t.bytes += x.bytes;
        }
        pre.restored += p.restored;
        pre.reexecuted_warp_instructions += p.reexecuted_warp_instructions;
    }
    Ok(Effects {
        stores: gpu.stores(),
        warp: c.warp_instructions,
        thread: c.thread_instructions,
        blocks: c.blocks,
        cycles: c.cycles,
        pre,
    })
}

/// Whether stores `a` and `b` have the same effect: the same stores and atomics (none lost,
/// none added), every atomic and every store that overwrites what the kernel reads exactly as
/// often; a flushed block that restarts writes its write-only output again, the same values
/// to the same addresses (that is what makes it idempotent).
pub(crate) fn same_stores(a: &[StoreEvent], b: &[StoreEvent]) -> bool {
    let once = |v: &[StoreEvent]| {
        let mut v = v.to_vec();
        v.dedup();
        v
    };
    let overwrites = |v: &[StoreEvent]| -> Vec<StoreEvent> {
        v.iter().copied().filter(|e| e.overwrite).collect()
    };
    once(a) == once(b) && overwrites(a) == overwrites(b)
}

/// Whether a run preempted as `at` says does what `base` did: the same stores and atomics
/// ([`same_stores`]), and the same instructions (re-executed ones apart). A run that fails
/// or panics does not.
fn same_effects(open: &Opener, base: &Effects, at: PreemptAt, fault: Option<PreemptFault>) -> bool {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(open, Some(at), fault)));
    let Ok(Ok(e)) = r else { return false };
    same_stores(&e.stores, &base.stores)
        && e.warp == base.warp + e.pre.reexecuted_warp_instructions
        && e.blocks == base.blocks
        && (e.pre.reexecuted_warp_instructions > 0 || e.thread == base.thread)
}

fn suite(name: &'static str) -> (String, Opener) {
    (
        name.to_string(),
        Box::new(move || crate::workload::open_named(name, "small").unwrap()),
    )
}

/// Every suite kernel (barriers, shared memory, atomics, stores into loaded arrays) and both
/// real traces.
fn workloads() -> Vec<(String, Opener)> {
    let mut v: Vec<(String, Opener)> = crate::workload::names().into_iter().map(suite).collect();
    for t in ["vectoradd-100-32", "matrixmul-32-32"] {
        if let Some(dir) = shared_trace(t) {
            v.push((
                t.to_string(),
                Box::new(move || Box::new(TraceWorkload::open(&dir).unwrap())),
            ));
        }
    }
    v
}

#[test]
fn a_block_switched_out_and_restored_elsewhere_does_exactly_what_it_would_have() {
    let mut switched = 0;
    for (name, open) in workloads() {
        let base = run(&open, None, None).unwrap();
        for (frac, sm) in [(3, 0), (2, 7)] {
            let at = PreemptAt {
                at: base.cycles / frac,
                sm,
                technique: Technique::Switch,
            };
            let e = run(&open, Some(at), None).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(e.stores, base.stores, "{name}: stores and atomics");
            assert_eq!(
                (e.warp, e.thread, e.blocks),
                (base.warp, base.thread, base.blocks),
                "{name}: instructions"
            );
            assert_eq!(e.pre.switch.blocks, e.pre.restored, "{name}: restored each");
            switched += e.pre.switch.blocks;
        }
    }
    assert!(switched > 50, "{switched} blocks switched");
}

#[test]
fn planted_bugs_break_the_round_trip() {
    let (_, open) = suite("mm");
    let base = run(&open, None, None).unwrap();
    let at = || PreemptAt {
        at: base.cycles / 3,
        sm: 0,
        technique: Technique::Switch,
    };
    assert!(same_effects(&open, &base, at(), None), "the healthy run");
    assert!(
        !same_effects(&open, &base, at(), Some(PreemptFault::ResumeLate)),
        "a warp resumed one instruction late"
    );
    let (_, open) = suite("hs");
    let base = run(&open, None, None).unwrap();
    let flush = || PreemptAt {
        at: base.cycles / 4,
        sm: 0,
        technique: Technique::Flush,
    };
    assert!(
        same_effects(&open, &base, flush(), None),
        "the healthy flush"
    );
    assert!(
        !same_effects(&open, &base, flush(), Some(PreemptFault::ReleaseFlushEarly)),
        "replies reaching what took the flushed block's place"
    );
}

/// Kernels for the flush checks: idempotent ones, and ones that store into an array they read
/// (flushable only before that store): at the end of each block (`chimera_cp`), after a twelfth
/// or less of it (`heartwall`, `fdtd3d`), or with global atomics (`his`).
const FLUSHED: [&str; 7] = [
    "mm",
    "hs",
    "chimera_bs",
    "chimera_cp",
    "heartwall",
    "fdtd3d",
    "his",
];

#[test]
fn flush_restarts_idempotent_blocks_and_drains_the_others() {
    let (mut flushed, mut drained) = (0, 0);
    for name in FLUSHED {
        let (_, open) = suite(name);
        let base = run(&open, None, None).unwrap();
        for frac in [10, 3, 2] {
            let at = PreemptAt {
                at: base.cycles / frac,
                sm: 3,
                technique: Technique::Flush,
            };
            let e = run(&open, Some(at), None).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(
                same_stores(&e.stores, &base.stores),
                "{name}: every overwrite once"
            );
            assert_eq!(
                e.warp,
                base.warp + e.pre.reexecuted_warp_instructions,
                "{name}"
            );
            assert_eq!(e.blocks, base.blocks, "{name}");
            flushed += e.pre.flush.blocks;
            drained += e.pre.drain.blocks;
        }
    }
    assert!(
        flushed > 10 && drained > 0,
        "{flushed} flushed, {drained} drained"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::fuzz_cases(12)))]

    /// A flush at any point on any SM restarts only blocks that are still idempotent: every
    /// atomic and every store that overwrites the kernel's input executes once, no store is
    /// lost, and the re-executed instructions account for the difference.
    #[test]
    fn a_flush_anywhere_executes_every_store_once(k in 0..FLUSHED.len(), frac in 0.02f64..0.98, sm in 0usize..15) {
        let (name, open) = suite(FLUSHED[k]);
        let base = run(&open, None, None).unwrap();
        let at = PreemptAt {
            at: (base.cycles as f64 * frac) as u64,
            sm,
            technique: Technique::Flush,
        };
        prop_assert!(same_effects(&open, &base, at, None), "{name} flushed at {frac} on SM {sm}");
    }
}

/// Kernel schedulers that let two streams' kernels overlap, with and without preemptions.
pub(crate) const OVERLAPPING: [&str; 5] = [
    "--kernel-sched fcfs",
    "--kernel-sched smk",
    "--kernel-sched even --preempt switch",
    "--kernel-sched even --preempt flush",
    "--kernel-sched timeslice --quantum 4000 --preempt switch",
];

#[test]
fn mixes_are_deterministic_and_streams_overlap_only_when_the_kernel_scheduler_lets_them() {
    let mix = |sched: &str| {
        let text = "[[kernel]]\nworkload = \"mm\"\nstream = 0\n\n[[kernel]]\nworkload = \"chimera_bs\"\nstream = 1\narrival = 3000\n";
        let mut m = crate::workload::mix::Mix::parse(text, std::path::Path::new("m.toml")).unwrap();
        let opts = SimOptions::parse(sched).unwrap();
        let cfg = GpuConfig::preset("gtx480").unwrap();
        let mut gpu = Gpu::golden(
            &cfg,
            SimOptions {
                audit_interval: 97,
                ..opts
            },
        )
        .unwrap();
        gpu.run(&mut m, &mut |_| {}).unwrap()
    };
    let serial = mix("");
    let (a, b) = (&serial.kernels[0], &serial.kernels[1]);
    assert!(b.start_cycle >= a.end_cycle, "serial: one after the other");
    for sched in OVERLAPPING {
        let r = mix(sched);
        let (a, b) = (&r.kernels[0], &r.kernels[1]);
        assert!(b.start_cycle < a.end_cycle, "{sched}: overlapped");
        assert_eq!(b.arrival, 3000, "{sched}");
        assert_eq!(
            a.counters.thread_instructions + b.counters.thread_instructions,
            r.counters.thread_instructions,
            "{sched}: each instruction counted under its kernel"
        );
        let again = mix(sched);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&again).unwrap(),
            "{sched}: bit for bit"
        );
    }
}

/// A run of `name` on `cfg` under `args`, preempted as `at` (if any).
fn run_on(
    cfg: &GpuConfig,
    args: &str,
    name: &'static str,
    at: Option<PreemptAt>,
) -> Result<Effects, SimError> {
    let opts = SimOptions {
        record_stores: true,
        audit_interval: 64,
        watchdog: 20_000,
        ..SimOptions::parse(args).unwrap()
    };
    let mut gpu = Gpu::golden(cfg, opts)?;
    if let Some(at) = at {
        gpu.set_kernel_sched(Box::new(at));
    }
    let r = gpu.run(
        &mut *crate::workload::open_named(name, "small")?,
        &mut |_| {},
    )?;
    let c = &r.counters;
    let p = &r.kernels[0].preemptions;
    Ok(Effects {
        stores: gpu.stores(),
        warp: c.warp_instructions,
        thread: c.thread_instructions,
        blocks: c.blocks,
        cycles: c.cycles,
        pre: *p,
    })
}

#[test]
fn every_issue_site_lsu_queue_and_pipeline_survives_switches_and_flushes() {
    let plain = GpuConfig::preset("gtx480").unwrap();
    let mut oc = plain.clone();
    oc.pipeline.operand_collector.enabled = true;
    for (cfg, args, techniques) in [
        (&oc, "", &[Technique::Switch, Technique::Flush][..]),
        (&plain, "--newcar", &[Technique::Switch, Technique::Flush]),
        (
            &plain,
            "--warp-sched two-level --paired-issue",
            &[Technique::Switch, Technique::Flush],
        ),
        (
            &plain,
            "--warp-sched laws --tb-sched locality",
            &[Technique::Switch, Technique::Flush],
        ),
        // ELF's launch port takes one start PC per cycle: no switch (refused), flush only.
        (&plain, "--warp-sched elf++", &[Technique::Flush]),
    ] {
        for name in ["mm", "heartwall", "bfs", "lud"] {
            let base = run_on(cfg, args, name, None).unwrap();
            for &technique in techniques {
                for frac in [4, 2] {
                    let at = PreemptAt {
                        at: base.cycles / frac,
                        sm: 1,
                        technique,
                    };
                    let what = format!("{name} {args} {technique:?} at 1/{frac}");
                    let e =
                        run_on(cfg, args, name, Some(at)).unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert!(same_stores(&e.stores, &base.stores), "{what}");
                    assert_eq!(
                        e.warp,
                        base.warp + e.pre.reexecuted_warp_instructions,
                        "{what}"
                    );
                    assert_eq!(e.blocks, base.blocks, "{what}");
                }
            }
        }
    }
}

/// An Accel-Sim trace of `mm` on stream 0 then `chimera_bs` on stream `second` (0: the same).
fn two_stream_trace(dir: &std::path::Path, second: u32) {
    let mut text = String::new();
    for (k, name) in ["mm", "chimera_bs"].into_iter().enumerate() {
        let d = dir.join(name);
        let mut w = crate::workload::open_named(name, "small").unwrap();
        crate::workload::export::export(&mut *w, &d, &mut |_| {}).unwrap();
        let t = std::fs::read_to_string(d.join("kernel-1.traceg")).unwrap();
        let stream = if k == 0 { 0 } else { second };
        let t = t
            .replace(
                "-cuda stream id = 0",
                &format!("-cuda stream id = {stream}"),
            )
            .replace("-kernel id = 1", &format!("-kernel id = {}", k + 1));
        std::fs::write(dir.join(format!("kernel-{}.traceg", k + 1)), t).unwrap();
        text.push_str(&format!("kernel-{}.traceg\n", k + 1));
    }
    std::fs::write(dir.join("kernelslist.g"), text).unwrap();
}

#[test]
fn a_stream_listed_out_of_launch_order_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    two_stream_trace(tmp.path(), 0);
    let list = tmp.path().join("kernelslist.g");
    std::fs::write(&list, "kernel-2.traceg\nkernel-1.traceg\n").unwrap();
    let e = TraceWorkload::open(tmp.path())
        .unwrap()
        .launches()
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("kernel-1.traceg: kernel id 1 on stream 0 is listed after")
            && e.contains("kernel-2.traceg (kernel id 2)"),
        "{e}"
    );
}

#[test]
fn a_traces_streams_overlap_under_fcfs_and_smk_and_run_in_order_under_serial() {
    let tmp = tempfile::tempdir().unwrap();
    for (second, dir) in [(1, "two"), (0, "one")] {
        let d = tmp.path().join(dir);
        std::fs::create_dir_all(&d).unwrap();
        two_stream_trace(&d, second);
        for (sched, overlap) in [
            ("", false),
            ("--kernel-sched fcfs", second != 0),
            ("--kernel-sched smk", second != 0),
        ] {
            let cfg = GpuConfig::preset("gtx480").unwrap();
            let mut gpu = Gpu::golden(&cfg, SimOptions::parse(sched).unwrap()).unwrap();
            let r = gpu
                .run(&mut TraceWorkload::open(&d).unwrap(), &mut |_| {})
                .unwrap();
            let (a, b) = (&r.kernels[0], &r.kernels[1]);
            assert_eq!((a.stream, b.stream), (0, second), "{dir} {sched}");
            assert_eq!(
                b.start_cycle < a.end_cycle,
                overlap,
                "{dir} {sched}: {} .. {} and {} .. {}",
                a.start_cycle,
                a.end_cycle,
                b.start_cycle,
                b.end_cycle
            );
            assert_eq!(r.streams.len(), if second == 0 { 1 } else { 2 });
        }
    }
}

/// Offers every SM to the oldest kernel with blocks waiting; at cycle `switch_at` context
/// switches SM 0's blocks of slot 0, and at cycle `kill_at` kills slot 0's kernel.
struct KillAt {
    switch_at: u64,
    kill_at: u64,
}

impl KernelSchedUnit for KillAt {
    fn slots(&self) -> usize {
        2
    }

    fn step(&mut self, inp: &KernelSchedIn, out: &mut KernelSchedOut) -> Result<(), SimError> {
        let first = inp
            .by_admission()
            .into_iter()
            .find(|&k| inp.kernels[k].is_some_and(|v| v.has_waiting()));
        out.offer.fill(first);
        if inp.now == self.switch_at && inp.kernels[0].is_some() {
            out.preempt.push(Preempt {
                sm: 0,
                slot: 0,
                technique: Technique::Switch,
                block: None,
            });
        }
        if inp.now == self.kill_at {
            out.kill.push(0);
        }
        Ok(())
    }
}

#[test]
fn a_killed_kernel_leaves_at_once_and_the_next_runs_in_full() {
    // `mm` (36 blocks, 5 per SM) killed at cycle 2,000 while SM 0's blocks are being switched
    // out (from cycle 1,990); `chimera_bs` arrives with it and then has the GPU.
    let mix = "[[kernel]]\nworkload = \"mm\"\nstream = 0\n\n[[kernel]]\nworkload = \"chimera_bs\"\nstream = 1\n";
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let opts = SimOptions {
        audit_interval: 64,
        watchdog: 20_000,
        ..SimOptions::parse("--kernel-sched fcfs --kernel-slots 2").unwrap()
    };
    let run = |kill_at| {
        let mut gpu = Gpu::golden(&cfg, opts.clone()).unwrap();
        gpu.set_kernel_sched(Box::new(KillAt {
            switch_at: 1990,
            kill_at,
        }));
        let mut m = crate::workload::mix::Mix::parse(mix, std::path::Path::new("m.toml")).unwrap();
        gpu.run(&mut m, &mut |_| {}).unwrap()
    };
    let base = run(u64::MAX);
    let r = run(2000);
    let (mm, bs) = (&r.kernels[0], &r.kernels[1]);
    assert!(mm.killed && !mm.truncated && mm.deadline_met.is_none());
    assert!(
        mm.counters.blocks < base.kernels[0].counters.blocks,
        "{:?}",
        mm.counters
    );
    // It leaves within a flush of the kill (its in-flight replies), not at its end.
    assert!(mm.end_cycle < 2000 + 3000, "{}", mm.end_cycle);
    assert!(!bs.killed);
    assert_eq!(bs.counters.blocks, base.kernels[1].counters.blocks);
    assert!(bs.end_cycle < base.kernels[1].end_cycle);
    assert!(!base.kernels[0].killed);
}
