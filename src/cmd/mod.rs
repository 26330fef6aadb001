//! One module per subcommand, and [`outln!`]/[`out!`], the standard-output writers they all use.

/// Like `println!`, but a failed write (a full disk, a closed pipe) is returned with `?` as an
/// error of the enclosing function instead of a panic.
macro_rules! outln {
    () => {
        $crate::cmd::write_stdout(format_args!("\n"))?
    };
    ($($arg:tt)*) => {
        $crate::cmd::write_stdout(format_args!("{}\n", format_args!($($arg)*)))?
    };
}

/// Like `print!`, but a failed write is returned with `?` (see [`outln!`]).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cmd::write_stdout(format_args!($($arg)*))?
    };
}

pub mod accel_sim;
pub mod bench;
pub mod blocks;
pub mod calibrate;
pub mod config;
pub mod cosim;
pub mod docs;
pub mod fpga;
pub mod gen;
pub mod isolated;
pub mod lint;
pub mod paver;
pub mod policies;
pub mod policy_args;
pub mod reference;
pub mod refset;
pub mod regress;
pub mod repro;
pub mod sim;
pub mod sweep;
pub mod trace;
pub mod workloads;

/// The median of `xs` (the upper one of an even count; `xs` not empty).
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

use std::path::PathBuf;

/// A failed write to standard output (`main` tells a closed pipe from other errors by it).
#[derive(Debug)]
pub struct StdoutError(pub std::io::Error);

impl std::fmt::Display for StdoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "writing to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

/// Writes `args` to standard output; the error names standard output and keeps the OS reason.
pub fn write_stdout(args: std::fmt::Arguments) -> anyhow::Result<()> {
    use std::io::Write;
    std::io::stdout()
        .lock()
        .write_fmt(args)
        .map_err(|e| StdoutError(e).into())
}

/// Default output directory of `gen`: `rtl-out/` at the repository root when run from the
/// repository (the directory holding `Cargo.toml` of this crate), else `./rtl-out`.
pub fn default_rtl_dir() -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rtl-out");
    if repo.is_dir() {
        repo
    } else {
        PathBuf::from("rtl-out")
    }
}

/// Default `--traces` directory: `$GPUSCHED_SHARED/traces` when that variable is set (a clone
/// that does not sit beside the shared folder), else `../shared/traces` (relative to the working
/// directory: the repository root, as the README runs it).
pub fn default_traces() -> PathBuf {
    gpusim::testing::shared_env()
        .unwrap_or_else(|| PathBuf::from("../shared"))
        .join("traces")
}
