//! Trace text -> reader -> GPU model (gtx480, golden blocks) for at most 3,000 cycles; blocks
//! above 4 KB decoded run streamed.
//!
//! The input is one `kernel-1.traceg`, plain or xz (the reader detects it from its bytes: the
//! xz seeds cover corrupt and truncated streams); an input whose length is 2 modulo 3 is
//! compressed with xz first, so the decoder also feeds the reader fuzzed text. Any error
//! (syntax, invalid value, corrupt stream, deadlock) is an answer, a panic or an abort is a
//! crash.
#![no_main]

use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::kernel::TraceWorkload;
use gpusim::workload::compressed::TraceWriter;
use libfuzzer_sys::fuzz_target;
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

/// A directory of this process holding `kernelslist.g` and the kernel file under test.
fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("gpusched-fuzz-trace-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let d = dir();
    let file = d.join("kernel-1.traceg");
    if data.len() % 3 == 2 {
        let mut w = TraceWriter::create(&file, Some(0)).unwrap();
        w.write_all(data).unwrap();
        w.finish().unwrap();
    } else {
        std::fs::write(&file, data).unwrap();
    }
    // Blocks of more than 4 KB decoded stream, 16 instructions per warp at a time: both paths.
    let Ok(w) = TraceWorkload::open(d) else {
        return;
    };
    let mut w = w.with_streaming(4096, 16);
    let cfg = GpuConfig::preset("gtx480").unwrap();
    // Odd-length inputs also run the locality-aware dispatcher and warp scheduler, whose
    // address pre-computation reads the whole trace first.
    let locality = data.len() % 2 == 1;
    let policies = if locality {
        "--tb-sched locality --warp-sched laws"
    } else {
        ""
    };
    let opts = SimOptions {
        max_cycles: Some(3_000),
        watchdog: 1_000,
        ..SimOptions::parse(policies).unwrap()
    };
    let mut gpu = Gpu::golden(&cfg, opts).unwrap();
    let _ = gpu.run(&mut w, &mut |_| {});
});
