//! The `gpusched` binary as users run it.

use std::path::Path;
use std::process::{Command, Output};

fn gpusched(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gpusched"))
        .args(args)
        .output()
        .expect("gpusched runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn gen_check_passes_on_the_committed_rtl_out() {
    let o = gpusched(&["gen", "--check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("up to date"));
}

#[test]
fn gen_check_fails_with_the_stale_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    assert!(gpusched(&["gen", "--out", out]).status.success());
    assert!(gpusched(&["gen", "--check", "--out", out]).status.success());
    let f = dir.path().join("warp_arbiter_gto_proto.v");
    let mut v = std::fs::read_to_string(&f).unwrap();
    v.push_str("// hand edit\n");
    std::fs::write(&f, v).unwrap();
    let o = gpusched(&["gen", "--check", "--out", out]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("changed: warp_arbiter_gto_proto.v"),
        "{}",
        text(&o)
    );
    std::fs::remove_file(dir.path().join("manifest.json")).unwrap();
    let o = gpusched(&["gen", "--check", "--out", out]);
    assert!(text(&o).contains("missing: manifest.json"), "{}", text(&o));
}

#[test]
fn unknown_names_are_errors_listing_the_valid_ones() {
    for (args, want) in [
        (
            vec!["cosim", "--block", "elf", "--policy", "gto"],
            "valid blocks: warp_arbiter",
        ),
        (
            vec!["cosim", "--policy", "fifo"],
            "valid policies: lrr, gto, two_level",
        ),
        (
            vec!["cosim", "--policy", "gto", "--preset", "kepler"],
            "valid presets: fermi, proto",
        ),
    ] {
        let o = gpusched(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
    }
}

#[test]
fn cosim_json_has_the_documented_fields() {
    if !gpusched_tb::rtl::VERILATOR_BUILT {
        eprintln!("SKIP: built without Verilator");
        return;
    }
    let o = gpusched(&[
        "cosim",
        "--policy",
        "two-level",
        "--preset",
        "proto",
        "--cycles",
        "20000",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["cycles"], 20000);
    assert_eq!(v["mismatches"], 0);
    assert!(v["cycles_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["module"], "warp_arbiter_two_level_proto");
}

#[test]
fn cosim_vcd_writes_the_whole_run() {
    if !gpusched_tb::rtl::VERILATOR_BUILT {
        eprintln!("SKIP: built without Verilator");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "cosim", "--policy", "lrr", "--preset", "proto", "--cycles", "100", "--vcd", d,
    ]);
    assert!(o.status.success(), "{}", text(&o));
    for f in [
        "warp_arbiter_lrr_proto.golden.vcd",
        "warp_arbiter_lrr_proto.rtl.vcd",
    ] {
        let p = Path::new(d).join(f);
        let head = std::fs::read_to_string(&p).unwrap();
        assert!(head.contains("$enddefinitions"), "{}", p.display());
    }
}

#[test]
fn config_show_prints_a_preset_that_loads_back() {
    let o = gpusched(&["config", "show", "gtx480"]);
    assert!(o.status.success(), "{}", text(&o));
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("mine.toml");
    std::fs::write(&f, &o.stdout).unwrap();
    let o2 = gpusched(&["config", "show", f.to_str().unwrap(), "--json"]);
    assert!(o2.status.success(), "{}", text(&o2));
    let v: serde_json::Value = serde_json::from_slice(&o2.stdout).unwrap();
    assert_eq!(v["sm"]["count"], 15);
    assert_eq!(v["dram"]["peak_gbps"], 177.4);
    // A bad value names its field.
    let bad = String::from_utf8_lossy(&o.stdout).replace("count = 15", "count = 0");
    std::fs::write(&f, bad).unwrap();
    let o3 = gpusched(&["config", "show", f.to_str().unwrap()]);
    assert_eq!(o3.status.code(), Some(2));
    assert!(
        text(&o3).contains("config field `sm.count`"),
        "{}",
        text(&o3)
    );
    let o4 = gpusched(&["config", "list"]);
    assert!(
        text(&o4).contains("gtx980") && text(&o4).contains("177.4 GB/s"),
        "{}",
        text(&o4)
    );
}

#[test]
fn trace_info_summarizes_the_real_traces() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces/vectoradd-100-32");
    if !dir.is_dir() {
        eprintln!(
            "SKIP: {} not found (the shared traces live beside the repository)",
            dir.display()
        );
        return;
    }
    let o = gpusched(&["trace", "info", dir.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = &v["kernels"][0];
    assert_eq!(
        (
            k["warp_instructions"].as_u64(),
            k["thread_instructions"].as_u64()
        ),
        (Some(344), Some(10_516))
    );
    assert_eq!(k["occupancy"]["blocks"], 1);
    let o = gpusched(&["trace", "info", "/no/such/trace"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("/no/such/trace"), "{}", text(&o));
}
