//! Config text -> parser (TOML, JSON or GPGPU-Sim, chosen by the first byte) -> validation ->
//! GPU construction -> the `stream` kernel (small) for at most 2,000 cycles.
//!
//! Any error is an answer; a panic, an abort or an allocation failure is a crash.
#![no_main]

use gpusim::config::GpuConfig;
use gpusim::gpu::{Gpu, SimOptions};
use gpusim::workload::builtin;
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("gpusched-fuzz-config-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&kind, text)) = data.split_first() else {
        return;
    };
    let name = match kind % 3 {
        0 => "c.toml",
        1 => "c.json",
        _ => "gpgpusim.config",
    };
    let path = dir().join(name);
    std::fs::write(&path, text).unwrap();
    let Ok((cfg, _)) = GpuConfig::load_with_notes(path.to_str().unwrap()) else {
        return;
    };
    let opts = SimOptions {
        max_cycles: Some(2_000),
        watchdog: 1_000,
        ..Default::default()
    };
    let Ok(mut gpu) = Gpu::golden(&cfg, opts) else {
        return;
    };
    let mut w = builtin::workload("stream", "small").unwrap();
    let _ = gpu.run(&mut w, &mut |_| {});
});
