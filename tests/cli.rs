//! The `gpusched` binary as users run it.

mod common;

use common::{export_nn_small, gpusched, json, says, text};
use gpusim::policy::RegressOn;
use std::path::Path;
use std::process::Command;

/// Whether this build has Verilated modules (else SKIP, or a failure under
/// `GPUSCHED_REQUIRE=rtl`).
#[track_caller]
fn verilator_built() -> bool {
    gpusim::testing::available(
        "rtl",
        gpusched_tb::rtl::VERILATOR_BUILT,
        "built without Verilator (apt-get install -y verilator, then rebuild)",
    )
}

#[test]
fn gen_check_passes_on_the_committed_rtl_out() {
    let o = gpusched(&["gen", "--check"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("up to date"));
}

/// What `gen --check` names of a directory `gen` wrote and that was edited since: the edits are
/// checked in-process against one generation (rust-hdl takes tens of seconds per generation);
/// the command itself writes the directory and, at the end, fails on it with the files named.
#[test]
fn gen_check_fails_with_the_stale_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    // The committed report describes the Verilog gen writes, so gen keeps it (no synthesis).
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl-out");
    std::fs::copy(repo.join("REPORT.md"), dir.path().join("REPORT.md")).unwrap();
    let o = gpusched(&["gen", "--out", out]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("REPORT.md is up to date"), "{}", text(&o));
    let g = gpusched_gen::generate_all().unwrap();
    let check = || gpusched_gen::check(&g, dir.path()).to_string();
    assert!(
        gpusched_gen::check(&g, dir.path()).is_clean(),
        "{}",
        check()
    );
    // A changed research module makes the report stale too.
    let edit = |file: &str| {
        let f = dir.path().join(file);
        let mut v = std::fs::read_to_string(&f).unwrap();
        v.push_str("// hand edit\n");
        std::fs::write(&f, v).unwrap();
    };
    edit("newcar_base_proto.v");
    assert!(
        check().contains("changed: newcar_base_proto.v"),
        "{}",
        check()
    );
    // (the report hashes the Verilog gen produces, so an edited file on disk alone is only the
    // file's own difference; an edited report row is the report's)
    let r = std::fs::read_to_string(dir.path().join("REPORT.md")).unwrap();
    let edited = r.replacen("| elf_base_proto | `", "| elf_base_proto | `0", 1);
    std::fs::write(dir.path().join("REPORT.md"), edited).unwrap();
    let want = "REPORT.md (REPORT.md describes an older elf_base_proto.v)";
    assert!(check().contains(want), "{}", check());
    edit("warp_arbiter_gto_proto.v");
    assert!(
        check().contains("changed: warp_arbiter_gto_proto.v"),
        "{}",
        check()
    );
    std::fs::remove_file(dir.path().join("manifest.json")).unwrap();
    assert!(check().contains("missing: manifest.json"), "{}", check());
    // The command says the same and exits 1.
    let o = gpusched(&["gen", "--check", "--out", out]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    for want in [
        "changed: newcar_base_proto.v",
        "changed: warp_arbiter_gto_proto.v",
        "missing: manifest.json",
        want,
    ] {
        assert!(text(&o).contains(want), "{want} not in {}", text(&o));
    }
}

#[test]
fn unknown_names_are_errors_listing_the_valid_ones() {
    for (args, want) in [
        (
            vec!["cosim", "--block", "elfo", "--policy", "gto"],
            "valid blocks: warp_arbiter, elf, newcar",
        ),
        (
            vec!["cosim", "--block", "elf", "--policy", "gto"],
            "valid policies: base",
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
    if !verilator_built() {
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
    if !verilator_built() {
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
    // A file where the directory should be: one clear error, said once.
    let file = dir.path().join("a_file");
    std::fs::write(&file, "").unwrap();
    let o = gpusched(&[
        "cosim",
        "--policy",
        "lrr",
        "--preset",
        "proto",
        "--cycles",
        "100",
        "--vcd",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("a_file: exists and is not a directory"), "{t}");
    assert_eq!(t.matches("not a directory").count(), 1, "{t}");
}

#[test]
fn repro_refuses_attribute_where_it_would_be_ignored() {
    let want = "--attribute switches mechanisms between an experiment's two presets: only elf, \
                locality, chimera, maestro and paws run on two, and only without --config";
    for args in [
        &["repro", "paws", "--attribute", "--config", "gtx480"][..],
        &["repro", "paver", "--attribute"][..],
        &["repro", "elf", "--attribute", "--config", "gtx480"][..],
    ] {
        let o = gpusched(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
    }
}

/// `repro paws` at a paper's size: the phase kernels, which have none, are refused by what they
/// lack (not as an `--only` that names nothing).
#[test]
fn repro_paws_at_a_papers_size_names_the_workloads_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "paws",
        "--size",
        "elf",
        "--only",
        "phase_msl",
        "--out",
        out,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("none of these workloads has a `elf` size; those with one: bfs"),
        "{}",
        text(&o)
    );
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
    let Some(dir) = gpusim::testing::shared_trace("vectoradd-100-32") else {
        return;
    };
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

#[test]
fn sim_json_has_the_documented_fields_and_is_deterministic() {
    let args = [
        "sim",
        "--workload",
        "stream",
        "--warp-sched",
        "two-level",
        "--tb-sched",
        "bcs",
        "--json",
    ];
    let a = gpusched(&args);
    let v = json(&a);
    for k in [
        "cycles",
        "warp_instructions",
        "thread_instructions",
        "ipc",
        "l1d",
        "l2",
        "dram",
        "kernels",
        "stalls",
        "sms",
    ] {
        assert!(v.get(k).is_some(), "missing `{k}` in {v}");
    }
    for cache in ["l1d", "l2"] {
        assert!(v[cache]["accesses"].as_u64().unwrap() > 0);
        assert!(v[cache]["misses"].as_u64().is_some());
    }
    for k in ["reads", "writes", "row_hits"] {
        assert!(v["dram"][k].as_u64().is_some(), "dram.{k}");
    }
    assert_eq!(v["warp_sched"], "two_level");
    assert_eq!(v["tb_sched"], "bcs");
    assert_eq!(v["blocks"], "golden");
    assert_eq!(v["policy"], "two_level");
    assert_eq!(v["issue"], "sequential");
    let k = &v["kernels"][0];
    assert_eq!(k["thread_instructions"], v["thread_instructions"]);
    assert_eq!(k["occupancy"]["blocks"], 6);
    let b = gpusched(&args);
    assert_eq!(a.stdout, b.stdout, "same inputs, same output, bit for bit");
}

#[test]
fn sim_runs_a_real_trace_with_its_exact_counts() {
    let Some(dir) = gpusim::testing::shared_trace("matrixmul-32-32") else {
        return;
    };
    let v = json(&gpusched(&[
        "sim",
        "--trace",
        dir.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["warp_instructions"], 4416);
    assert_eq!(v["thread_instructions"], 139_264);
    let o = gpusched(&["sim", "--trace", dir.to_str().unwrap()]);
    assert!(
        text(&o).contains("thread instructions          139264"),
        "{}",
        text(&o)
    );
}

#[test]
fn sim_rejects_bad_input_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let list = dir.path().join("kernelslist.g");
    std::fs::write(&list, "MemcpyHtoD,0x10,zz\n").unwrap();
    let d = dir.path().to_str().unwrap();
    for (args, want) in [
        (
            vec!["sim", "--trace", d],
            "kernelslist.g:1: expected `MemcpyHtoD,<hex address>,<bytes>`",
        ),
        (
            vec!["sim", "--workload", "nbody"],
            "unknown workload `nbody`; workloads: stream, compute, hs",
        ),
        (
            vec!["sim", "--workload", "stream", "--size", "huge"],
            "unknown size `huge`",
        ),
        (
            vec!["sim", "--workload", "sift", "--size", "paper"],
            "workload `sift` has no `paper` size; the workloads with one: hs, bp, lud",
        ),
        (
            vec!["sim", "--workload", "stream", "--warp-sched", "fifo"],
            "unknown warp scheduler `fifo`",
        ),
        (
            vec!["sim", "--workload", "stream", "--tb-sched", "x"],
            "unknown thread-block scheduler `x`",
        ),
        (
            vec!["sim", "--workload", "stream", "--config", "gtx1"],
            "gtx1",
        ),
        (
            vec!["sim", "--workload", "stream", "--config", "no/such.toml"],
            "no/such.toml: No such file or directory",
        ),
        (
            vec!["sim", "--workload", "stream", "--watchdog", "0"],
            "invalid value '0' for '--watchdog <N>': 0 is not in 1..",
        ),
        (
            vec!["sim", "--workload", "stream", "--max-cycles", "0"],
            "invalid value '0' for '--max-cycles <N>': 0 is not in 1..",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--lockstep",
                "warp_arbiter",
                "--window",
                "1000000000",
            ],
            "invalid value '1000000000' for '--window <WINDOW>': 1000000000 is not in 0..=1048576",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--lockstep",
                "warp_arbiter",
                "--snapshot-interval",
                "0",
            ],
            "invalid value '0' for '--snapshot-interval <CYCLES>': 0 is not in 1..=16777216",
        ),
        (
            vec!["cosim", "--policy", "gto", "--window", "99999999999"],
            "invalid value '99999999999' for '--window <WINDOW>'",
        ),
        (
            vec!["sim", "--workload", "stream", "--rtl", "elf"],
            "this run has no elf block (policies that use it: --warp-sched elf, --warp-sched elf++)",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--warp-sched",
                "elf",
                "--lockstep",
                "warp_arbiter",
            ],
            "this run has no warp_arbiter block (policies that use it: --warp-sched lrr",
        ),
        (
            vec!["sim", "--workload", "stream", "--rtl", "fpu"],
            "unknown block `fpu`; valid blocks: warp_arbiter, elf, newcar, tb_dispatch",
        ),
        (
            vec!["sim", "--workload", "stream", "--rr-fetch"],
            "--rr-fetch needs --warp-sched elf",
        ),
        (
            vec!["sim", "--workload", "stream", "--elf-recalc", "always"],
            "--elf-recalc needs --warp-sched elf",
        ),
        (
            vec!["sim", "--workload", "stream", "--elf-wpt", "registered"],
            "--elf-wpt needs --warp-sched elf",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--warp-sched",
                "elf",
                "--elf-wpt",
                "registered",
                "--lockstep",
                "elf",
            ],
            "no elf RTL for 48 warps, 2 schedulers, 32 program points, registered WPT updates",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--warp-sched",
                "elf",
                "--elf-recalc",
                "never",
            ],
            "[possible values: literal, consistent, always]",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--config",
                "titanx",
                "--rtl",
                "warp_arbiter",
            ],
            "no warp_arbiter RTL for gto 16 warps per scheduler",
        ),
        (
            vec![
                "sim",
                "--workload",
                "stream",
                "--config",
                "titanx",
                "--lockstep",
                "tb_dispatch",
            ],
            "no tb_dispatch RTL for lrr over 28 SMs: rtl-out has fermi (lrr over 15 SMs)",
        ),
    ] {
        let o = gpusched(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(text(&o).contains(want), "{args:?}: {}", text(&o));
    }
    let o = gpusched(&["sim"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains("required arguments were not provided"),
        "{}",
        text(&o)
    );
    let o = gpusched(&["sim", "--trace", d, "--workload", "stream"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("cannot be used with"), "{}", text(&o));
}

#[test]
fn sim_with_the_verilated_arbiter_matches_the_golden_run() {
    if !verilator_built() {
        return;
    }
    let golden = json(&gpusched(&["sim", "--workload", "compute", "--json"]));
    for mode in ["--rtl", "--lockstep"] {
        let mut v = json(&gpusched(&[
            "sim",
            "--workload",
            "compute",
            mode,
            "warp_arbiter",
            "--json",
        ]));
        v["blocks"] = golden["blocks"].clone();
        assert_eq!(v, golden, "{mode}");
    }
    let golden = json(&gpusched(&[
        "sim",
        "--workload",
        "lbm",
        "--warp-sched",
        "elf++",
        "--json",
    ]));
    for mode in ["--rtl", "--lockstep"] {
        let mut v = json(&gpusched(&[
            "sim",
            "--workload",
            "lbm",
            "--warp-sched",
            "elf++",
            mode,
            "elf,newcar",
            "--json",
        ]));
        assert_eq!(
            v["blocks"],
            format!("elf:{},newcar:{}", &mode[2..], &mode[2..])
        );
        v["blocks"] = golden["blocks"].clone();
        assert_eq!(v, golden, "{mode} elf,newcar");
    }
}

#[test]
fn sim_runs_the_elf_configurations() {
    let run = |extra: &[&str]| {
        let mut args = vec!["sim", "--workload", "lbm", "--json"];
        args.extend_from_slice(extra);
        json(&gpusched(&args))
    };
    let gto = run(&[]);
    let plus = run(&["--warp-sched", "elf++"]);
    assert_eq!(plus["policy"], "elf++");
    assert_eq!(
        (plus["issue"].as_str(), plus["fetch"].as_str()),
        (Some("paired"), Some("elf"))
    );
    assert_eq!(
        (plus["lsu_queue"].as_str(), plus["iprefetch"].as_u64()),
        (Some("newcar"), Some(16))
    );
    assert!(plus["lsu_queue_enqueued"].as_u64().unwrap() > 0);
    assert!(plus["kernels"][0]["elf_points"][1].as_u64().unwrap() > 0);
    assert_eq!(plus["thread_instructions"], gto["thread_instructions"]);
    assert!(
        plus["cycles"].as_u64() < gto["cycles"].as_u64(),
        "ELF++ speeds lbm up"
    );
    let nc = run(&["--newcar", "--iprefetch", "8"]);
    assert_eq!(nc["policy"], "gto+newcar+iprefetch8");
    let consistent = run(&["--warp-sched", "elf++", "--elf-recalc", "consistent"]);
    assert_eq!(consistent["policy"], "elf++(recalc=consistent)");
    assert_eq!(
        consistent["thread_instructions"],
        gto["thread_instructions"]
    );
    // Four schedulers per SM (GTX 980): ELF serves them. (TITAN V's sub-cores give each
    // scheduler its own units, which an SM-wide issue unit cannot use: refused.)
    let gtx980 = run(&["--warp-sched", "elf", "--config", "gtx980"]);
    assert_eq!(gtx980["thread_instructions"], gto["thread_instructions"]);
    let o = gpusched(&[
        "sim",
        "--workload",
        "lbm",
        "--warp-sched",
        "elf",
        "--config",
        "titanv",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o, "the ELF block issues for the whole SM, which sub-cores");
    let rr = run(&["--warp-sched", "elf", "--rr-fetch"]);
    assert_eq!(
        (rr["policy"].as_str(), rr["fetch"].as_str()),
        (Some("elf(rr-fetch)"), Some("round_robin"))
    );
}

/// The `name` of every column of a `repro --json` document.
fn column_names(v: &serde_json::Value) -> Vec<&str> {
    v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

/// `repro locality --size paper`: the benchmarks at the thesis's inputs; a workload without a
/// `paper` size is left out and named; none left is an error.
#[test]
fn repro_locality_at_the_paper_size_names_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = |only| {
        [
            "repro", "locality", "--size", "paper", "--config", "gtx480", "--only", only, "--out",
            out,
        ]
    };
    let o = gpusched(&args("nn,sift"));
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(dir.path().join("locality.md")).unwrap();
    assert!(md.contains("Left out of every row and mean: sift (no `paper` size yet)."));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("locality.json")).unwrap())
            .unwrap();
    let nn = &v["rows"][0];
    assert_eq!(
        (v["rows"].as_array().unwrap().len(), &nn["workload"]),
        (1, &serde_json::json!("nn"))
    );
    // 5,120 blocks of the one launch over what the 15 SMs hold at once.
    assert!(nn["waves"].as_f64().unwrap() > 4.0, "{nn}");
    let o = gpusched(&args("sift"));
    assert!(!o.status.success());
    assert!(
        text(&o).contains("none of these workloads has a `paper` size"),
        "{}",
        text(&o)
    );
}

/// `repro elf --size elf --headline`: the ELF paper's benchmarks at their run scripts' inputs,
/// only the columns with a thesis figure; a workload without that size (bfs) is left out and
/// named, `workloads --size elf` lists the launches, `sim` names the workloads that have the
/// size, and `--headline` is refused where there are no other columns.
#[test]
fn repro_elf_at_the_elf_size_names_what_it_leaves_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "elf",
        "--size",
        "elf",
        "--config",
        "gtx480",
        "--only",
        "hs,heartwall",
        "--out",
        out,
        "--headline",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(dir.path().join("elf.md")).unwrap();
    assert!(md.contains("Left out of every row and mean: heartwall (no `elf` size yet)."));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("elf.json")).unwrap())
            .unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["workload"], "hs");
    assert_eq!(v["left_out"], serde_json::json!(["heartwall"]));
    let columns = v["columns"].as_array().unwrap();
    assert!(
        columns.iter().all(|c| c["thesis"].is_number()),
        "{columns:?}"
    );
    assert_eq!(columns[0]["name"], "gto");
    let o = gpusched(&["repro", "paver", "--headline"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("--headline: only elf and locality"));
    let o = gpusched(&["workloads", "--size", "elf", "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let w: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let hs = w.as_array().unwrap().iter().find(|r| r["name"] == "hs");
    assert_eq!(hs.unwrap()["blocks"], 1_849);
    let o = gpusched(&["sim", "--workload", "heartwall", "--size", "elf"]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains(
            "has no `elf` size; the workloads with one: bfs, km, lbm, fdtd3d, hs, bp, lud, nw, srad"
        ),
        "{}",
        text(&o)
    );
}

/// `repro locality`: by default on GPGPU-Sim 3.2.2's GTX480 and on the calibrated one side by
/// side, the thesis's four figures beside ours on each; per configuration the columns, the
/// workloads' categories and the three files; with `--attribute`, each mechanism in which the
/// two differ switched alone.
#[test]
fn repro_locality_writes_the_comparisons_and_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "locality",
        "--size",
        "small",
        "--only",
        "locality_col,nn",
        "--out",
        out,
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        doc["configs"],
        serde_json::json!(["gtx480-3.2.2", "gtx480"])
    );
    assert_eq!(doc["headlines"][0].as_array().unwrap().len(), 4);
    assert_eq!(doc["headlines"][1][0]["paper"], 1.26);
    assert_eq!(doc["attribution"], serde_json::json!([]));
    let md = std::fs::read_to_string(dir.path().join("locality.md")).unwrap();
    assert!(
        md.contains("| figure | paper | `gtx480-3.2.2` | `gtx480` | what moves it |")
            && md.contains("| LA-TB + LAWS over RR + GTO (all) | +26.0% |"),
        "{md}"
    );
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("locality-gtx480.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(v["config"], "gtx480");
    assert_eq!(&column_names(&v)[..4], ["rr", "bcs", "la", "la_laws"]);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(
        rows.iter()
            .map(|r| (
                r["workload"].as_str().unwrap(),
                r["category"].as_str().unwrap()
            ))
            .collect::<Vec<_>>(),
        [("locality_col", "II"), ("nn", "III")]
    );
    assert_eq!(rows[0]["cells"][0]["speedup"], 1.0);
    // Column sharers gather under locality-aware dispatch: far fewer L1D misses, and faster
    // (a few percent since the Accel-Sim calibration; above +25% before).
    let la = &rows[0]["cells"][2];
    assert!(
        la["l1d_miss_rate"].as_f64().unwrap()
            < rows[0]["cells"][0]["l1d_miss_rate"].as_f64().unwrap() - 0.2,
        "{}",
        rows[0]
    );
    assert!(la["speedup"].as_f64().unwrap() > 1.0, "{}", rows[0]);
    let comps = v["comparisons"].as_array().unwrap();
    assert_eq!(comps.len(), 4);
    assert_eq!(comps[0]["thesis"], 1.26);
    let md = std::fs::read_to_string(dir.path().join("locality-gtx480.md")).unwrap();
    assert!(
        md.contains("| LA-TB + LAWS over RR + GTO | all | +26.0% |")
            && md.contains("| locality_col | II |"),
        "{md}"
    );
    for stem in ["locality", "locality-gtx480", "locality-gtx480-3.2.2"] {
        let svg = std::fs::read_to_string(dir.path().join(format!("{stem}.svg"))).unwrap();
        assert!(svg.starts_with("<svg") && (svg.contains("thesis") || svg.contains("paper")));
    }
    assert!(dir.path().join("locality.sweep.toml").is_file());
    // One mechanism at a time: every one in which the presets differ, on the headline
    // columns, with its configuration file.
    let attribute = |extra: &[&str]| {
        let mut args = vec![
            "repro",
            "locality",
            "--size",
            "small",
            "--only",
            "locality_col",
        ];
        args.extend(["--attribute", "--out", out, "--json"]);
        args.extend(extra);
        gpusched(&args)
    };
    let o = attribute(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let switched: Vec<&str> = doc["attribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["mechanism"].as_str().unwrap())
        .collect();
    // Eight mechanisms, switched on each preset to the other's.
    assert_eq!(switched.len(), 16, "{switched:?}");
    assert!(switched.contains(&"l2-sectors") && switched.contains(&"dram-queue"));
    for f in ["gtx480-3.2.2+l2-sectors.toml", "gtx480+l2-sectors.toml"] {
        assert!(dir.path().join("attribution").join(f).is_file(), "{f}");
    }
    let md = std::fs::read_to_string(dir.path().join("locality.md")).unwrap();
    assert!(
        md.contains("## One mechanism at a time") && md.contains("mechanisms alone"),
        "{md}"
    );
    // `--mechanisms`: only those named, each in both directions (the runs above, cached).
    let run = |mechanisms: &str| attribute(&["--mechanisms", mechanisms]);
    let o = run("l2-sectors");
    assert!(o.status.success(), "{}", text(&o));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let switched: Vec<(u64, &str)> = doc["attribution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["on"].as_u64().unwrap(), a["mechanism"].as_str().unwrap()))
        .collect();
    assert_eq!(switched, [(0, "l2-sectors"), (1, "l2-sectors")]);
    // A name in which the presets do not differ is refused before any run, naming those
    // they differ in; without --attribute the option is refused.
    let o = run("l2-magic");
    assert!(!o.status.success());
    let t = text(&o);
    assert!(
        t.contains("--mechanisms: `l2-magic` is not a mechanism in which `gtx480-3.2.2` and `gtx480` differ")
            && t.contains("dram-queue"),
        "{t}"
    );
    let o = gpusched(&["repro", "locality", "--mechanisms", "l2-sectors"]);
    assert!(!o.status.success() && text(&o).contains("--attribute"));
}

#[test]
fn repro_chimera_measures_violations_overheads_and_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "chimera",
        "--config",
        "gtx480",
        "--only",
        "chimera_imgvf,bp",
        "--out",
        out,
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let cols: Vec<&str> = v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(cols, ["switch_only", "drain_only", "flush_only", "chimera"]);
    assert_eq!(v["lat_limit"], 21000);
    let rows = v["task_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    // imgvf's blocks run about 26,000 cycles: every technique is asked for, draining them
    // takes longer than the limit at least once, and Chimera never violates it.
    let imgvf = &rows[0];
    assert_eq!(imgvf["benchmark"], "chimera_imgvf");
    let cells = imgvf["cells"].as_array().unwrap();
    for c in cells {
        assert!(c["requests"].as_u64().unwrap() >= 3, "{c}");
        assert!(c["effective"].as_u64().unwrap() < imgvf["ideal"].as_u64().unwrap());
    }
    assert!(cells[1]["violated"].as_u64().unwrap() >= 1, "{}", cells[1]);
    assert_eq!(cells[3]["violated"], 0, "{}", cells[3]);
    assert_eq!(v["pairs"].as_array().unwrap().len(), 1);
    assert_eq!(v["antt_improvement"].as_array().unwrap().len(), 4);
    for f in [
        "chimera.md",
        "chimera.json",
        "chimera.svg",
        "chimera-kernels.svg",
    ] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
}

#[test]
fn repro_maestro_compares_the_baselines_over_pairs_with_the_thesis_beside() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "maestro",
        "--config",
        "gtx980",
        "--size",
        "small",
        "--only",
        "bp,lud,nw",
        "--out",
        out,
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["config"], "gtx980");
    assert_eq!(
        column_names(&v),
        [
            "spatial",
            "smk",
            "smk_lrr",
            "smk_kernel_lrr",
            "maestro_gto",
            "maestro"
        ]
    );
    assert_eq!(v["pairs"].as_array().unwrap().len(), 3);
    let aggregates = v["aggregates"].as_array().unwrap();
    let cats: Vec<&str> = aggregates
        .iter()
        .map(|a| a["category"].as_str().unwrap())
        .collect();
    assert_eq!(cats, ["all", "COM/MEM", "MEM/MEM"]);
    for p in v["pairs"].as_array().unwrap() {
        for (a, s) in p["antt"]
            .as_array()
            .unwrap()
            .iter()
            .zip(p["stp"].as_array().unwrap())
        {
            let (a, s) = (a.as_f64().unwrap(), s.as_f64().unwrap());
            // Each kernel at most as fast as alone; two kernels give at most 2.
            assert!(a >= 0.99 && s <= 2.01 && s > 0.0, "{p}");
        }
    }
    let frag = v["fragmentation"].as_array().unwrap();
    assert_eq!(frag.len(), 3);
    for f in frag {
        let series: f64 = f["series"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .sum();
        assert!(series >= 0.0 && f["cycles"].as_u64().unwrap() > 0, "{f}");
    }
    for f in [
        "maestro.md",
        "maestro.json",
        "maestro.svg",
        "maestro-fragmentation.svg",
        "maestro-pairs.svg",
    ] {
        let text = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert!(!text.is_empty(), "{f}");
    }
    let md = std::fs::read_to_string(dir.path().join("maestro.md")).unwrap();
    assert!(
        md.contains("| thesis (231) | STP improvement, % | 20.7 | 27.3 |"),
        "{md}"
    );
    let e = gpusched(&["repro", "maestro", "--only", "bp", "--out", out]);
    assert!(
        !e.status.success() && text(&e).contains("a pair needs two benchmarks"),
        "{}",
        text(&e)
    );
    let e = gpusched(&["repro", "maestro", "--only", "bp,nope", "--out", out]);
    assert!(
        text(&e).contains("unknown benchmark `nope`"),
        "{}",
        text(&e)
    );
}

#[test]
fn repro_elf_writes_the_table_the_json_and_the_chart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "repro",
        "elf",
        "--size",
        "small",
        "--only",
        "stream,lbm",
        "--config",
        "gtx480",
        "--out",
        out,
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        column_names(&v),
        [
            "gto",
            "two_level",
            "newcar",
            "iprefetch",
            "elf",
            "elf++",
            "elf++_consistent",
            "elf++_merge_ge",
            "gto_sequential"
        ]
    );
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
    assert_eq!(v["rows"][0]["cells"][0]["speedup"], 1.0);
    assert_eq!(v["columns"][5]["thesis"], 11.9);
    assert_eq!(
        (
            v["columns"][0]["issue"].as_str(),
            v["columns"][5]["issue"].as_str(),
            v["columns"][8]["issue"].as_str()
        ),
        (Some("paired"), Some("paired"), Some("sequential"))
    );
    assert_eq!(v["columns"][6]["recalc"], "consistent");
    assert_eq!(
        (
            v["columns"][5]["merge"].as_str(),
            v["columns"][7]["merge"].as_str()
        ),
        (Some(">"), Some(">="))
    );
    // lbm gains over +50% under NewCAR: an outlier, with the geomeans without it (stream's).
    assert_eq!(v["outliers"][0]["workload"], "lbm");
    assert_eq!(
        v["geomean_without_outliers"],
        v["outliers"][0]["geomean_without"]
    );
    assert_eq!(
        v["geomean_without_outliers"][2],
        v["rows"][0]["cells"][2]["speedup"]
    );
    let md = std::fs::read_to_string(dir.path().join("elf.md")).unwrap();
    assert!(
        md.contains("| lbm |")
            && md.contains("*+11.9%*")
            && md.contains("geomean")
            && md.contains("*geomean without lbm*")
            && md.contains("| ELF++ | paired | elf | literal | > |"),
        "{md}"
    );
    let svg = std::fs::read_to_string(dir.path().join("elf.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("GEOMEAN") && svg.contains("THESIS"));
    let again = gpusched(&[
        "repro",
        "elf",
        "--size",
        "small",
        "--only",
        "stream,lbm",
        "--config",
        "gtx480",
        "--out",
        out,
        "--json",
        "-j",
        "1",
    ]);
    assert_eq!(
        o.stdout, again.stdout,
        "deterministic whatever the job count"
    );
    let o = gpusched(&["repro", "elf", "--only", "nbody", "--out", out]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("unknown workload `nbody`"),
        "{}",
        text(&o)
    );
}

#[test]
fn bench_prints_the_documented_figures() {
    let v = json(&gpusched(&["bench", "--repeat", "1", "--json"]));
    for k in ["thread_instructions_per_s", "cycles_per_s", "peak_rss_mb"] {
        assert!(v[k].as_f64().unwrap() > 0.0, "{k} in {v}");
    }
    assert!(v["workloads"][0]["thread_instructions"].as_u64().unwrap() >= 30_000_000);
    let w = v["workloads"].as_array().unwrap();
    let mm = w
        .iter()
        .find(|r| r["workload"] == "mm-medium (trace)")
        .unwrap_or_else(|| panic!("mm medium in {v}"));
    assert!(mm["parse_seconds"].as_f64().unwrap() > 0.0, "{mm}");
    assert!(mm["parse_share"].as_f64().unwrap() > 0.0, "{mm}");
    assert!(
        w[0]["parse_seconds"].is_null(),
        "a built-in kernel has no reader"
    );
}

/// `bench --paver`: the JIT rows of every `repro paver` kernel and the 10^5-block kernel, and
/// the dispatcher's runs under LRR, MST-TS and RB-TS.
#[test]
fn bench_paver_times_the_jit_and_the_dispatcher() {
    let v = json(&gpusched(&[
        "bench", "--paver", "--size", "small", "--repeat", "1", "--json",
    ]));
    let jit = v["jit"].as_array().unwrap();
    assert_eq!(
        jit.len(),
        16,
        "15 kernels of repro paver and the scale kernel: {v}"
    );
    let scale = jit.last().unwrap();
    assert_eq!(scale["blocks"], 100_000, "{scale}");
    assert!(
        scale["edges"].as_u64().unwrap() >= 99_999,
        "a chain: {scale}"
    );
    for r in jit {
        assert!(r["build_seconds"].as_f64().unwrap() > 0.0, "{r}");
        let worst = r["worst_jit_seconds"].as_f64().unwrap();
        assert!(worst >= r["build_seconds"].as_f64().unwrap(), "{r}");
    }
    let d = v["dispatch"].as_array().unwrap();
    assert_eq!(d.len(), 3, "{v}");
    for row in d {
        let runs = row["runs"].as_array().unwrap();
        let scheds: Vec<&str> = runs
            .iter()
            .map(|r| r["tb_sched"].as_str().unwrap())
            .collect();
        assert_eq!(scheds, ["lrr", "mst-ts", "rb-ts"], "{row}");
        assert!(
            runs.iter().all(|r| r["cycles"].as_u64().unwrap() > 0),
            "{row}"
        );
        assert_eq!(runs[0]["jit_seconds"], 0.0, "{row}");
    }
}

/// `bench --mix`: the mix under smk and serial and each kernel alone; the mix's thread
/// instructions are its kernels' together, and its ratio is its rate over theirs.
#[test]
fn bench_mix_sets_the_mix_beside_its_kernels_alone() {
    let v = json(&gpusched(&[
        "bench",
        "--mix",
        "mixes/two_streams.toml",
        "--repeat",
        "1",
        "--json",
    ]));
    let runs = v["runs"].as_array().unwrap();
    let names: Vec<&str> = runs.iter().map(|r| r["run"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "mix (smk)",
            "mix (serial)",
            "mm small alone",
            "chimera_bs small alone"
        ],
        "{v}"
    );
    let insts = |r: &serde_json::Value| r["thread_instructions"].as_u64().unwrap();
    assert_eq!(insts(&runs[0]), insts(&runs[2]) + insts(&runs[3]), "{v}");
    assert_eq!(insts(&runs[1]), insts(&runs[0]), "{v}");
    let alone = v["alone_thread_instructions_per_s"].as_f64().unwrap();
    let ratio = v["ratio"][0][1].as_f64().unwrap();
    let rate = runs[0]["thread_instructions_per_s"].as_f64().unwrap();
    assert!((ratio - rate / alone).abs() < 1e-9, "{v}");
    let o = gpusched(&["bench", "--mix", "/no/such/mix.toml"]);
    assert!(!o.status.success());
    says(&o, "/no/such/mix.toml");
}

#[test]
fn bench_parse_reads_a_trace_and_counts_its_instructions() {
    let dir = tempfile::tempdir().unwrap();
    let t = export_nn_small(&dir.path().join("nn"));
    let info = json(&gpusched(&["trace", "info", t.to_str().unwrap(), "--json"]));
    let v = json(&gpusched(&[
        "bench",
        "--parse",
        "--trace",
        t.to_str().unwrap(),
        "--repeat",
        "1",
        "--xz",
        "--json",
    ]));
    assert_eq!(
        v["warp_instructions"], info["kernels"][0]["warp_instructions"],
        "{v}\n{info}"
    );
    assert!(v["mb_per_s"].as_f64().unwrap() > 0.0, "{v}");
    // The xz copy holds the same text and instructions.
    assert_eq!(v["xz"]["bytes"], v["bytes"], "{v}");
    assert_eq!(v["xz"]["warp_instructions"], v["warp_instructions"], "{v}");
    assert!(v["xz_seconds_over_plain"].as_f64().unwrap() > 0.0, "{v}");
    let o = gpusched(&["bench", "--parse", "--trace", "/no/such/trace"]);
    assert!(!o.status.success());
    says(&o, "/no/such/trace");
}

/// A reference set of one trace (exported `nn` small, packed as the reference packs its
/// traces) with `records` in its `results.json`, in `dir/reference`; our `sim --json` report of
/// the trace under GTO.
fn reference_set(
    dir: &Path,
    records: serde_json::Value,
) -> (std::path::PathBuf, serde_json::Value) {
    let t = export_nn_small(&dir.join("nn-small"));
    let sim = json(&gpusched(&[
        "sim",
        "--trace",
        t.to_str().unwrap(),
        "--config",
        "gtx480",
        "--warp-sched",
        "gto",
        "--json",
    ]));
    let r = dir.join("reference");
    std::fs::create_dir_all(r.join("traces")).unwrap();
    let tar = Command::new("tar")
        .arg("-cJf")
        .arg(r.join("traces/nn-small.tar.xz"))
        .arg("-C")
        .arg(&t)
        .args(["kernelslist.g", "kernel-1.traceg"])
        .status()
        .expect("tar runs");
    assert!(tar.success());
    std::fs::write(r.join("results.json"), records.to_string()).unwrap();
    (r, sim)
}

/// `calibrate` sets our cycles and counters beside the reference's, in the reference's units
/// converted (sectors to lines, 32 B reads to bytes), and ranks the schedulers.
#[test]
fn calibrate_sets_our_counters_beside_the_reference_in_one_unit() {
    let dir = tempfile::tempdir().unwrap();
    let rec = |sched: &str, cycles: u64| {
        serde_json::json!({
            "workload": "nn", "size": "small", "scheduler": sched, "gpusched_warp_sched": sched,
            "accelsim": {"gpu_sim_cycle": cycles, "gpgpu_n_tot_w_icount": 2880,
                "L2_total_cache_accesses": 4000, "dram_n_rd_sum": 100,
                "l1_breakdown_nonzero": {"GLOBAL_ACC_R.MISS": 480},
                "l2_breakdown_nonzero": {"GLOBAL_ACC_R.MISS": 470, "INST_ACC_R.MISS": 3,
                    "GLOBAL_ACC_R.SECTOR_MISS": 1410}},
        })
    };
    let records = serde_json::json!([rec("gto", 2000), rec("lrr", 1000)]);
    let (r, sim) = reference_set(dir.path(), records);
    let v = json(&gpusched(&[
        "calibrate",
        "--reference",
        r.to_str().unwrap(),
        "--json",
    ]));
    let run = &v["runs"][0];
    assert_eq!(
        (run["trace"].as_str(), run["scheduler"].as_str()),
        (Some("nn-small"), Some("gto"))
    );
    assert_eq!(run["cycles"], sim["cycles"], "{run}");
    let c = sim["cycles"].as_f64().unwrap();
    assert!(
        (run["error"].as_f64().unwrap() - (c / 2000.0 - 1.0)).abs() < 1e-12,
        "{run}"
    );
    assert_eq!(
        run["warp_instructions"]["ours"],
        sim["warp_instructions"].as_f64().unwrap()
    );
    assert_eq!(run["l2_sector_accesses"]["reference"], 4000.0, "sectors");
    assert_eq!(
        run["l2_sector_accesses"]["ours"],
        sim["l2"]["sector_accesses"].as_f64().unwrap()
    );
    assert_eq!(run["dram_read_bytes"]["reference"], 3200.0, "32 B reads");
    assert_eq!(
        run["dram_read_bytes"]["ours"],
        sim["dram"]["read_bytes"].as_f64().unwrap()
    );
    assert_eq!(run["l1d_read_misses"]["reference"], 480.0);
    assert_eq!(
        run["l1d_read_misses"]["ours"],
        sim["l1d"]["sector_read_misses"].as_f64().unwrap()
    );
    assert_eq!(
        run["l2_read_misses"]["reference"], 1883.0,
        "read MISS + SECTOR_MISS"
    );
    assert_eq!(
        run["l2_read_misses"]["ours"],
        sim["l2"]["sector_read_misses"].as_f64().unwrap()
    );
    assert_eq!(v["config"], "gtx480", "no config/ in the reference set");
    // LRR at 1000 reference cycles is the reference's fastest.
    let k = &v["rankings"][0];
    assert_eq!(k["reference"], "L<G", "{k}");
    assert_eq!(k["reference_spread_over_3pct"], true);
    assert_eq!(v["fastest_compared"], 1);
    let md = gpusched(&["calibrate", "--reference", r.to_str().unwrap()]);
    assert!(md.status.success(), "{}", text(&md));
    says(&md, "| nn-small | gto |");
    says(&md, "same fastest scheduler on");
    // A reference set with its simulator's configuration runs that configuration: the
    // GPGPU-Sim file, then its trace.config or else Accel-Sim's trace-mode defaults.
    let cfg = r.join("config");
    std::fs::create_dir(&cfg).unwrap();
    std::fs::write(cfg.join("gpgpusim.config"), "-gpgpu_smem_latency 30\n").unwrap();
    let v = json(&gpusched(&[
        "calibrate",
        "--reference",
        r.to_str().unwrap(),
        "--json",
    ]));
    let label = v["config"].as_str().unwrap();
    assert!(
        label.ends_with("gpgpusim.config,accelsim-trace-defaults.config"),
        "{label}"
    );
    std::fs::write(
        cfg.join("trace.config"),
        "-trace_opcode_latency_initiation_sfu 30,30\n",
    )
    .unwrap();
    let with_trace = json(&gpusched(&[
        "calibrate",
        "--reference",
        r.to_str().unwrap(),
        "--json",
    ]));
    assert!(with_trace["config"]
        .as_str()
        .unwrap()
        .ends_with("config/trace.config"));
    // nn's MUFU waits 30 cycles instead of 4.
    assert!(
        with_trace["runs"][0]["cycles"].as_u64() > v["runs"][0]["cycles"].as_u64(),
        "{} vs {}",
        with_trace["runs"][0],
        v["runs"][0]
    );
    // A record without the reference's cycles is an error naming it.
    let bad = serde_json::json!([{"workload": "nn", "size": "small", "scheduler": "gto",
        "gpusched_warp_sched": "gto", "accelsim": {}}]);
    std::fs::write(r.join("results.json"), bad.to_string()).unwrap();
    let o = gpusched(&["calibrate", "--reference", r.to_str().unwrap()]);
    assert!(!o.status.success());
    says(&o, "nn-small gto: no number `accelsim.gpu_sim_cycle`");
}

/// On the shipped Accel-Sim reference set (150 runs), with the configuration Accel-Sim ran:
/// the calibration targets hold, and the calibration page states the figures measured now.
#[test]
fn calibrate_meets_its_targets_on_the_shipped_reference_set() {
    let r = gpusim::testing::shared_dir().join("reference/accelsim");
    if !gpusim::testing::available(
        "reference",
        r.join("results.json").is_file(),
        "no Accel-Sim reference set in ../shared/reference/accelsim",
    ) {
        return;
    }
    let v = json(&gpusched(&[
        "calibrate",
        "--reference",
        r.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(check_calibration_targets(&v, 3), [150, 150, 150]);
    check_the_calibration_page(&v);
}

/// On the Pascal and Volta reference sets kept in `reference/` (each trace exported again and
/// checked against its recorded digest), issue 60's targets: every run within 20%, mean
/// |error| at most 8%, the same fastest scheduler on at least 80% of the traces where
/// Accel-Sim's schedulers differ by more than 3%, L1D and L2 read misses and DRAM bytes read
/// within 10% on every run.
#[test]
fn calibrate_meets_its_targets_on_the_pascal_and_volta_sets() {
    // Pascal's global loads skip the L1D: no L1D read misses on either side.
    for (set, counted) in [
        ("reference/SM6_TITANX", [0, 150, 150]),
        ("reference/SM7_QV100", [150, 150, 150]),
    ] {
        let r = Path::new(env!("CARGO_MANIFEST_DIR")).join(set);
        let v = json(&gpusched(&[
            "calibrate",
            "--reference",
            r.to_str().unwrap(),
            "--json",
        ]));
        assert_eq!(check_calibration_targets(&v, 4), counted, "{set}");
    }
}

/// The calibration targets on `calibrate --json`'s `v` (150 runs); the fastest scheduler the
/// same on at least `num` / `num + 1` of the traces compared (3/4 for the GTX 480 set's
/// documented 15 of 19, 4/5 for issue 60's 80%). Returns how many runs had each of the L1D,
/// L2 and DRAM counters on both sides (each checked within 10%).
fn check_calibration_targets(v: &serde_json::Value, num: u64) -> [usize; 3] {
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 150);
    for run in runs {
        let w = &run["warp_instructions"];
        assert_eq!(w["ours"], w["reference"], "{run}");
        assert!(run["error"].as_f64().unwrap().abs() <= 0.20, "{run}");
    }
    let mean = v["mean_abs_error"].as_f64().unwrap();
    assert!(mean <= 0.08, "mean |error| {mean}");
    let (agree, compared) = (
        v["fastest_agree"].as_u64().unwrap(),
        v["fastest_compared"].as_u64().unwrap(),
    );
    assert!((num + 1) * agree >= num * compared, "{agree} of {compared}");
    // L1D and L2 read misses and DRAM bytes read within 10% on every run where both sides
    // count them (global loads that skip the L1D leave its column empty).
    let mut counted = [0; 3];
    for run in runs {
        for (k, counter) in ["l1d_read_misses", "l2_read_misses", "dram_read_bytes"]
            .into_iter()
            .enumerate()
        {
            let p = &run[counter];
            let (Some(o), Some(r)) = (p["ours"].as_f64(), p["reference"].as_f64()) else {
                continue;
            };
            assert!((o - r).abs() <= 0.1 * r, "{counter}: {run}");
            counted[k] += 1;
        }
    }
    counted
}

/// Checks that the calibration page's "now" column states what `calibrate --json` (`v`, the
/// whole shipped reference set) measured: mean and median error, worst run, fastest-scheduler
/// agreement, the counters within 10% with their mean and worst relative error.
fn check_the_calibration_page(v: &serde_json::Value) {
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/calibration-against-accel-sim.md"
    ))
    .unwrap();
    let runs = v["runs"].as_array().unwrap();
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let worst = runs
        .iter()
        .map(|r| r["error"].as_f64().unwrap().abs())
        .fold(0.0, f64::max);
    let mut stated = vec![
        format!(
            "**{}** (median {})",
            pct(v["mean_abs_error"].as_f64().unwrap()),
            pct(v["median_abs_error"].as_f64().unwrap())
        ),
        format!("| worst run | <= 20% | **{}**", pct(worst)),
        format!(
            "**{} of {}** traces",
            v["fastest_agree"], v["fastest_compared"]
        ),
    ];
    // Relative error of a counter per run (runs whose reference lacks it are left out).
    let errors = |k: &str| -> Vec<f64> {
        runs.iter()
            .filter_map(|r| {
                let (o, f) = (r[k]["ours"].as_f64()?, r[k]["reference"].as_f64()?);
                Some(if f == 0.0 { 0.0 } else { (o - f).abs() / f })
            })
            .collect()
    };
    let l1d = errors("l1d_read_misses");
    let within = |e: &[f64]| e.iter().filter(|x| **x <= 0.1).count();
    stated.push(format!(
        "**{} of {}** (mean {}, worst {}",
        within(&l1d),
        runs.len(),
        pct(l1d.iter().sum::<f64>() / l1d.len() as f64),
        pct(l1d.iter().copied().fold(0.0, f64::max))
    ));
    let (l2, dram) = (errors("l2_read_misses"), errors("dram_read_bytes"));
    let both = l2
        .iter()
        .zip(&dram)
        .filter(|(a, b)| **a <= 0.1 && **b <= 0.1)
        .count();
    let worst_l2_dram = l2.iter().chain(&dram).copied().fold(0.0, f64::max);
    stated.push(format!(
        "| L2 read misses, DRAM bytes read within 10% | all | **{both} of {}** (mean {}, worst {}",
        runs.len(),
        pct(l2.iter().chain(&dram).sum::<f64>() / (l2.len() + dram.len()) as f64),
        pct(worst_l2_dram)
    ));
    for s in stated {
        assert!(
            page.contains(&s),
            "calibration-against-accel-sim.md does not say `{s}` (what calibrate measures now)"
        );
    }
}

/// An executable shell script `dir/name` running `body`: a stand-in for a local Accel-Sim.
fn stand_in(dir: &Path, name: &str, body: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    let mut perm = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&p, perm).unwrap();
    p
}

/// `reference record` runs a stand-in Accel-Sim on an exported suite trace under the three
/// schedulers and keeps its statistics with the trace's digest; it resumes without running
/// again; `calibrate` exports the trace again, and refuses it when the digest differs.
#[test]
fn reference_record_makes_a_set_that_calibrate_exports_again() {
    let dir = tempfile::tempdir().unwrap();
    let t = export_nn_small(&dir.path().join("nn-small"));
    let info = json(&gpusched(&["trace", "info", t.to_str().unwrap(), "--json"]));
    let warps = info["kernels"][0]["warp_instructions"].as_u64().unwrap();
    let gpu = dir.path().join("cfg/GPU1");
    std::fs::create_dir_all(&gpu).unwrap();
    let cfg = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/gtx480.gpgpusim.config"),
    )
    .unwrap();
    let cfg = cfg + "-inter_config_file net.icnt\n";
    std::fs::write(gpu.join("gpgpusim.config"), &cfg).unwrap();
    std::fs::write(gpu.join("net.icnt"), "// interconnect\n").unwrap();
    std::fs::write(gpu.join("power.xml"), "<power/>\n").unwrap();
    let trace_config = dir.path().join("my-trace.config");
    std::fs::write(&trace_config, "-trace_opcode_latency_initiation_int 4,1\n").unwrap();
    let accel = stand_in(
        dir.path(),
        "accel.sh",
        &format!(
            r#"test "$1 $3 $4 $5 $6 $7" = "-trace -config gpgpusim.config -config trace.config -gpgpu_scheduler" || exit 3
test -f "$2" && test -f net.icnt || exit 4
echo "GPGPU-Sim uArch: Shader 0 exit detected"
echo "gpu_sim_cycle = 1000"
echo "gpgpu_n_tot_w_icount = {warps}"
echo "	L2_cache_stats_breakdown[GLOBAL_ACC_R][MISS] = 5"
echo "DRAM[0]: 16 bks, busW=4 BL=8 CL=12,"
echo "n_cmd=9 n_nop=1 n_act=2 n_pre=0 n_ref_event=0 n_req=4 n_rd=3 n_rd_L2_A=0 n_write=1 n_wr_bk=0 bw_util=0.1""#
        ),
    );
    let out = dir.path().join("ref");
    let record = |bin: &Path, config: &Path| {
        gpusched(&[
            "reference",
            "record",
            "--accel-sim",
            bin.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
            "--trace-config",
            trace_config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--only",
            "nn-small",
        ])
    };
    let o = record(&accel, &gpu.join("gpgpusim.config"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let scheds: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["gpusched_warp_sched"].as_str().unwrap())
        .collect();
    assert_eq!(scheds, ["lrr", "gto", "two-level"], "{results}");
    let r0 = &results[0];
    assert_eq!(r0["config"], "GPU1");
    assert_eq!(r0["trace_binary_version"], 61);
    assert_eq!(r0["trace_sha256"].as_str().unwrap().len(), 64, "{r0}");
    assert_eq!(r0["accelsim"]["gpu_sim_cycle"], 1000);
    assert_eq!(r0["accelsim"]["dram_n_rd_sum"], 3);
    assert_eq!(
        r0["accelsim"]["l2_breakdown_nonzero"]["GLOBAL_ACC_R.MISS"],
        5
    );
    assert_eq!(r0["accelsim"]["completed"], true);
    for f in ["gpgpusim.config", "net.icnt", "trace.config"] {
        assert!(out.join("config").join(f).is_file(), "config/{f}");
    }
    assert!(
        !out.join("config/power.xml").exists(),
        "a file the config does not name"
    );
    // Resumed: every run is recorded, so a failing Accel-Sim is not run.
    let failing = stand_in(dir.path(), "failing.sh", "exit 7");
    let o = record(&failing, &gpu.join("gpgpusim.config"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // calibrate exports the trace again and checks it.
    let v = json(&gpusched(&[
        "calibrate",
        "--reference",
        out.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["runs"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(v["runs"][0]["reference_cycles"], 1000, "{v}");
    // A digest that differs: the kernel changed since the reference ran.
    let tampered = std::fs::read_to_string(out.join("results.json"))
        .unwrap()
        .replace(r0["trace_sha256"].as_str().unwrap(), &"0".repeat(64));
    std::fs::write(out.join("results.json"), tampered).unwrap();
    let o = gpusched(&["calibrate", "--reference", out.to_str().unwrap()]);
    assert!(!o.status.success());
    says(&o, "the suite kernel changed since the reference ran");
    // Another configuration into the same set.
    std::fs::write(gpu.join("gpgpusim.config"), cfg + "-gpgpu_n_clusters 14\n").unwrap();
    let o = record(&accel, &gpu.join("gpgpusim.config"));
    assert!(!o.status.success());
    says(&o, "recorded with another configuration");
}

/// A reference set of one trace and one record: `bench --reference` runs it and sets our
/// figures beside it.
#[test]
fn bench_reference_compares_whole_runs_with_the_reference_figures() {
    let dir = tempfile::tempdir().unwrap();
    let record = serde_json::json!([{
        "workload": "nn", "size": "small", "scheduler": "gto", "gpusched_warp_sched": "gto",
        "accelsim": {"wall_s": 100.0, "max_rss_mb": 1000.0, "gpu_sim_cycle": 1234},
    }]);
    let (r, sim) = reference_set(dir.path(), record);
    let v = json(&gpusched(&[
        "bench",
        "--reference",
        r.to_str().unwrap(),
        "--repeat",
        "2",
        "--json",
    ]));
    let run = &v["runs"][0];
    assert_eq!(run["trace"], "nn-small", "{v}");
    assert_eq!(run["cycles"], sim["cycles"], "{v}");
    assert_eq!(run["reference_cycles"], 1234);
    let (wall, speed) = (
        run["wall_s"].as_f64().unwrap(),
        run["speed_ratio"].as_f64().unwrap(),
    );
    assert!(wall > 0.0 && (speed * wall - 100.0).abs() < 1e-6, "{run}");
    assert!(run["rss_mb"].as_f64().unwrap() > 1.0, "{run}");
    assert_eq!(v["speed_met"], 1, "100 s against a short run: {v}");
    assert_eq!(v["reference_times"], "recorded", "{v}");
    // Side by side with a stand-in for a local Accel-Sim: it is run in a copy of its
    // configuration's directory with the record's scheduler, its cycles are read and checked
    // against the record's.
    std::fs::create_dir_all(r.join("config")).unwrap();
    std::fs::write(r.join("config/gpgpusim.config"), "-gpgpu_n_clusters 15\n").unwrap();
    let fake = |name: &str, body: &str| stand_in(dir.path(), name, body);
    let checks = r#"test "$1 $3 $5 $6" = "-trace -config -gpgpu_scheduler gto" || exit 3
test -f "$2" && test -f "$4" || exit 4"#;
    let same = fake("same.sh", &format!("{checks}\necho 'gpu_sim_cycle = 1234'"));
    let other = fake("other.sh", &format!("{checks}\necho 'gpu_sim_cycle = 99'"));
    let silent = fake("silent.sh", "echo 'unsupported binary version: 20'");
    let side = |bin: &Path, format: &str| {
        gpusched(&[
            "bench",
            "--reference",
            r.to_str().unwrap(),
            "--repeat",
            "2",
            "--accel-sim",
            bin.to_str().unwrap(),
            format,
        ])
    };
    let v = json(&side(&same, "--json"));
    let run = &v["runs"][0];
    assert_eq!(v["reference_times"], "measured", "{v}");
    assert_eq!(v["reference_cycles_differ"], 0, "{v}");
    assert_eq!(run["reference_cycles"], 1234, "{v}");
    assert_eq!(run["reference_cycles_match_record"], true, "{v}");
    let wall = run["reference_wall_s"].as_f64().unwrap();
    assert!(
        wall > 0.0 && wall < 10.0,
        "the stand-in's own wall time: {run}"
    );
    let md = text(&side(&same, "--markdown"));
    assert!(md.contains("| nn-small | gto | "), "{md}");
    assert!(md.contains("| 1234 / "), "{md}");
    assert!(md.contains("Accel-Sim measured on this machine"), "{md}");
    let v = json(&side(&other, "--json"));
    assert_eq!(v["reference_cycles_differ"], 1, "{v}");
    assert_eq!(v["runs"][0]["reference_cycles_match_record"], false, "{v}");
    let o = side(&silent, "--json");
    assert!(!o.status.success());
    says(&o, "printed no `gpu_sim_cycle = N` line");
    // Bad input: no results.json, a record without its archive.
    let o = gpusched(&["bench", "--reference", "/no/such/reference"]);
    assert!(!o.status.success());
    says(&o, "/no/such/reference/results.json");
    std::fs::remove_file(r.join("traces/nn-small.tar.xz")).unwrap();
    let o = gpusched(&["bench", "--reference", r.to_str().unwrap()]);
    assert!(!o.status.success());
    says(&o, "nn-small.tar.xz: no such trace archive");
}

/// `bench --lockstep`: each case's block set in lockstep inside the GPU (the locality blocks
/// included), with the golden run's statistics.
#[test]
fn bench_lockstep_measures_every_case_with_identical_statistics() {
    if !verilator_built() {
        return;
    }
    let v = json(&gpusched(&[
        "bench",
        "--lockstep",
        "--repeat",
        "1",
        "--rtl-threads",
        "2",
        "--json",
    ]));
    assert_eq!(v["rtl_threads"], 2, "{v}");
    let cases = v["cases"].as_array().unwrap();
    let names: Vec<&str> = cases.iter().map(|c| c["case"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "gto",
            "elf++",
            "la-tb",
            "la-tb serial",
            "laws",
            "laws scan",
            "la-tb+laws"
        ],
        "{v}"
    );
    assert_eq!(cases[6]["blocks"], "la_tb_dispatch,locality_degree");
    assert_eq!(cases[6]["workload"], "locality_col small");
    for c in cases {
        assert_eq!(c["identical"], true, "{c}");
        assert!(c["cycles"].as_u64().unwrap() > 10_000, "{c}");
        let (g, l) = (
            c["golden_seconds"].as_f64().unwrap(),
            c["lockstep_seconds"].as_f64().unwrap(),
        );
        assert!(g > 0.0 && l > 0.0, "{c}");
        assert!((c["ratio"].as_f64().unwrap() - l / g).abs() < 1e-9, "{c}");
    }
}

/// `regress` with its lockstep stages only (`--no-gates`: the Verilog gates are gen's own test,
/// `every_emitted_module_is_lint_and_synth_clean`, and take minutes).
#[test]
fn regress_runs_the_gpu_lockstep_stage() {
    let v = json(&gpusched(&[
        "regress",
        "--cycles",
        "2000",
        "--gpu-size",
        "small",
        "--no-gates",
        "--json",
    ]));
    assert_eq!(v["pass"], true, "{v}");
    assert_eq!(v["gates"], serde_json::json!([]), "--no-gates: {v}");
    // Every module again under X randomisation, three seeds, as many cycles as `--cycles`.
    let x = v["x_random"].as_array().unwrap();
    assert_eq!(x.len(), 3 * v["lockstep"].as_array().unwrap().len(), "{v}");
    assert!(
        x.iter()
            .all(|r| r["verdict"] == "pass" && r["mismatches"] == 0 && r["cycles"] == 2000),
        "{v}"
    );
    let rows = v["gpu_lockstep"].as_array().unwrap();
    let kernels = rows
        .iter()
        .filter(|r| r["workload"] == "stream_small" || r["workload"] == "compute_small")
        .count();
    // The runs are what the policies' registry entries declare (`PolicyEntry::regress`).
    let declared = gpusim::policy::regress_runs();
    let on = |o: RegressOn| declared.iter().filter(|r| r.on == o).count();
    assert_eq!(
        kernels,
        2 * on(RegressOn::Kernels),
        "two kernels x every declared run on the kernels: {v}"
    );
    assert_eq!(
        kernels, 20,
        "two kernels x (four arbiter policies + elf++ + paws at one and two levels (two \
         orders) + PAVER with and without stealing): {v}"
    );
    let mut chimera: Vec<_> = rows
        .iter()
        .filter(|r| r["workload"] == "two_streams")
        .map(|r| r["warp_sched"].as_str().unwrap())
        .collect();
    chimera.sort_unstable();
    assert_eq!(chimera.len(), on(RegressOn::TwoStreams), "{v}");
    assert_eq!(
        chimera,
        [
            "gto+chimera(21000)",
            "gto+drain_only(21000)",
            "gto+flush_only(21000)",
            "gto+maestro(switch)(epoch=10000)",
            "gto+smk+twoway",
            "gto+switch_only(21000)",
            "kernel_lrr+maestro(drain)(epoch=10000)"
        ],
        "the example mix under Chimera's schedulers, chimera_tb in every SM, and GPU \
         Maestro's allocator, twoway_alloc in every SM: {v}"
    );
    let workloads: std::collections::BTreeSet<_> = rows
        .iter()
        .map(|r| r["workload"].as_str())
        .filter(|w| *w != Some("two_streams"))
        .collect();
    let count = |p: &str| rows.iter().filter(|r| r["warp_sched"] == p).count();
    assert_eq!(
        count("elf++"),
        workloads.len(),
        "every workload also runs ELF++ with the ELF and NewCAR blocks: {v}"
    );
    assert_eq!(
        count("paws"),
        workloads.len(),
        "every workload also runs PAWS with its blocks: {v}"
    );
    assert_eq!(count("paws_tl"), workloads.len(), "and two-level PAWS: {v}");
    let traces = workloads
        .iter()
        .filter(|w| w.is_some_and(|w| w.contains('-')))
        .count();
    assert_eq!(count("laws"), traces, "LAWS on the real traces only: {v}");
    assert_eq!(
        count("gto+la_tb32"),
        traces,
        "the locality dispatcher on the real traces only: {v}"
    );
    for paver in ["gto+rb_ts", "gto+mst_ts"] {
        assert_eq!(
            count(paver),
            workloads.len(),
            "PAVER on every workload: {v}"
        );
    }
    let want = if gpusched_tb::rtl::VERILATOR_BUILT || gpusim::testing::required("rtl") {
        "pass"
    } else {
        "golden-only"
    };
    assert!(rows
        .iter()
        .all(|r| r["verdict"] == want && r["cycles"].as_u64() > Some(0)));
}

#[test]
fn workloads_json_lists_the_suite_with_sizes() {
    let v = json(&gpusched(&["workloads", "--json", "--size", "small"]));
    let rows = v.as_array().unwrap();
    assert!(rows.len() >= 30, "{} workloads", rows.len());
    for r in rows {
        for k in ["name", "mirrors", "pattern"] {
            assert!(r[k].as_str().is_some_and(|s| !s.is_empty()), "{k} in {r}");
        }
        let s = &r["sizes"]["small"];
        for k in [
            "blocks",
            "warps",
            "warp_instructions",
            "thread_instructions",
        ] {
            assert!(s[k].as_u64().unwrap() > 0, "{k} of {}", r["name"]);
        }
    }
    let names: Vec<&str> = rows.iter().map(|r| r["name"].as_str().unwrap()).collect();
    for want in [
        "hs",
        "lud",
        "nn",
        "bfs",
        "lbm",
        "mm",
        "htw",
        "syrk",
        "phase_msl",
        "bypass_mix",
        "chimera_imgvf",
    ] {
        assert!(names.contains(&want), "{want} missing");
    }
    let imgvf = rows.iter().find(|r| r["name"] == "chimera_imgvf").unwrap();
    assert_eq!(
        imgvf["sizes"]["small"]["context_bytes_per_block"],
        87 * 1024
    );
    assert_eq!(imgvf["sizes"]["small"]["blocks_per_sm_gtx480"], 1);
    assert_eq!(imgvf["idempotent"], false);
}

/// `gpusched trace export --workload WORKLOAD --out OUT` with `extra` arguments.
fn export_trace(workload: &str, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["trace", "export", "--workload", workload, "--out"];
    args.push(out.to_str().unwrap());
    args.extend_from_slice(extra);
    gpusched(&args)
}

/// `gpusched sim --json` of the trace `dir` (or of `--workload NAME` when `workload`), without
/// the workload's name.
fn sim_json(what: &str, workload: bool) -> serde_json::Value {
    let flag = if workload { "--workload" } else { "--trace" };
    let mut v = json(&gpusched(&["sim", flag, what, "--json"]));
    v["workload"] = serde_json::Value::Null;
    v
}

#[test]
fn an_exported_trace_simulates_like_the_workload_itself() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("spmv");
    let o = export_trace("spmv", &out, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let direct = sim_json("spmv", true);
    let traced = sim_json(out.to_str().unwrap(), false);
    assert_eq!(direct, traced);
    let o = export_trace("nope", &out, &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).contains("unknown workload `nope`"), "{}", text(&o));
    // For Accel-Sim: Pascal's binary version, the same instruction count.
    let pascal = dir.path().join("spmv61");
    let o = export_trace("spmv", &pascal, &["--binary-version", "61"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        !text(&o).contains("note: binary version 20"),
        "{}",
        text(&o)
    );
    let header = std::fs::read_to_string(pascal.join("kernel-1.traceg")).unwrap();
    assert!(header.contains("\n-binary version = 61\n"));
    let p = sim_json(pascal.to_str().unwrap(), false);
    assert_eq!(p["warp_instructions"], direct["warp_instructions"], "{p}");
    let o = export_trace("spmv", &pascal, &["--binary-version", "70"]);
    assert_eq!(o.status.code(), Some(2));
    says(&o, "binary version 70 is not one the export writes");
    // As Accel-Sim's tracer writes since 2025: xz, listed as such, simulated alike.
    let xz = dir.path().join("spmv-xz");
    let o = export_trace("spmv", &xz, &["--xz"]);
    assert!(o.status.success(), "{}", text(&o));
    says(&o, "MB as xz");
    let list = std::fs::read_to_string(xz.join("kernelslist.g")).unwrap();
    assert_eq!(list, "kernel-1.traceg.xz\n");
    assert_eq!(sim_json(xz.to_str().unwrap(), false), traced);
    let o = export_trace("spmv", &xz, &["--xz", "10"]);
    assert_eq!(o.status.code(), Some(2));
    says(&o, "10 is not in 0..=9");
}

#[test]
fn a_gpgpusim_config_file_runs_and_lists_what_it_ignores() {
    let cfg = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/gtx480.gpgpusim.config");
    // Without its address mapping (the preset keeps the model's own, which differs in the
    // DRAM banks only) the file is the gtx480 preset with GPGPU-Sim's MSHRs of sectors in its
    // `S:` L2 (the preset keeps the ELF thesis's 32 MSHRs of lines).
    let dir = tempfile::tempdir().unwrap();
    let unmapped = dir.path().join("unmapped.config");
    let sample = std::fs::read_to_string(&cfg).unwrap();
    let kept: Vec<&str> = sample
        .lines()
        .filter(|l| !l.starts_with("-gpgpu_mem_addr_mapping"))
        .collect();
    assert_eq!(kept.len() + 1, sample.lines().count());
    std::fs::write(&unmapped, kept.join("\n")).unwrap();
    let a = json(&gpusched(&[
        "sim",
        "--workload",
        "hs",
        "--config",
        unmapped.to_str().unwrap(),
        "--json",
    ]));
    let shown = gpusched(&["config", "show", "gtx480"]);
    let preset = String::from_utf8(shown.stdout).unwrap();
    let sectors = preset.replace("[l2]\n", "[l2]\nmshr_sectors = true\n");
    assert_ne!(sectors, preset);
    let toml = dir.path().join("gtx480-sector-mshrs.toml");
    std::fs::write(&toml, sectors).unwrap();
    let b = json(&gpusched(&[
        "sim",
        "--workload",
        "hs",
        "--config",
        toml.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(
        a["cycles"], b["cycles"],
        "same machine as the gtx480 preset with sector MSHRs"
    );
    let mapped = json(&gpusched(&[
        "sim",
        "--workload",
        "hs",
        "--config",
        cfg.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(mapped["warp_instructions"], b["warp_instructions"]);
    // One short note; `config check` lists each setting with its line and what the model does.
    let o = gpusched(&["config", "show", cfg.to_str().unwrap()]);
    says(
        &o,
        "4 GPGPU-Sim timing settings are not modelled, changing nothing here: \
         -gpgpu_cache:il1 allocation, -gpgpu_cache:dl1 write policy, -network_mode, \
         -gpgpu_dram_timing_opt CDLR; 3 options",
    );
    let o = gpusched(&["config", "check", cfg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o));
    says(
        &o,
        "gtx480.gpgpusim.config:40: -gpgpu_cache:il1 allocation f: not modelled (on miss)",
    );
    let v = json(&gpusched(&[
        "config",
        "check",
        cfg.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["unmodelled"][0]["line"], 40, "{v}");
    assert_eq!(v["inert"][0], "gpgpu_ptx_force_max_capability", "{v}");
    // A misspelled option is GPGPU-Sim's "Unknown Option", with the nearest name.
    let dir = tempfile::tempdir().unwrap();
    let typo = dir.path().join("typo.config");
    std::fs::write(&typo, "-gpgpu_n_clustres 15\n").unwrap();
    let o = gpusched(&["config", "check", typo.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    says(
        &o,
        "typo.config:1: unknown GPGPU-Sim option `-gpgpu_n_clustres`",
    );
    says(&o, "did you mean `-gpgpu_n_clusters`?");
    let bad = dir.path().join("bad.config");
    std::fs::write(&bad, "-gpgpu_n_mem 6\n-gpgpu_shader_cta lots\n").unwrap();
    let o = gpusched(&["sim", "--workload", "hs", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).contains(
            "bad.config:2: expected `-gpgpu_shader_cta <unsigned integer>`, found `lots`"
        ),
        "{}",
        text(&o)
    );
}

#[test]
fn the_generated_documentation_is_current_and_a_stale_page_is_named() {
    let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/docs");
    let o = gpusched(&["docs", "--check", "--dir", docs]);
    assert!(o.status.success(), "{}", text(&o));
    // A copy with one page edited and one page too many: both named.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().to_str().unwrap();
    assert!(gpusched(&["docs", "--dir", copy]).status.success());
    let sim = dir.path().join("man/gpusched-sim.1");
    std::fs::write(&sim, "stale").unwrap();
    std::fs::write(dir.path().join("man/gpusched-gone.1"), "").unwrap();
    // A block page edited and one of a block that is gone.
    let elf = dir.path().join("src/blocks/elf.md");
    let page = std::fs::read_to_string(&elf).unwrap();
    assert!(page.contains("| `elf_base_fermi` |"), "{page}");
    std::fs::write(&elf, page.replace("elf_base_fermi", "elf_base_ferm1")).unwrap();
    std::fs::write(dir.path().join("src/blocks/gone.md"), "").unwrap();
    // A results figure whose label runs off its canvas.
    std::fs::create_dir_all(dir.path().join("src/results")).unwrap();
    let cut = "<svg width=\"100\" height=\"50\">\n<text x=\"90\" y=\"20\" font-size=\"12\">\nlabel\n</text>\n</svg>\n";
    std::fs::write(dir.path().join("src/results/cut.svg"), cut).unwrap();
    let o = gpusched(&["docs", "--check", "--dir", copy]);
    assert!(!o.status.success());
    for name in [
        "gpusched-sim.1",
        "gpusched-gone.1",
        "blocks/elf.md",
        "blocks/gone.md",
        "results/cut.svg: `label`",
    ] {
        says(&o, name);
    }
    let o = gpusched(&["docs", "--dir", copy]);
    assert!(o.status.success() && !dir.path().join("man/gpusched-gone.1").exists());
    assert!(!dir.path().join("src/blocks/gone.md").exists());
    assert_eq!(std::fs::read_to_string(&elf).unwrap(), page);
}

#[test]
fn the_readme_lists_every_configuration_range() {
    let readme = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/src/configuration-ranges.md"
    ))
    .unwrap();
    for (field, lo, hi) in gpusim::config::RANGES {
        let row = format!("| `{field}` | {lo}..={hi} |");
        assert!(readme.contains(&row), "README lacks {row}");
    }
}

#[test]
fn lint_of_an_empty_manifest_is_an_error_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("manifest.json"),
        r#"{"generator": "gpusched", "modules": []}"#,
    )
    .unwrap();
    let o = gpusched(&["lint", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("lists no module"), "{}", text(&o));
}

#[test]
fn fpga_names_the_boards_and_rejects_an_unknown_module() {
    let o = gpusched(&["fpga", "--board", "de10", "--module", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    for b in ["icebreaker", "ulx3s", "arty"] {
        assert!(text(&o).contains(b), "{}", text(&o));
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let o = gpusched(&[
        "fpga",
        "--board",
        "icebreaker",
        "--module",
        "nope",
        "--out",
        out,
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no module `nope`"), "{}", text(&o));
}

#[test]
fn bridge_targets_run_cosim_and_one_gpu_site_and_bad_targets_say_what_is_expected() {
    let cosim = |target: &str| {
        gpusched(&[
            "cosim",
            "--block",
            "warp_arbiter",
            "--policy",
            "two_level",
            "--preset",
            "proto",
            "--cycles",
            "500",
            "--target",
            target,
            "--json",
        ])
    };
    for bad in ["tty", "uart:", "uart:/dev/ttyUSB0@fast"] {
        let o = cosim(bad);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", text(&o));
        assert!(text(&o).contains("uart:DEVICE[@BAUD]"), "{}", text(&o));
    }
    let o = cosim("uart:/nonexistent/tty");
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("/nonexistent/tty"), "{}", text(&o));
    let sim = |extra: &[&str]| {
        let mut a = vec!["sim", "--workload", "stream", "--size", "small"];
        a.extend(extra);
        gpusched(&a)
    };
    let o = sim(&["--lockstep", "warp_arbiter", "--target-site", "sm0_sched0"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("--target-site needs a bridge --target"),
        "{}",
        text(&o)
    );
    let o = sim(&[
        "--lockstep",
        "warp_arbiter,tb_dispatch",
        "--target",
        "uart-sim",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("exactly one --lockstep block"),
        "{}",
        text(&o)
    );
    if !verilator_built() {
        return;
    }
    let o = cosim("uart-sim");
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (v["cycles"].as_u64(), v["mismatches"].as_u64()),
        (Some(500), Some(0))
    );
    let o = sim(&[
        "--lockstep",
        "warp_arbiter",
        "--target",
        "uart-sim",
        "--target-site",
        "sm2_sched1",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("sm2_sched1 (warp_arbiter_gto_fermi) checked on uart-sim"),
        "{}",
        text(&o)
    );
    let o = sim(&[
        "--lockstep",
        "warp_arbiter",
        "--target",
        "uart-sim",
        "--target-site",
        "sm99_sched0",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("no such warp_arbiter site"),
        "{}",
        text(&o)
    );
}

/// `fpga --all` on a copy of rtl-out/ whose FPGA row for one module was deleted: only that
/// row is placed and routed again, the others are kept as they are, and the targets section is
/// rendered again from the rows; a stale row made with another seed is made again with it.
#[test]
fn fpga_all_reruns_only_the_rows_that_are_missing_or_stale_with_their_options() {
    let have = ["yosys", "nextpnr-ice40", "icepack"]
        .into_iter()
        .all(gpusched_gen::lint::tool_available);
    if !gpusim::testing::available(
        "fpga",
        have,
        "yosys, nextpnr-ice40 or icepack missing (apt-get install -y yosys nextpnr-ice40 fpga-icestorm)",
    ) {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl-out");
    let tmp = tempfile::tempdir().unwrap();
    let rtl = tmp.path().join("rtl-out");
    std::fs::create_dir_all(rtl.join("fpga")).unwrap();
    for sub in ["", "fpga"] {
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                std::fs::copy(&p, rtl.join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    let report = std::fs::read_to_string(rtl.join("REPORT.md")).unwrap();
    let row = |text: &str, m: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("| {m} | icebreaker |")))
            .map(String::from)
    };
    let kept = row(&report, "warp_arbiter_gto_proto").expect("committed row");
    let gone = row(&report, "warp_arbiter_lrr_proto").expect("committed row");
    // A stale cell in the targets section, which reads the FPGA rows: written again with them.
    let target = report
        .lines()
        .find(|l| l.starts_with("| newcar | "))
        .expect("newcar's targets row")
        .to_string();
    std::fs::write(
        rtl.join("REPORT.md"),
        report
            .replace(&format!("{gone}\n"), "")
            .replace(&target, "| newcar | - | - | **no** |"),
    )
    .unwrap();
    // `fpga --all --board icebreaker` on the copy, with `more` arguments.
    let all_on_copy = |more: &[&str]| {
        let work = tmp.path().join("work");
        let mut args = vec!["fpga", "--all", "--board", "icebreaker"];
        args.extend(more);
        args.extend([
            "--rtl",
            rtl.to_str().unwrap(),
            "--out",
            work.to_str().unwrap(),
        ]);
        gpusched(&args)
    };
    let o = all_on_copy(&[]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("warp_arbiter_gto_proto on icebreaker: current"),
        "{t}"
    );
    assert!(
        t.contains("warp_arbiter_lrr_proto on icebreaker: synthesizing"),
        "{t}"
    );
    let after = std::fs::read_to_string(rtl.join("REPORT.md")).unwrap();
    assert_eq!(row(&after, "warp_arbiter_gto_proto").unwrap(), kept);
    assert!(t.contains("targets section updated"), "{t}");
    assert!(after.lines().any(|l| l == target), "{after}");
    let again = row(&after, "warp_arbiter_lrr_proto").expect("row written again");
    // The same Verilog and the same tools give the same figures.
    let hash_and_fmax = |l: &str| {
        let c: Vec<&str> = l.split(" | ").collect();
        (c[2].to_string(), c[6].to_string())
    };
    assert_eq!(hash_and_fmax(&again), hash_and_fmax(&gone));
    // A stale row that names the options it was made with (Yosys's, nextpnr's) is made again
    // with them, and `--module` limits `--all` to that module's rows.
    let cells: Vec<&str> = again.split(" | ").collect();
    let planted = again.replace(cells[2], "`0000000000000000`").replace(
        &format!(" | {} | ", cells[3]),
        " | ok (`synth_ice40 -abc9`, `--seed 2`) | ",
    );
    std::fs::write(rtl.join("REPORT.md"), after.replace(&again, &planted)).unwrap();
    let o = all_on_copy(&["--module", "warp_arbiter_lrr_proto"]);
    assert!(o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("options of its REPORT.md row: Yosys -abc9; nextpnr --seed 2"),
        "{t}"
    );
    assert!(!t.contains("warp_arbiter_gto_proto"), "{t}");
    let reseeded = std::fs::read_to_string(rtl.join("REPORT.md")).unwrap();
    let reseeded = row(&reseeded, "warp_arbiter_lrr_proto").unwrap();
    assert!(reseeded.contains(cells[2]), "{reseeded}");
    assert!(
        reseeded.contains("(`synth_ice40 -abc9`, `--seed 2`)"),
        "{reseeded}"
    );
    let o = gpusched(&["fpga", "--all", "--module", "x"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("no row for module x"), "{}", text(&o));
}

/// Runs gpusched with standard output going to `stdout`; returns (exit code, stderr).
fn gpusched_to(args: &[&str], stdout: std::process::Stdio) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_gpusched"))
        .args(args)
        .stdout(stdout)
        .output()
        .expect("gpusched runs");
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into())
}

#[test]
fn output_that_cannot_be_written_is_one_error_with_the_os_reason() {
    // Standard output on a full disk (/dev/full): every command that prints.
    for args in [
        &["config", "show", "gtx480"][..],
        &["workloads"],
        &["sim", "--workload", "stream", "--json"],
        &["sim", "--workload", "stream"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let (code, err) = gpusched_to(args, full.into());
        assert_eq!(code, Some(2), "{args:?}: {err}");
        let want = "error: writing to standard output: No space left on device (os error 28)";
        assert_eq!(err.trim_end(), want, "{args:?}");
    }
    // A reader that went away: stop quietly, as Unix tools do (no panic, no error).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let (code, err) = gpusched_to(&["workloads"], writer.into());
    assert_eq!((code, err.as_str()), (Some(0), ""));
    // Files: a full disk, and a path that cannot be created.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    std::fs::create_dir(&out).unwrap();
    std::os::unix::fs::symlink("/dev/full", out.join("kernel-1.traceg")).unwrap();
    let o = gpusched(&[
        "trace",
        "export",
        "--workload",
        "stream",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("kernel-1.traceg: No space left on device (os error 28)"),
        "{t}"
    );
    assert_eq!(t.matches("No space left").count(), 1, "{t}");
    let o = gpusched(&[
        "trace",
        "export",
        "--workload",
        "stream",
        "--out",
        "/proc/version/t",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(
        t.contains("/proc/version/t: Not a directory (os error 20)"),
        "{t}"
    );
    assert_eq!(t.matches("os error").count(), 1, "{t}");
}

#[test]
fn sweep_runs_resumes_shards_and_collects() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    let spec_text = r#"[sweep]
name = "t"
workloads = ["stream", "compute"]
metrics = ["cycles", "l1d.misses"]

[[policy]]
name = "gto"
args = "--warp-sched gto"

[[policy]]
name = "lrr-bcs"
args = "--warp-sched lrr --tb-sched bcs"

[[policy]]
name = "stuck"
args = "--warp-sched lrr --watchdog 1"
"#;
    std::fs::write(&spec, spec_text).unwrap();
    let (s, a, b) = (
        spec.to_str().unwrap(),
        dir.path().join("a"),
        dir.path().join("b"),
    );
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    // Every point runs; the stuck ones are recorded as failed and do not stop the others.
    let o = gpusched(&["sweep", "run", s, "--out", a_s, "-j", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    says(&o, "6 points: 6 run, 0 cached, 2 failed");
    // Nothing runs twice.
    let o = gpusched(&["sweep", "run", s, "--out", a_s]);
    says(&o, "6 points: 0 run, 6 cached, 2 failed");
    let o = gpusched(&["sweep", "collect", a_s, "--json"]);
    assert!(o.status.success(), "{}", text(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows[0]["workload"], "stream");
    assert_eq!(rows[0]["policy"], "gto");
    assert!(rows[0]["cycles"].as_u64().unwrap() > 0);
    assert_eq!(rows[2]["status"], "failed");
    assert!(rows[2]["error"].as_str().unwrap().starts_with("deadlock"));
    let table = gpusched(&["sweep", "collect", a_s, "--csv"]).stdout;
    // A lost result runs again, alone; so does a damaged one.
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("sweep.json")).unwrap()).unwrap();
    let key = |i: usize| m["points"][i][1].as_str().unwrap().to_string();
    let file = |i: usize| a.join("points").join(format!("{}.json", key(i)));
    std::fs::remove_file(file(1)).unwrap();
    let damaged =
        std::fs::read_to_string(file(3))
            .unwrap()
            .replacen("\"cycles\": ", "\"cycles\": 1", 1);
    std::fs::write(file(3), damaged).unwrap();
    let o = gpusched(&["sweep", "run", s, "--out", a_s]);
    let t = text(&o);
    assert!(
        t.contains("damaged (its digest does not match its content)"),
        "{t}"
    );
    assert!(t.contains("6 points: 2 run, 4 cached, 2 failed"), "{t}");
    assert_eq!(gpusched(&["sweep", "collect", a_s, "--csv"]).stdout, table);
    let o = gpusched(&["sweep", "run", s, "--out", a_s, "--retry-failed"]);
    says(&o, "6 points: 2 run, 4 cached, 2 failed");
    // Two shards into one directory give the same table, bit for bit.
    let o = gpusched(&["sweep", "run", s, "--out", b_s, "--shard", "1/2"]);
    says(&o, "3 points (shard 1/2 of 6)");
    let o = gpusched(&["sweep", "status", b_s]);
    says(&o, "6 points: 2 done, 1 failed, 3 missing");
    let o = gpusched(&["sweep", "collect", b_s, "--csv"]);
    assert_eq!(o.status.code(), Some(1));
    says(&o, "3 missing (points 0, 2, 4)");
    gpusched(&["sweep", "run", s, "--out", b_s, "--shard", "0/2"]);
    assert_eq!(gpusched(&["sweep", "collect", b_s, "--csv"]).stdout, table);
    // Another spec's directory is refused unless --force.
    let other = dir.path().join("o.toml");
    std::fs::write(&other, spec_text.replace("name = \"t\"", "name = \"u\"")).unwrap();
    let o = gpusched(&["sweep", "run", other.to_str().unwrap(), "--out", a_s]);
    assert_eq!(o.status.code(), Some(2));
    says(&o, "holds the results of another spec (`t`)");
    let o = gpusched(&[
        "sweep",
        "run",
        other.to_str().unwrap(),
        "--out",
        a_s,
        "--force",
    ]);
    says(&o, "0 run, 6 cached");
    // Bad shard, bad directory, bad spec.
    let o = gpusched(&["sweep", "run", s, "--shard", "2/2"]);
    says(&o, "expected I/N with 0 <= I < N");
    let o = gpusched(&["sweep", "collect", dir.path().to_str().unwrap()]);
    says(&o, "is it a sweep's output directory?");
    std::fs::write(&other, spec_text.replace("\"compute\"", "\"computer\"")).unwrap();
    let o = gpusched(&["sweep", "run", other.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    says(&o, "o.toml:3: unknown workload `computer`");
}

#[test]
fn sweep_slurm_writes_a_job_array_script() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    std::fs::write(
        &spec,
        "[sweep]\nname = \"t\"\nworkloads = [\"stream\", \"compute\", \"his\"]\n\n\
         [[policy]]\nname = \"gto\"\nargs = \"--warp-sched gto\"\n\n\
         [[policy]]\nname = \"lrr\"\nargs = \"--warp-sched lrr\"\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let (s, o) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "sweep",
        "slurm",
        s,
        "--out",
        o,
        "--shards",
        "3",
        "--max-parallel",
        "2",
        "--partition",
        "short",
        "--time",
        "1:00:00",
        "--mem",
        "2G",
    ];
    let r = gpusched(&args);
    assert!(r.status.success(), "{}", text(&r));
    let script = std::fs::read_to_string(out.join("slurm/sweep.sbatch")).unwrap();
    for want in [
        "#!/bin/bash\n",
        "#SBATCH --array=0-2%2\n",
        "#SBATCH --partition=short\n",
        "#SBATCH --time=1:00:00\n",
        "#SBATCH --mem=2G\n",
        "#SBATCH --cpus-per-task=1\n",
        "sweep run ",
        "--shard \"${SLURM_ARRAY_TASK_ID}/3\" -j 1\n",
    ] {
        assert!(script.contains(want), "{want:?} not in:\n{script}");
    }
    assert!(script.contains(&format!("#SBATCH --output={o}/slurm/task-%a.out")));
    // The manifest is written at once: status knows the points before any task ran.
    let st = gpusched(&["sweep", "status", o]);
    says(&st, "6 points: 0 done, 0 failed, 6 missing");
    // No sbatch: say what to install.
    let r = Command::new(env!("CARGO_BIN_EXE_gpusched"))
        .args(args)
        .arg("--submit")
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(r.status.code(), Some(2));
    says(&r, "sbatch not found: install Slurm's client");
    // A directory Slurm's --output cannot take as it is.
    let spaced = dir.path().join("a b");
    let mut bad = args.to_vec();
    bad[4] = spaced.to_str().unwrap();
    let r = gpusched(&bad);
    assert_eq!(r.status.code(), Some(2));
    says(&r, "a Slurm output directory must not hold spaces");
    // A value that would break the script.
    let mut bad = args.to_vec();
    bad[12] = "1:00 #x";
    let r = gpusched(&bad);
    assert_eq!(r.status.code(), Some(2));
    says(&r, "--time `1:00 #x`: expected one word");
}

#[test]
fn policies_lists_every_site_and_its_options() {
    let o = gpusched(&["policies", "--json"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let v = json(&o);
    let rows = v.as_array().unwrap();
    let find = |name: &str| {
        rows.iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(find("laws")["option"], "--warp-sched");
    assert_eq!(find("laws")["options"][0]["name"], "la-active");
    assert_eq!(find("newcar")["flag"], "--newcar");
    assert_eq!(find("elf++")["implies"][0], "--lsu-queue newcar");
    assert_eq!(find("occupancy")["blocks"][0], "sm_alloc");
    assert!(rows.iter().filter(|r| r["default"] == true).count() >= 4);
    let o = gpusched(&["policies"]);
    assert!(
        text(&o).contains("thread-block scheduler (--tb-sched):"),
        "{}",
        text(&o)
    );
}

#[test]
fn sim_runs_the_shipped_mix_under_every_kernel_scheduler() {
    let mix = Path::new(env!("CARGO_MANIFEST_DIR")).join("mixes/two_streams.toml");
    let mix = mix.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["sim", "--mix", mix, "--json"];
        args.extend_from_slice(extra);
        json(&gpusched(&args))
    };
    let serial = run(&[]);
    let k = serial["kernels"].as_array().unwrap();
    assert_eq!(k.len(), 2);
    assert_eq!(
        (k[0]["stream"].as_u64(), k[1]["stream"].as_u64()),
        (Some(0), Some(1))
    );
    assert_eq!(k[1]["arrival"], 3000);
    assert!(k[1]["start_cycle"].as_u64() >= k[0]["end_cycle"].as_u64());
    assert_eq!(serial["streams"].as_array().unwrap().len(), 2);
    assert_eq!(serial["kernel_sched"], "serial");
    for sched in [
        vec!["--kernel-sched", "fcfs"],
        vec!["--kernel-sched", "smk"],
        vec!["--kernel-sched", "even", "--preempt", "switch"],
        vec!["--kernel-sched", "even", "--preempt", "drain"],
        vec!["--kernel-sched", "even", "--preempt", "flush"],
        vec![
            "--kernel-sched",
            "timeslice",
            "--quantum",
            "4000",
            "--preempt",
            "switch",
        ],
    ] {
        let v = run(&sched);
        let k = v["kernels"].as_array().unwrap();
        assert!(
            k[1]["start_cycle"].as_u64() < k[0]["end_cycle"].as_u64(),
            "{sched:?}: overlapped"
        );
        assert_eq!(
            k[0]["thread_instructions"].as_u64().unwrap()
                + k[1]["thread_instructions"].as_u64().unwrap(),
            v["thread_instructions"].as_u64().unwrap(),
            "{sched:?}"
        );
    }
    let switched = run(&["--kernel-sched", "even", "--preempt", "switch"]);
    let p = &switched["kernels"][0]["preemptions"];
    assert!(p["switch"]["blocks"].as_u64().unwrap() > 0, "{p}");
    assert_eq!(p["switch"]["blocks"], p["restored"]);
    assert!(switched["stalls"]["preempted"].as_u64().unwrap() > 0);
    assert_eq!(switched["warp_instructions"], serial["warp_instructions"]);
    // ANTT and STP against each kernel alone, the isolated runs cached.
    let cache = tempfile::tempdir().unwrap();
    let c = cache.path().to_str().unwrap();
    let v = run(&["--kernel-sched", "smk", "--isolated", c]);
    let iso = &v["isolated"];
    let antt = iso["antt"].as_f64().unwrap();
    let stp = iso["stp"].as_f64().unwrap();
    assert!(
        (1.0..3.0).contains(&antt) && stp > 0.5 && stp <= 2.0,
        "{iso}"
    );
    assert_eq!(
        iso["kernels"][0]["isolated_cycles"],
        serial["kernels"][0]["cycles"]
    );
    let again = run(&["--kernel-sched", "smk", "--isolated", c]);
    assert_eq!(again["isolated"], v["isolated"], "from the cache, the same");
}

#[test]
fn bad_mixes_and_kernel_scheduler_options_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let bad = write(
        "bad.toml",
        "[[kernel]]\nworkload = \"mm\"\n\n[[kernel]]\nworkload = \"nbody\"\n",
    );
    let o = gpusched(&["sim", "--mix", &bad]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o, "bad.toml:5: workload: unknown workload `nbody`");
    // A kernel that never fits an SM of the configuration: an error before anything runs.
    let cfg = gpusched(&["config", "show", "gtx480", "--json"]);
    let mut c: serde_json::Value = serde_json::from_slice(&cfg.stdout).unwrap();
    c["name"] = "small_smem".into();
    c["sm"]["shared_mem_bytes"] = (16 * 1024).into();
    let cfg = write("small.json", &c.to_string());
    let big = write(
        "big.toml",
        "[[kernel]]\nworkload = \"mm\"\n\n[[kernel]]\nworkload = \"chimera_imgvf\"\nstream = 1\n",
    );
    let o = gpusched(&["sim", "--mix", &big, "--config", &cfg]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(
        &o,
        "big.toml:4 (chimera_imgvf small): kernel `chimera_imgvf_small`",
    );
    says(&o, "does not fit on one SM");
    for (args, want) in [
        (
            vec!["--kernel-sched", "timeslice", "--quantum", "0"],
            "invalid value `0` for --quantum",
        ),
        (
            vec!["--preempt", "flush"],
            "--preempt needs --kernel-sched even, timeslice or maestro",
        ),
        (
            vec!["--kernel-sched", "lifo"],
            "unknown kernel scheduler `lifo`",
        ),
        (
            vec!["--kernel-sched", "even", "--warp-sched", "elf"],
            "--preempt switch: --warp-sched elf cannot resume a block where it stopped",
        ),
        (vec!["--isolated"], "--mix"),
    ] {
        let mut a = vec!["sim", "--workload", "mm"];
        a.extend_from_slice(&args);
        let o = gpusched(&a);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        says(&o, want);
    }
}

/// `--rtl-threads` far above the machine (a thread pool that could not be made) or at
/// `u64::MAX` is refused before anything runs, with the range (issue 61).
#[test]
fn rtl_threads_beyond_four_per_core_are_refused() {
    for n in ["100000", "18446744073709551615", "two"] {
        for cmd in [
            &["sim", "--workload", "compute", "--lockstep", "warp_arbiter"][..],
            &["bench", "--lockstep"][..],
        ] {
            let mut args = cmd.to_vec();
            args.extend(["--rtl-threads", n]);
            let o = gpusched(&args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
            says(&o, "expected 0 (one per core) to");
            assert!(!text(&o).contains("panicked"), "{}", text(&o));
        }
    }
}

/// Waveforms on a full disk: `cosim --vcd` into a directory whose VCD files are /dev/full
/// (every write fails with ENOSPC) ends with an error naming the file, instead of hanging in
/// Verilator's flush (issue 61).
#[cfg(target_os = "linux")]
#[test]
fn waveforms_on_a_full_disk_are_an_error_not_a_hang() {
    if !verilator_built() {
        return;
    }
    for full in ["rtl", "golden"] {
        let dir = tempfile::tempdir().unwrap();
        let name = format!("warp_arbiter_gto_fermi.{full}.vcd");
        std::os::unix::fs::symlink("/dev/full", dir.path().join(&name)).unwrap();
        let o = gpusched(&[
            "cosim",
            "--policy",
            "gto",
            "--cycles",
            "20000",
            "--vcd",
            dir.path().to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{full}: {}", text(&o));
        says(&o, &name);
        says(&o, "No space left on device");
    }
}

/// A lockstep's setup never panics: each of its options, odd values included, either runs or
/// is an error that says what is wrong (issue 61).
#[test]
fn lockstep_setup_options_run_or_say_what_is_wrong() {
    if !verilator_built() {
        return;
    }
    let cases: [(&[&str], Option<&str>); 9] = [
        (&["--lockstep", "warp_arbiter", "--window", "0"], None),
        (
            &["--lockstep", "warp_arbiter", "--snapshot-interval", "1024"],
            None,
        ),
        (
            &[
                "--lockstep",
                "warp_arbiter",
                "--mismatch-dir",
                "/proc/none/x",
            ],
            None,
        ),
        (&["--lockstep", "warp_arbiter", "--rtl-threads", "1"], None),
        (&["--lockstep", "nosuch"], Some("nosuch")),
        (&["--lockstep", "elf"], Some("this run has no elf block")),
        (
            &["--rtl", "warp_arbiter", "--lockstep", "warp_arbiter"],
            Some("both --rtl and --lockstep"),
        ),
        (
            &[
                "--lockstep",
                "warp_arbiter",
                "--target",
                "uart-sim",
                "--target-site",
                "bogus",
            ],
            Some("bogus"),
        ),
        (
            &[
                "--lockstep",
                "warp_arbiter",
                "--target",
                "uart:/nonexistent/tty",
            ],
            Some("/nonexistent/tty"),
        ),
    ];
    for (opts, err) in cases {
        let mut args = vec![
            "sim",
            "--workload",
            "compute",
            "--size",
            "small",
            "--max-cycles",
            "2000",
        ];
        args.extend(opts);
        let o = gpusched(&args);
        assert!(!text(&o).contains("panicked"), "{args:?}: {}", text(&o));
        match err {
            None => assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o)),
            Some(want) => {
                assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
                says(&o, want);
            }
        }
    }
}

/// Options that only mean something with `--lockstep` are errors without it (they used to be
/// taken and do nothing), before anything runs (issue 61).
#[test]
fn lockstep_only_options_need_lockstep() {
    for opt in [
        &["--window", "8"][..],
        &["--mismatch-dir", "m"],
        &["--snapshot-interval", "64"],
        &["--rtl-threads", "1"],
        &["--target", "uart-sim"],
        &["--target-site", "sm0_sched0"],
        &["--rtl-dir", "rtl-out"],
    ] {
        let mut args = vec!["sim", "--workload", "compute", "--size", "small"];
        args.extend(opt);
        let o = gpusched(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        says(&o, "--lockstep <BLOCKS>");
    }
    let o = gpusched(&["bench", "--rtl-threads", "1"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o, "--lockstep");
}

/// A FIFO in place of a trace, a kernel list, a mix, a configuration or a sweep spec is refused
/// at once (opening it for reading would wait for a writer for ever), naming it (issue 61).
#[cfg(unix)]
#[test]
fn fifos_in_place_of_input_files_are_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = |name: &str| {
        let p = dir.path().join(name);
        let made = std::process::Command::new("mkfifo").arg(&p).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", p.display());
        p.to_str().unwrap().to_string()
    };
    let traces = dir.path().join("trace");
    std::fs::create_dir(&traces).unwrap();
    std::fs::write(traces.join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let kernel = traces.join("kernel-1.traceg");
    assert!(std::process::Command::new("mkfifo")
        .arg(&kernel)
        .status()
        .unwrap()
        .success());
    let t = traces.to_str().unwrap();
    let (mix, cfg, spec, list) = (fifo("m.toml"), fifo("c.toml"), fifo("s.toml"), fifo("k.g"));
    for args in [
        vec!["sim", "--trace", t],
        vec!["trace", "info", t],
        vec!["sim", "--trace", &list],
        vec!["sim", "--mix", &mix],
        vec!["sim", "--workload", "compute", "--config", &cfg],
        vec!["sweep", "run", &spec],
    ] {
        let o = gpusched(&args);
        assert!(!o.status.success(), "{args:?}");
        says(&o, "not a regular file (a FIFO, a socket or a device");
    }
}

/// Under `--json` an error is a JSON object on standard output too (exit code inside), for a
/// command's own error and for a usage error; without it, standard output stays empty
/// (issue 61).
#[test]
fn errors_under_json_are_json_objects_on_stdout() {
    for (args, want) in [
        (
            &["sim", "--workload", "nosuch", "--json"][..],
            "unknown workload `nosuch`",
        ),
        (
            &["sim", "--json", "--bogus"][..],
            "unexpected argument '--bogus'",
        ),
        (
            &["trace", "info", "/no/such/trace", "--json"][..],
            "/no/such/trace",
        ),
    ] {
        let o = gpusched(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&o)));
        assert!(v["error"].as_str().unwrap().contains(want), "{args:?}: {v}");
        assert_eq!(v["exit_code"], 2, "{v}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains(want),
            "{args:?}"
        );
    }
    let o = gpusched(&["sim", "--workload", "nosuch"]);
    assert!(o.stdout.is_empty());
}

/// A sweep point cut short by `--max-cycles` says so: `truncated` in `collect`, counted in
/// `status`, not `ok` (issue 61).
#[test]
fn a_truncated_sweep_point_is_not_ok() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("t.toml");
    let spec_text = r#"[sweep]
name = "cut"
workloads = ["compute"]
sizes = ["small"]
configs = ["gtx480"]

[[policy]]
name = "short"
args = "--warp-sched gto --max-cycles 500"

[[policy]]
name = "full"
args = "--warp-sched gto"
"#;
    std::fs::write(&spec, spec_text).unwrap();
    let out = dir.path().join("o");
    let (s, o_s) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let o = gpusched(&["sweep", "run", s, "--out", o_s]);
    assert!(o.status.success(), "{}", text(&o));
    let o = gpusched(&["sweep", "collect", o_s, "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let status: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(status, ["truncated", "ok"]);
    let v = json(&gpusched(&["sweep", "status", o_s, "--json"]));
    assert_eq!(
        (v["done"].as_u64(), v["truncated"].as_u64()),
        (Some(2), Some(1))
    );
    says(
        &gpusched(&["sweep", "status", o_s]),
        "2 points: 2 done, 0 failed, 0 missing (1 of the done truncated at --max-cycles)",
    );
}

/// `lint --dir` refuses Verilog whose SHA-256 is not the manifest's (a file edited after
/// `gpusched gen` would otherwise pass under the manifest's name) (issue 61).
#[test]
fn lint_refuses_verilog_that_is_not_the_manifests() {
    let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl-out");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(rtl.join("manifest.json")).unwrap()).unwrap();
    let modules = m["modules"].as_array_mut().unwrap();
    modules.retain(|e| e["module"] == "warp_arbiter_lrr_proto");
    assert_eq!(modules.len(), 1);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("manifest.json"), m.to_string()).unwrap();
    let v = std::fs::read_to_string(rtl.join("warp_arbiter_lrr_proto.v")).unwrap();
    std::fs::write(
        dir.path().join("warp_arbiter_lrr_proto.v"),
        v + "// edited\n",
    )
    .unwrap();
    let o = gpusched(&["lint", "--dir", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    says(&o, "warp_arbiter_lrr_proto.v: its SHA-256");
    says(&o, "the Verilog was changed after `gpusched gen`");
}

/// A long or binary token in a malformed trace is quoted short and escaped in the error, not
/// printed whole (issue 61).
#[test]
fn a_huge_or_binary_token_is_quoted_short_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("kernelslist.g"), "kernel-1.traceg\n").unwrap();
    let grid = format!("-grid dim = ({}\u{1},1,1)\n", "9".repeat(300_000));
    let trace = format!("-kernel name = k\n-kernel id = 1\n{grid}-block dim = (32,1,1)\n");
    std::fs::write(dir.path().join("kernel-1.traceg"), trace).unwrap();
    let o = gpusched(&["trace", "info", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.len() < 400, "{} bytes", err.len());
    says(&o, "kernel-1.traceg:3: expected `-grid dim");
    says(&o, "bytes in all)");
}

/// The README's "first simulation" shows what the command prints: every line it shows (but
/// `...`) is a line of that command's output now.
#[test]
fn the_readmes_first_simulation_prints_what_the_readme_shows() {
    let traces = gpusim::testing::shared_dir().join("traces");
    if !gpusim::testing::available(
        "traces",
        traces.join("matrixmul-32-32").is_dir(),
        "no ../shared/traces/matrixmul-32-32",
    ) {
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = &readme[readme.find("## Your first simulation").unwrap()..];
    let command = section
        .lines()
        .find(|l| l.contains("sim --trace"))
        .expect("the README runs a trace");
    let args: Vec<String> = command
        .split('#')
        .next()
        .unwrap()
        .split_whitespace()
        .skip(1)
        .map(|a| a.replace("../shared/traces", traces.to_str().unwrap()))
        .collect();
    let shown: Vec<&str> = section
        .split("```")
        .nth(3)
        .expect("the README shows the output")
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "...")
        .collect();
    assert!(shown.len() >= 4, "{shown:?}");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = gpusched(&args);
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    for line in shown {
        assert!(
            out.lines().any(|l| l == line),
            "README shows `{line}`, the command prints:\n{out}"
        );
    }
}

/// The pages `repro <experiment>` writes its tables to: one per configuration for the
/// experiments that run on two side by side.
fn table_pages(experiment: &str) -> Vec<String> {
    let configs: &[&str] = match experiment {
        "elf" | "locality" | "chimera" | "paws" => &["gtx480-3.2.2", "gtx480"],
        "maestro" => &["gtx980-3.2.2", "gtx980"],
        _ => return vec![experiment.to_string()],
    };
    configs
        .iter()
        .map(|c| format!("{experiment}-{c}"))
        .collect()
}

/// The rows starting with one of `prefixes` that `gpusched repro <experiment> <args>` writes now
/// and its pages in `docs/src/results/` do not hold (each prefix must start a row of each).
fn rows_not_on_the_results_page(experiment: &str, args: &[&str], prefixes: &[&str]) -> Vec<String> {
    rows_not_on_pages(experiment, experiment, args, prefixes)
}

/// [`rows_not_on_the_results_page`] for pages committed under another name: `<page>-<preset>.md`
/// for what `repro <experiment>` writes as `<experiment>-<preset>.md`.
fn rows_not_on_pages(
    experiment: &str,
    page: &str,
    args: &[&str],
    prefixes: &[&str],
) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let none = dir.path().join("none");
    let mut all = vec!["repro", experiment, "--traces", none.to_str().unwrap()];
    all.extend(["--out", dir.path().to_str().unwrap()]);
    all.extend(args);
    let o = gpusched(&all);
    assert!(o.status.success(), "{experiment}: {}", text(&o));
    let mut stale = vec![];
    for stem in table_pages(experiment) {
        let committed = format!("{page}{}", &stem[experiment.len()..]);
        let page = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("docs/src/results/{committed}.md")),
        )
        .unwrap();
        let fresh = std::fs::read_to_string(dir.path().join(format!("{stem}.md"))).unwrap();
        for prefix in prefixes {
            assert!(
                fresh.lines().any(|l| l.starts_with(prefix)),
                "{stem}: no `{prefix}` row in\n{fresh}"
            );
        }
        stale.extend(
            fresh
                .lines()
                .filter(|l| prefixes.iter().any(|p| l.starts_with(p)))
                .filter(|r| !page.lines().any(|l| l == *r))
                .map(String::from),
        );
    }
    stale
}

/// The experiments' result pages (`docs/src/results/<experiment>.md`, `gpusched repro`'s
/// Markdown committed as it was written) hold what `repro` writes now: one cheap workload of
/// each, run again, gives exactly the page's rows for it. A run the page was not made from
/// (`locality` at another size) is caught.
#[test]
fn the_result_pages_hold_what_repro_writes_now() {
    let samples: [(&str, &str, &[&str]); 7] = [
        ("locality", "tran", &["| tran |"]),
        ("bypass", "syrk", &["| syrk |"]),
        (
            "paws",
            "bp,phase_40_68_136",
            &["| bp |", "| 40 / 68 / 136 |"],
        ),
        ("paver", "htw", &["| htw |"]),
        ("elf", "nw", &["| nw |"]),
        ("chimera", "chimera_lud", &["| chimera_lud |"]),
        // One pair, and the fragmentation runs (fdtd3d + lud), which run whatever `--only`.
        (
            "maestro",
            "bp,nw",
            &[
                "| bp + nw |",
                "| `bp` |",
                "| `nw` |",
                "| `first_fit, gto` |",
                "| `twoway, ",
            ],
        ),
    ];
    for (experiment, only, prefixes) in samples {
        let stale = rows_not_on_the_results_page(experiment, &["--only", only], prefixes);
        assert!(
            stale.is_empty(),
            "docs/src/results/{experiment}*.md is stale (docs/src/results/experiments.md says \
             how to write it again): `repro {experiment} --only {only}` writes\n{}",
            stale.join("\n")
        );
    }
    // The pages at the papers' inputs, by their cheapest workload.
    for (experiment, page, args, prefix) in [
        (
            "locality",
            "locality-paper",
            &["--only", "hs", "--size", "paper", "--headline"][..],
            "| hs |",
        ),
        (
            "elf",
            "elf-elf",
            &["--only", "hs", "--size", "elf", "--headline"],
            "| hs |",
        ),
        (
            "paver",
            "paver-paver",
            &["--only", "htw", "--size", "paver"],
            "| htw |",
        ),
        (
            "paws",
            "paws-elf",
            &["--only", "hs", "--size", "elf"],
            "| hs |",
        ),
    ] {
        let stale = rows_not_on_pages(experiment, page, args, &[prefix]);
        assert!(
            stale.is_empty(),
            "docs/src/results/{page}*.md is stale: `repro {experiment} {}` writes\n{}",
            args.join(" "),
            stale.join("\n")
        );
    }
    let planted = rows_not_on_the_results_page(
        "locality",
        &["--only", "tran", "--size", "medium"],
        &["| tran |"],
    );
    assert!(!planted.is_empty());
}

/// The rows of `now` (`bench --markdown` output) whose first `cells` cells (the workload and
/// its exact counts; the times are the machine's) no row of `page` starts with.
fn rows_not_on_the_speed_page(now: &str, page: &str, cells: usize) -> Vec<String> {
    let key = |row: &str| row.split(" | ").take(cells).collect::<Vec<_>>().join(" | ");
    let on_page: std::collections::HashSet<String> = page
        .lines()
        .filter(|l| l.starts_with("| "))
        .map(key)
        .collect();
    now.lines()
        .filter(|l| l.starts_with("| ") && !on_page.contains(&key(l)))
        .map(str::to_string)
        .collect()
}

/// The speed page (`docs/src/results/speed.md`, `bench --markdown` committed as written) holds
/// every workload `bench` runs now with its instruction and cycle counts, and the reader's
/// table holds the exported trace's size and instructions; a page from another model (one
/// cycle count changed) is caught.
#[test]
fn the_speed_page_holds_what_bench_runs_now() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/results/speed.md"),
    )
    .unwrap();
    let o = gpusched(&["bench", "--markdown", "--repeat", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let now = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        now.lines().filter(|l| l.starts_with("| ")).count() >= 10,
        "{now}"
    );
    let stale = rows_not_on_the_speed_page(&now, &page, 3);
    assert!(
        stale.is_empty(),
        "docs/src/results/speed.md is stale (docs/src/results/experiments.md says how to write \
         it again): `bench --markdown` runs\n{}",
        stale.join("\n")
    );
    let planted = page.replacen("| 253874 |", "| 253875 |", 1);
    assert_ne!(planted, page);
    assert!(!rows_not_on_the_speed_page(&now, &planted, 3).is_empty());
    let o = gpusched(&["bench", "--parse", "--markdown", "--repeat", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let now = String::from_utf8_lossy(&o.stdout).into_owned();
    let stale = rows_not_on_the_speed_page(&now, &page, 3);
    assert!(
        stale.is_empty(),
        "the reader's table is stale: {}",
        stale.join("\n")
    );
    // The co-simulation table: every module of every block, no mismatch; the lockstep table:
    // identical statistics.
    let cosim = speed_page_section(&page, "## Verilated blocks in co-simulation");
    let listed: Vec<&str> = cosim.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(listed, block_modules(), "the co-simulation table's modules");
    assert!(cosim.iter().all(|r| r[2] == "0"), "{cosim:?}");
    let lockstep = speed_page_section(&page, "## Lockstep inside the GPU");
    let cases: Vec<&str> = lockstep.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        cases,
        [
            "gto (warp_arbiter)",
            "elf++ (elf,newcar)",
            "la-tb (la_tb_dispatch)",
            "la-tb serial (la_tb_dispatch)",
            "laws (locality_degree)",
            "laws scan (locality_degree)",
            "la-tb+laws (la_tb_dispatch,locality_degree)"
        ],
        "{lockstep:?}"
    );
    assert!(lockstep.iter().all(|r| r[7] == "identical"), "{lockstep:?}");
}

/// Every Verilog module of every block (`<block>_<policy>_<preset>`), as `gpusched blocks`
/// lists them.
fn block_modules() -> Vec<String> {
    let blocks = json(&gpusched(&["blocks", "--json"]));
    let mut modules = vec![];
    for b in blocks.as_array().unwrap() {
        for p in b["policies"].as_array().unwrap() {
            for s in b["presets"].as_array().unwrap() {
                let (b, p, s) = (b["name"].as_str(), p.as_str(), s.as_str());
                modules.push(format!("{}_{}_{}", b.unwrap(), p.unwrap(), s.unwrap()));
            }
        }
    }
    modules
}

/// The cells of the table rows (header and separator left out) under `title` in `page`, up to
/// the next section.
fn speed_page_section(page: &str, title: &str) -> Vec<Vec<String>> {
    let start = page
        .find(title)
        .unwrap_or_else(|| panic!("no `{title}` in the speed page"));
    let rest = &page[start + title.len()..];
    let rest = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
    rest.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("|---"))
        .skip(1)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn paver_graph_and_groups_print_ours_beside_the_paper() {
    // The suite's MM at large is the paper's 13x13 grid: Table 2's SpScore exactly.
    let o = gpusched(&[
        "paver",
        "graph",
        "--workload",
        "mm",
        "--size",
        "large",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let st = &v["kernels"][0]["stats"];
    assert_eq!(
        (st["vertices"].as_u64(), st["nonzeros"].as_u64()),
        (Some(169), Some(4056))
    );
    assert_eq!(
        format!("{:.9}", st["sparsity"].as_f64().unwrap()),
        "0.857988166"
    );
    assert_eq!(v["paper"]["benchmark"], "MM");
    // The METIS file: a header with the counts, one line per vertex.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mm.graph");
    let args = [
        "paver",
        "graph",
        "--workload",
        "pf",
        "--out",
        file.to_str().unwrap(),
    ];
    let o = gpusched(&[&args[..], &["--format", "metis"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let written = std::fs::read_to_string(&file).unwrap();
    let mut lines = written.lines().filter(|l| !l.starts_with('%'));
    assert_eq!(lines.next(), Some("30 60 001"));
    assert_eq!(lines.count(), 30);
    // RB-TS's groups: a permutation of the blocks in leaves smaller than x.
    let o = gpusched(&[
        "paver",
        "groups",
        "--workload",
        "mm",
        "--scheme",
        "rb",
        "--json",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = &v["kernels"][0];
    let mut order: Vec<u64> = serde_json::from_value(k["order"].clone()).unwrap();
    order.sort_unstable();
    assert_eq!(order, (0..36).collect::<Vec<_>>());
    let gstart: Vec<u64> = serde_json::from_value(k["gstart"].clone()).unwrap();
    let x = k["blocks_per_sm"].as_u64().unwrap();
    assert!(gstart
        .windows(2)
        .all(|w| w[0] < w[1] && w[1] - w[0] < x.max(2)));
    assert!(k["intra_weight"].as_u64().unwrap() > 0);
    // Bad input: a kernel that is not there, --out over several kernels' worth.
    let o = gpusched(&["paver", "graph", "--workload", "mm", "--kernel", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("there is no kernel 2"), "{}", text(&o));
    let o = gpusched(&["paver", "graph", "--workload", "mm", "--out", "x.dot"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// `sim --bypass heuristic|exact` runs the bypass framework's profiling first and reports its
/// plan (text and JSON), caching the reused table of `bypass_mix` and bypassing the scattered
/// load; `--bypass all` bypasses every global load; `--bypass-eff` without a selection is an
/// error that says which modes take it.
#[test]
fn sim_bypass_selects_loads_and_reports_the_plan() {
    let base = ["sim", "--workload", "bypass_mix", "--config", "gtx680"];
    let o = gpusched(&[&base[..], &["--bypass", "heuristic"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("bypass plan (8 runs before this one):"),
        "{out}"
    );
    assert!(out.contains("pc 0x0030 cached"), "{out}");
    assert!(out.contains("pc 0x0028 bypassed"), "{out}");
    let v = json(&gpusched(
        &[
            &base[..],
            &["--bypass", "exact", "--bypass-eff", "oracle", "--json"],
        ]
        .concat(),
    ));
    assert_eq!(v["policy"], "gto+bypass(selected)");
    let plan = &v["bypass_plan"]["kernels"][0];
    assert_eq!(plan["method"], "Exact");
    let cached: Vec<bool> = plan["loads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["cached"].as_bool().unwrap())
        .collect();
    assert_eq!(cached, [false, false, true]);
    let loads = v["kernels"][0]["loads"].as_array().unwrap();
    assert_eq!(loads.len(), 3);
    assert!(loads[2]["hits"].as_u64().unwrap() > 0 && loads[1]["bypassed"].as_u64().unwrap() > 0);
    let all = json(&gpusched(
        &[&base[..], &["--bypass", "all", "--json"]].concat(),
    ));
    assert_eq!(all["l1d"]["hits"], 0);
    assert!(all.get("bypass_plan").is_none());
    let v = json(&gpusched(
        &[&base[..], &["--bypass", "empirical", "--json"]].concat(),
    ));
    let plan = &v["bypass_plan"];
    assert_eq!(plan["kernels"][0]["method"], "Empirical");
    assert_eq!(
        plan["runs"],
        8 + 8,
        "the profiling runs and 2^3 combinations"
    );
    let o = gpusched(&[&base[..], &["--bypass-eff", "oracle"]].concat());
    assert!(!o.status.success());
    says(
        &o,
        "only --bypass exact, heuristic or empirical selects loads",
    );
}

/// `repro bypass` writes its three files with every kernel at each L1D size, the paper's
/// figures beside the geometric means.
#[test]
fn repro_bypass_writes_each_l1_size_beside_the_paper() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let args = [
        "repro",
        "bypass",
        "--size",
        "small",
        "--only",
        "syrk,bypass_mix",
    ];
    let o = gpusched(&[&args[..], &["--out", out, "-j", "2"]].concat());
    assert!(o.status.success(), "{}", text(&o));
    let md = std::fs::read_to_string(dir.path().join("bypass.md")).unwrap();
    for l1 in ["## L1D 16 kB", "## L1D 32 kB", "## L1D 48 kB"] {
        assert!(md.contains(l1), "{md}");
    }
    assert_eq!(md.matches("| syrk | 2 | 5 |").count(), 3, "{md}");
    for paper in [
        "| +4.6% | +13.1% |",
        "| +13.0% | +19.1% |",
        "| +20.1% | +23.4% |",
    ] {
        assert!(md.contains(paper), "{md}");
    }
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("bypass.json")).unwrap())
            .unwrap();
    assert_eq!(v["rows"].as_array().unwrap().len(), 2);
    assert_eq!(v["means"].as_array().unwrap().len(), 3);
    // The empirical optimum (every combination simulated) is no slower than any selection.
    for row in v["rows"].as_array().unwrap() {
        for c in row["cells"].as_array().unwrap() {
            let e = c["empirical"].as_u64().unwrap();
            for other in ["bypass_all", "cache_all", "heuristic", "exact"] {
                assert!(e <= c[other].as_u64().unwrap(), "{other}: {c}");
            }
            assert_eq!(c["empirical_runs"], 1 << c["loads"].as_u64().unwrap());
        }
    }
    let svg = std::fs::read_to_string(dir.path().join("bypass.svg")).unwrap();
    assert!(svg.contains("48 kB heuristic"));
    // The per-kernel heatmap: a row per kernel, a column per (size, selection).
    let kernels = std::fs::read_to_string(dir.path().join("bypass-kernels.svg")).unwrap();
    for row in v["rows"].as_array().unwrap() {
        assert!(
            kernels.contains(row["workload"].as_str().unwrap()),
            "{kernels}"
        );
    }
    assert!(kernels.contains("16 kB exact") && kernels.contains("48 kB cache-all"));
}

/// A sweep point with `--bypass heuristic` makes its profiling runs and records the plan in
/// its report (its metrics can read it), beside a bypass-all point.
#[test]
fn a_sweep_point_selects_its_bypassed_loads() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("s.toml");
    let text_of_spec = r#"[sweep]
name = "bypass"
workloads = ["bypass_mix"]
configs = ["gtx680"]
metrics = ["cycles", "l1d.hits"]

[[policy]]
name = "all"
args = "--bypass all"

[[policy]]
name = "heuristic"
args = "--bypass heuristic"
"#;
    std::fs::write(&spec, text_of_spec).unwrap();
    let out = dir.path().join("out");
    let (s, o) = (spec.to_str().unwrap(), out.to_str().unwrap());
    let r = gpusched(&["sweep", "run", s, "--out", o, "-j", "2"]);
    assert!(r.status.success(), "{}", text(&r));
    let rows = json(&gpusched(&["sweep", "collect", o, "--json"]));
    let rows = rows.as_array().unwrap();
    assert_eq!(rows[0]["l1d.hits"], 0);
    assert!(rows[1]["l1d.hits"].as_u64().unwrap() > 0, "{}", rows[1]);
    // The heuristic point's stored report holds its plan: 8 profiling runs.
    let plans: Vec<serde_json::Value> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .map(|t| serde_json::from_str::<serde_json::Value>(&t).unwrap())
        .filter_map(|v| v["report"].get("bypass_plan").cloned())
        .collect();
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0]["runs"], 8, "{}", plans[0]);
}

/// Every configuration of GPGPU-Sim's `configs/tested-cfgs` (branch `dev`, commit 667834c),
/// each with Accel-Sim's `trace.config` where Accel-Sim has one (commit 73f9fac): unchanged
/// copies in `tests/data/gpgpusim-tested-cfgs` (BSD licences, kept beside them).
#[test]
fn every_tested_gpgpusim_config_runs_a_trace() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gpgpusim-tested-cfgs");
    let gpus = [
        "SM2_GTX480",
        "SM3_KEPLER_TITAN",
        "SM6_TITANX",
        "SM75_RTX2060",
        "SM75_RTX2060_S",
        "SM7_GV100",
        "SM7_QV100",
        "SM7_TITANV",
        "SM86_RTX3070",
    ];
    let mut cycles = std::collections::BTreeSet::new();
    let mut instructions = std::collections::BTreeSet::new();
    for gpu in gpus {
        let dir = root.join(gpu);
        let mut files = vec![dir.join("gpgpusim.config")];
        if dir.join("trace.config").exists() {
            files.push(dir.join("trace.config"));
        }
        let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        let config = list.join(",");
        let check = gpusched(&["config", "check", &config]);
        assert!(check.status.success(), "{gpu}: {}", text(&check));
        let args = [
            "sim",
            "--workload",
            "compute",
            "--config",
            &config,
            "--json",
        ];
        let o = gpusched(&args);
        assert!(o.status.success(), "{gpu}: {}", text(&o));
        let v = json(&o);
        assert!(v["cycles"].as_u64().unwrap() > 0, "{gpu}: {v}");
        cycles.insert(v["cycles"].as_u64().unwrap());
        instructions.insert(v["warp_instructions"].as_u64().unwrap());
    }
    assert_eq!(instructions.len(), 1, "the same trace on every GPU");
    assert!(
        cycles.len() >= 7,
        "the files set different machines: {cycles:?}"
    );
}
