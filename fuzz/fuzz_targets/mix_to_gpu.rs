//! Mix-file text -> parser -> a GPU run of at most 3,000 cycles under the kernel scheduler and
//! preemption technique the first byte picks (serial, fcfs, smk; even and a 500-cycle time
//! slice with switch, drain or flush; Chimera and its single-technique baselines with a tight
//! latency limit, each idempotence scope, both selectors, both drain-overhead formulas and
//! the kill of late kernels).
//!
//! Any error is an answer; a panic, an abort or an allocation failure is a crash.
#![no_main]

use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::mix::Mix;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

const SCHEDULERS: [&str; 17] = [
    "serial",
    "fcfs",
    "smk",
    "even --preempt switch",
    "even --preempt drain",
    "even --preempt flush",
    "timeslice --quantum 500 --preempt switch",
    "timeslice --quantum 500 --preempt drain",
    "timeslice --quantum 500 --preempt flush",
    "chimera --lat-limit 300",
    "chimera --lat-limit 300 --idempotence sm --lat-margin 100",
    "chimera --idempotence kernel --sm-need packed --drain-overhead slot-idle",
    "chimera --selector software --lat-limit 300",
    "switch-only --free-switch",
    "drain-only",
    "drain-only --lat-limit 1 --kill-late",
    "flush-only --lat-limit 1",
];

fuzz_target!(|data: &[u8]| {
    let Some((&kind, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    // Traces it names resolve against a directory that does not exist: an error, no I/O.
    let Ok(mut mix) = Mix::parse(text, Path::new("/nonexistent/fuzz.toml")) else {
        return;
    };
    let sched = SCHEDULERS[kind as usize % SCHEDULERS.len()];
    let mut opts = SimOptions::parse(&format!("--kernel-sched {sched}")).unwrap();
    opts.max_cycles = Some(3_000);
    opts.watchdog = 1_000;
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let Ok(mut gpu) = Gpu::golden(&cfg, opts) else {
        return;
    };
    let _ = gpu.run(&mut mix, &mut |_| {});
});
