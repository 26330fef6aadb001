//! What the integration tests share: running the `gpusched` binary and reading its output.
// Each test crate uses its own part of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the binary with `args`, capturing its output.
pub fn gpusched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusched"))
        .args(args)
        .output()
        .expect("gpusched runs")
}

/// Standard output then standard error, as text.
pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Asserts that `o`'s output (stdout and stderr) contains `want`, showing it otherwise.
#[track_caller]
pub fn says(o: &Output, want: &str) {
    let t = text(o);
    assert!(t.contains(want), "{want:?} not in:\n{t}");
}

/// The JSON object a successful run printed on standard output.
#[track_caller]
pub fn json(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", text(o));
    serde_json::from_slice(&o.stdout).expect("stdout is one JSON object")
}

/// `nn` small exported as a trace into `t`; returns `t`.
pub fn export_nn_small(t: &Path) -> PathBuf {
    let o = gpusched(&[
        "trace",
        "export",
        "--workload",
        "nn",
        "--size",
        "small",
        "--out",
        t.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o));
    t.to_path_buf()
}
