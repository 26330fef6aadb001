//! Sweep spec text -> `gpusim::sweep_spec::parse` (TOML, names, axes, duplicates, sizes,
//! workloads, trace directories relative to the spec).
//!
//! Any error is an answer, and names the spec's file; a panic, an abort or an allocation
//! failure is a crash.
#![no_main]

use gpusim::sweep_spec::parse;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse(&text, Path::new("fuzz/spec.toml")) {
        Ok(s) => {
            assert!(!s.workloads.is_empty() && !s.configs.is_empty() && !s.policies.is_empty());
        }
        Err(e) => {
            assert_eq!(e.path, "fuzz/spec.toml");
            assert!(e.line >= 1 && e.line <= text.lines().count().max(1), "{e}");
        }
    }
});
