//! Links the `gpusched` binary as a position-dependent executable on Linux: its 30,000
//! relative relocations are then resolved at link time, not by the loader at every start
//! (about 0.3 ms a process, measured on `gpusched --version`; `bench --reference` runs one
//! process per simulation, most of them under 20 ms).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
