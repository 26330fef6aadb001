use super::*;
use crate::config::GpuConfig;
use crate::workload::builtin::BuiltinWorkload;
use crate::workload::kernel::TraceWorkload;
use crate::workload::shared_trace;

fn run(workload: &mut dyn WorkloadSource, opts: SimOptions) -> Report {
    let cfg = GpuConfig::preset("gtx480").unwrap();
    let mut f = arbiter::golden_factory();
    let mut gpu = Gpu::new(&cfg, opts, &mut *f).unwrap();
    gpu.run(workload, &mut |_| {}).unwrap()
}

#[test]
fn real_traces_complete_with_exact_instruction_counts() {
    for (name, warp, thread) in [
        ("vectoradd-100-32", 344, 10_516),
        ("matrixmul-32-32", 4_416, 139_264),
    ] {
        let Some(dir) = shared_trace(name) else {
            return;
        };
        for policy in warp_arbiter::Policy::ALL {
            let mut w = TraceWorkload::open(&dir).unwrap();
            let opts = SimOptions {
                warp_sched: policy,
                ..Default::default()
            };
            let r = run(&mut w, opts);
            eprintln!(
                "{name} {policy:?}: {} cycles ipc {:.2} l1d {:?} l2 {:?} dram {:?} stalls {:?}",
                r.counters.cycles,
                r.ipc,
                r.counters.l1d,
                r.counters.l2,
                r.counters.dram,
                r.counters.stalls
            );
            assert_eq!(
                (r.counters.warp_instructions, r.counters.thread_instructions),
                (warp, thread),
                "{name} under {policy:?}"
            );
            assert!(!r.truncated);
        }
    }
}

#[test]
fn builtin_kernels_run() {
    for name in ["stream", "compute"] {
        let mut w = BuiltinWorkload::new(name, "small").unwrap();
        let r = run(&mut w, SimOptions::default());
        eprintln!(
            "{name}: {} cycles ipc {:.2} l1d {:?} l2 {:?} dram {:?} stalls {:?}",
            r.counters.cycles,
            r.ipc,
            r.counters.l1d,
            r.counters.l2,
            r.counters.dram,
            r.counters.stalls
        );
    }
}
