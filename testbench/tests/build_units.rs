//! The Verilated build's units (`testbench/build/units.rs`, compiled here as the build script
//! compiles it): the cache key, unity files, pruning, and the job pool, which builds every
//! unit and stops, rather than hangs, when one fails.

#[allow(dead_code)]
#[path = "../build/units.rs"]
mod units;

use std::fs;
use std::path::{Path, PathBuf};
use units::{Sources, Unit};

/// A unit whose one C++ file defines `int <name>_answer()` returning `value`.
fn unit(name: &str, value: u32) -> Unit<'static> {
    let name = name.to_string();
    let text = format!("extern \"C\" int {name}_answer() {{ return {value}; }}\n");
    Unit {
        name: name.clone(),
        inputs: text.clone().into_bytes(),
        defines: &[],
        make: Box::new(move |dir| {
            let f = dir.join(format!("{name}.cpp"));
            fs::write(&f, &text).unwrap();
            Sources {
                files: vec![f],
                includes: vec![],
                unity: false,
            }
        }),
    }
}

/// What cargo gives a build script and `cc` reads.
fn cc_env() {
    for (k, v) in [
        ("TARGET", env!("GS_BUILD_TARGET")),
        ("HOST", env!("GS_BUILD_TARGET")),
        ("OPT_LEVEL", "0"),
        ("DEBUG", "false"),
        // Two threads: with one, a failed job would end the pool with its only thread.
        ("NUM_JOBS", "2"),
    ] {
        std::env::set_var(k, v);
    }
}

fn folders(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "build-log.tsv")
        .collect();
    v.sort();
    v
}

fn lib_of(dir: &Path, name: &str) -> PathBuf {
    let folder = folders(dir)
        .into_iter()
        .find(|f| f.rsplit_once('-').is_some_and(|(n, _)| n == name))
        .unwrap_or_else(|| panic!("a folder of {name}"));
    dir.join(folder).join(format!("libgs_{name}.a"))
}

#[test]
fn units_are_built_once_per_key_and_only_the_changed_one_again() {
    cc_env();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("verilated");
    let root = tmp.path();
    units::build(
        "verilator-absent",
        root,
        &dir,
        vec![unit("a", 1), unit("b", 2)],
    );
    let (a, b) = (lib_of(&dir, "a"), lib_of(&dir, "b"));
    assert!(a.is_file() && b.is_file());
    let log = fs::read_to_string(dir.join("build-log.tsv")).unwrap();
    assert_eq!(
        log.lines().count(),
        1 + 4,
        "two makes and two compiles: {log}"
    );
    let b_time = fs::metadata(&b).unwrap().modified().unwrap();
    // `a` changes: a new folder for it; `b` is not touched.
    units::build(
        "verilator-absent",
        root,
        &dir,
        vec![unit("a", 3), unit("b", 2)],
    );
    let names = folders(&dir);
    assert_eq!(
        names.iter().filter(|n| n.starts_with("a-")).count(),
        2,
        "{names:?}"
    );
    assert_eq!(fs::metadata(&b).unwrap().modified().unwrap(), b_time);
    let log = fs::read_to_string(dir.join("build-log.tsv")).unwrap();
    assert!(
        log.contains("archive a") && !log.contains("archive b"),
        "{log}"
    );
    // A third version of `a`: the oldest one is pruned, the newest other kept.
    units::build(
        "verilator-absent",
        root,
        &dir,
        vec![unit("a", 4), unit("b", 2)],
    );
    let names = folders(&dir);
    assert_eq!(
        names.iter().filter(|n| n.starts_with("a-")).count(),
        2,
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| n.starts_with("b-")).count(),
        1,
        "{names:?}"
    );
}

#[test]
fn a_failing_unit_fails_the_build_instead_of_hanging() {
    cc_env();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("verilated");
    let broken = Unit {
        name: "broken".into(),
        inputs: vec![],
        defines: &[],
        make: Box::new(|_| panic!("verilator failed on broken.v")),
    };
    let root = tmp.path().to_path_buf();
    let run = std::thread::spawn(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            units::build("x", &root, &dir, vec![unit("ok", 1), broken])
        }))
        .is_err()
    });
    let start = std::time::Instant::now();
    while !run.is_finished() {
        assert!(
            start.elapsed().as_secs() < 60,
            "the build hung after a failure"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(run.join().unwrap(), "the build reported success");
}

#[test]
fn unity_files_gather_a_models_files_per_level_up_to_the_bound() {
    let tmp = tempfile::tempdir().unwrap();
    let vl = tmp.path().join("vl");
    fs::create_dir_all(&vl).unwrap();
    let mut files = vec![];
    for (name, kb) in [
        ("V__0.cpp", 600),
        ("V__1.cpp", 300),
        ("V__2.cpp", 300),
        ("V__3__Slow.cpp", 10),
        ("V__Trace__0.cpp", 10),
        ("V__big.cpp", 2048),
    ] {
        let f = vl.join(name);
        fs::write(&f, vec![b' '; kb * 1024]).unwrap();
        files.push(f);
    }
    let src = Sources {
        files,
        includes: vec![],
        unity: true,
    };
    let out = units::unity(tmp.path(), &src);
    let text = |p: &Path| fs::read_to_string(p).unwrap();
    // Hot: [0, 1] (900 kB), [2], [big]; cold: [3__Slow, Trace__0].
    assert_eq!(out.len(), 4, "{out:?}");
    let hot: Vec<_> = out
        .iter()
        .filter(|(_, p)| units::opt_level_of(p) == 2)
        .collect();
    assert_eq!(hot.len(), 3);
    assert_eq!(hot[0].0, 900 * 1024);
    assert_eq!(
        text(&hot[0].1),
        "#include \"vl/V__0.cpp\"\n#include \"vl/V__1.cpp\"\n"
    );
    let cold: Vec<_> = out
        .iter()
        .filter(|(_, p)| units::opt_level_of(p) == 0)
        .collect();
    assert_eq!(cold.len(), 1);
    assert!(
        text(&cold[0].1).contains("V__3__Slow.cpp") && text(&cold[0].1).contains("V__Trace__0.cpp")
    );
}
