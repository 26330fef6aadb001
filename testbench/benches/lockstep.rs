//! Lockstep throughput of the warp arbiter (cycles/s): golden model alone (with its stimulus),
//! and golden + Verilated RTL in lockstep as `gpusched cosim` runs it (RTL on a second thread;
//! mismatch waveforms come from a snapshot, so they cost nothing here).
//!
//! Run: `cargo bench -p gpusched-tb --bench lockstep`; criterion prints the median time per
//! 100,000 cycles and the throughput in elements (= cycles) per second.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpusched_tb::cosim::{golden_only, run_variant, CosimOptions};
use gpusched_tb::lockstep::LockstepConfig;
use std::time::Duration;

const CYCLES: u64 = 100_000;

fn lockstep(c: &mut Criterion) {
    let mut g = c.benchmark_group("warp_arbiter");
    g.throughput(Throughput::Elements(CYCLES));
    g.sample_size(20)
        .measurement_time(Duration::from_secs(4))
        .warm_up_time(Duration::from_secs(1));
    for policy in ["lrr", "gto", "two_level"] {
        for preset in ["fermi", "proto"] {
            let id = format!("{policy}_{preset}");
            g.bench_function(BenchmarkId::new("golden_only", &id), |b| {
                b.iter(|| golden_only("warp_arbiter", policy, preset, CYCLES, 1).unwrap())
            });
            if !gpusched_tb::rtl::VERILATOR_BUILT {
                continue;
            }
            let opts = CosimOptions {
                cycles: CYCLES,
                seed: 1,
                lockstep: LockstepConfig::default(),
            };
            g.bench_function(BenchmarkId::new("lockstep", &id), |b| {
                b.iter(|| {
                    let r =
                        run_variant("warp_arbiter", policy, preset, &opts, &mut |_| {}).unwrap();
                    assert_eq!(r.mismatches, 0);
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, lockstep);
criterion_main!(benches);
