//! Test helpers shared by the crate's unit tests.

use crate::Generated;
use std::sync::OnceLock;

/// Everything `gen` produces, generated once per test binary (rust-hdl takes tens of seconds
/// to emit every module; the tests only read it).
pub(crate) fn generated() -> &'static Generated {
    static G: OnceLock<Generated> = OnceLock::new();
    G.get_or_init(|| crate::generate_all().unwrap())
}
