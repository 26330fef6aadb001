//! One module per subcommand.

pub mod bench;
pub mod blocks;
pub mod config;
pub mod cosim;
pub mod gen;
pub mod lint;
pub mod regress;
pub mod repro;
pub mod sim;
pub mod trace;
pub mod workloads;

use std::path::PathBuf;

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
