//! GPGPU-Sim option text -> the reader (every option name, the structured options' fields,
//! the value kinds) over `gtx480`, as a first file and as a later one of a `--config` list ->
//! validation -> the notes and their one-line summary.
//!
//! Parsing only (no GPU run: `config_to_gpu` runs one), so it reaches far more inputs a
//! second. Any error is an answer; a panic, an abort or an allocation failure is a crash.
#![no_main]

use gpusim::config::gpgpusim::{parse, parse_over};
use gpusim::config::presets;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let base = presets::gtx480();
    let path = Path::new("fuzz.config");
    for read in [parse, parse_over] {
        match read(&text, path, &base) {
            Ok(p) => {
                assert!(p.config.validate().is_ok(), "a parsed config is valid");
                for u in &p.notes.unmodelled {
                    let line = u.to_string();
                    assert!(line.starts_with("fuzz.config:"), "{line}");
                }
                let _ = p.notes.summary();
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(msg.starts_with("fuzz.config") || msg.starts_with("config field"), "{msg}");
            }
        }
    }
});
