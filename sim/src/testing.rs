//! What the test suites need from outside the repository, and what a test does without it.
//!
//! Things that may be missing on a machine: the RTL tools (`rtl`: Verilator, with which the
//! testbench is built, and Yosys), the iCE40 place-and-route tools (`fpga`: nextpnr-ice40,
//! icepack) and the real traces in `../shared/traces` beside the repository, or in
//! `$GPUSCHED_SHARED/traces` (`traces`). A test that needs one calls [`available`]:
//! * present: the test runs;
//! * missing, and named in `GPUSCHED_REQUIRE` (comma-separated, e.g. `rtl,traces`, as CI sets
//!   it): the test fails, naming what is missing;
//! * missing otherwise: a `SKIP` line goes straight to the terminal's standard error (not into
//!   the output `cargo test` captures, which nobody sees) and the test returns.

use std::io::Write as _;
use std::path::PathBuf;

/// The environment variable naming what must be present.
pub const REQUIRE_ENV: &str = "GPUSCHED_REQUIRE";

/// Whether `what` (`rtl`, `fpga`, `traces`, ...) must be present ([`REQUIRE_ENV`]).
pub fn required(what: &str) -> bool {
    listed(std::env::var(REQUIRE_ENV).ok().as_deref(), what)
}

fn listed(spec: Option<&str>, what: &str) -> bool {
    spec.is_some_and(|v| v.split(',').any(|w| w.trim() == what))
}

/// `present`, or: fails when `what` is required, else prints `SKIP: <missing>` (what is missing
/// and how to get it) on the terminal and returns false.
#[track_caller]
pub fn available(what: &str, present: bool, missing: &str) -> bool {
    decide(
        std::env::var(REQUIRE_ENV).ok().as_deref(),
        what,
        present,
        missing,
    )
}

#[track_caller]
fn decide(spec: Option<&str>, what: &str, present: bool, missing: &str) -> bool {
    if present {
        return true;
    }
    if listed(spec, what) {
        panic!("{REQUIRE_ENV} requires `{what}`: {missing}");
    }
    let _ = writeln!(
        std::io::stderr(),
        "SKIP ({}): {missing}",
        std::panic::Location::caller()
    );
    false
}

/// The environment variable naming the shared folder (the one holding `traces/`), for a clone
/// that does not sit beside it.
pub const SHARED_ENV: &str = "GPUSCHED_SHARED";

/// `$GPUSCHED_SHARED`, when set and not empty.
pub fn shared_env() -> Option<PathBuf> {
    std::env::var_os(SHARED_ENV)
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// The shared folder: `$GPUSCHED_SHARED` when set, else `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    shared_env().unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"))
}

/// The real traces: `traces/` in [`shared_dir`].
pub fn shared_traces() -> PathBuf {
    shared_dir().join("traces")
}

/// The real trace `name` in [`shared_traces`], if present ([`available`] decides otherwise).
#[track_caller]
pub fn shared_trace(name: &str) -> Option<PathBuf> {
    let p = shared_traces().join(name);
    let missing = format!(
        "{} not found (the shared traces live in ../shared beside the repository, or in \
         ${SHARED_ENV})",
        p.display()
    );
    available("traces", p.is_dir(), &missing).then_some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_requirement_skips_or_fails_as_gpusched_require_says() {
        let spec = Some("rtl, traces");
        assert!(listed(spec, "rtl") && listed(spec, "traces") && !listed(spec, "yosys"));
        assert!(!listed(None, "rtl"));
        assert!(decide(spec, "rtl", true, "never printed"));
        assert!(!decide(spec, "other", false, "skipped on purpose"));
        assert!(!decide(None, "rtl", false, "skipped on purpose"));
        let r = std::panic::catch_unwind(|| decide(spec, "traces", false, "missing"));
        let e = r.unwrap_err();
        let msg = e.downcast_ref::<String>().unwrap();
        assert!(
            msg.contains("GPUSCHED_REQUIRE requires `traces`: missing"),
            "{msg}"
        );
    }
}
