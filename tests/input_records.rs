//! Bad input, record by record: malformed traces are refused alike by every command that reads
//! them (`sim`, `trace info`, `bench`, `sweep`, `calibrate`), and questionable reference
//! records by `calibrate` and `bench --reference`, each error naming the file, the line or
//! record, and what was expected.

mod common;

use common::{export_nn_small, gpusched, json, text};
use std::path::Path;
use std::process::{Command, Output};

/// Asserts that `o` failed with exit status 2 and an output (stdout and stderr) that contains
/// `want`, without a panic.
#[track_caller]
fn refuses(o: &Output, want: &str) {
    let t = text(o);
    assert_eq!(o.status.code(), Some(2), "{t}");
    assert!(t.contains(want), "{want:?} not in:\n{t}");
    assert!(!t.contains("panicked"), "{t}");
}

/// A trace in `dir` of one kernel of `grid` one-warp blocks: `list` as its kernelslist.g, and
/// `blocks` (block id, its instruction lines) in this order. Returns the line of the first
/// `#BEGIN_TB`.
fn write_trace(dir: &Path, grid: u32, list: &str, blocks: &[(u32, &[&str])]) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("kernelslist.g"), list).unwrap();
    let mut t = format!(
        "-kernel name = k\n-kernel id = 1\n-grid dim = ({grid},1,1)\n-block dim = (32,1,1)\n\
         -shmem = 0\n-nregs = 8\n-binary version = 61\n-cuda stream id = 0\n\
         -accelsim tracer version = 4\n-enable lineinfo = 0\n\n"
    );
    let first = t.lines().count() + 1;
    for (id, insts) in blocks {
        t.push_str(&format!(
            "#BEGIN_TB\nthread block = {id},0,0\nwarp = 0\ninsts = {}\n",
            insts.len()
        ));
        for i in *insts {
            t.push_str(&format!("{i}\n"));
        }
        t.push_str("#END_TB\n");
    }
    std::fs::write(dir.join("kernel-1.traceg"), t).unwrap();
    first
}

const BODY: &[&str] = &[
    "0000 ffffffff 1 R1 IADD 2 R2 R3 0",
    "0008 ffffffff 0 EXIT 0 0",
];
const LIST: &str = "MemcpyHtoD,0x7f0000000000,4096\nkernel-1.traceg\n";

/// The error of `gpusched sweep run` on the trace `dir` as one point recorded it.
fn sweep_error(dir: &Path) -> String {
    let work = dir.parent().unwrap().join("sweep");
    let spec = work.with_extension("toml");
    std::fs::write(
        &spec,
        format!(
            "[sweep]\nname = \"t\"\nworkloads = [\"trace:{}\"]\n\n[[policy]]\nname = \"gto\"\n\
             args = \"--warp-sched gto\"\n",
            dir.display()
        ),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&work);
    let out = work.to_str().unwrap();
    let o = gpusched(&["sweep", "run", spec.to_str().unwrap(), "--out", out]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let rows = json(&gpusched(&["sweep", "collect", out, "--json"]));
    rows[0]["error"].as_str().unwrap_or_default().to_string()
}

/// A block listed twice (after the whole grid, where `sim` used to stop reading), register
/// names that are not registers, copies whose sizes overflow: `sim`, `trace info`,
/// `bench --parse` and a sweep point refuse each with the same error, naming file and line.
#[test]
fn every_command_refuses_a_malformed_trace_alike() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("t");
    let near_max = format!("MemcpyHtoD,0x0,{}\n", u64::MAX / 2 + 1);
    // (kernelslist.g, grid, blocks, the error from the line of the first block)
    type Case<'a> = (
        String,
        u32,
        Vec<(u32, &'a [&'a str])>,
        Box<dyn Fn(usize) -> String>,
    );
    let cases: Vec<Case> = vec![
        (
            LIST.into(),
            1,
            vec![(0, BODY), (0, BODY)],
            Box::new(|f| {
                format!(
                    "kernel-1.traceg:{}: thread block (0,0,0) appears twice in the trace \
                     (first at line {f})",
                    f + 7
                )
            }),
        ),
        (
            LIST.into(),
            1,
            vec![(0, &["0000 ffffffff 1 R9999x IADD 2 R2 R3 0"][..])],
            Box::new(|f| {
                format!(
                    "kernel-1.traceg:{}: expected a destination register (R<n>, RZ, UR0..UR63, \
                     URZ, P0..P7, PT, UP0..UP7, UPT or SR_<name>), found `R9999x`",
                    f + 4
                )
            }),
        ),
        (
            LIST.into(),
            1,
            vec![(0, &["0000 ffffffff 1 R1 IADD 2 Q3 R3 0"][..])],
            Box::new(|f| {
                format!(
                    "kernel-1.traceg:{}: expected a source register (R<n>",
                    f + 4
                )
            }),
        ),
        (
            format!("{near_max}{near_max}kernel-1.traceg\n"),
            1,
            vec![(0, BODY)],
            Box::new(|_| {
                "kernelslist.g:2: the copies add up to more than 2^64-1 bytes".to_string()
            }),
        ),
        (
            format!(
                "MemcpyHtoD,0xffffffffffffff00,{}\nkernel-1.traceg\n",
                u64::MAX
            ),
            1,
            vec![(0, BODY)],
            Box::new(|_| {
                "kernelslist.g:1: a copy of 18446744073709551615 bytes to 0xffffffffffffff00 \
                 runs past the end of the 64-bit address space"
                    .to_string()
            }),
        ),
    ];
    let t = d.to_str().unwrap();
    for (list, grid, blocks, want) in cases {
        let _ = std::fs::remove_dir_all(&d);
        let want = want(write_trace(&d, grid, &list, &blocks));
        for args in [
            vec!["sim", "--trace", t, "--config", "gtx480"],
            vec!["sim", "--trace", t, "--json"],
            vec!["trace", "info", t],
            vec!["bench", "--parse", "--trace", t, "--repeat", "1"],
        ] {
            refuses(&gpusched(&args), &want);
        }
        let e = sweep_error(&d);
        assert!(e.contains(&want), "sweep: {want:?} not in {e:?}");
    }
    // The same trace made whole is read by all of them.
    let _ = std::fs::remove_dir_all(&d);
    write_trace(&d, 2, LIST, &[(1, BODY), (0, BODY)]);
    let v = json(&gpusched(&["trace", "info", t, "--json"]));
    assert_eq!(v["kernels"][0]["warp_instructions"], 4, "{v}");
    let v = json(&gpusched(&["sim", "--trace", t, "--json"]));
    assert_eq!(v["warp_instructions"], 4, "{v}");
}

/// Packs the trace `t` as the reference packs its traces, as `reference/traces/<name>.tar.xz`.
fn pack(t: &Path, reference: &Path, name: &str) {
    std::fs::create_dir_all(reference.join("traces")).unwrap();
    let tar = Command::new("tar")
        .arg("-cJf")
        .arg(reference.join("traces").join(format!("{name}.tar.xz")))
        .arg("-C")
        .arg(t)
        .args(["kernelslist.g", "kernel-1.traceg"])
        .status()
        .expect("tar runs");
    assert!(tar.success());
}

/// A valid record of `nn` small (2880 warp instructions) under scheduler `s`.
fn record(s: &str) -> serde_json::Value {
    serde_json::json!({
        "workload": "nn", "size": "small", "scheduler": s, "gpusched_warp_sched": s,
        "accelsim": {"gpu_sim_cycle": 1400, "gpgpu_n_tot_w_icount": 2880, "gpu_sim_insn": 92160,
            "wall_s": 0.2, "max_rss_mb": 25.0, "completed": true, "exit_status": 0,
            "l2_breakdown_nonzero": {"GLOBAL_ACC_R.MISS": 470}},
    })
}

/// Writes `records` into `reference/results.json`, one a line from line 2 (record `k` is at
/// line `k + 2`).
fn write_results(reference: &Path, records: &[serde_json::Value]) -> String {
    let lines: Vec<String> = records.iter().map(|r| r.to_string()).collect();
    let file = reference.join("results.json");
    std::fs::write(&file, format!("[\n{}\n]\n", lines.join(",\n"))).unwrap();
    file.display().to_string()
}

/// `calibrate` and `bench --reference` on the reference set `r`.
fn both(r: &Path) -> [Output; 2] {
    let r = r.to_str().unwrap();
    [
        gpusched(&["calibrate", "--reference", r]),
        gpusched(&["bench", "--reference", r, "--repeat", "1"]),
    ]
}

/// Every questionable record is refused before anything runs, naming the file, the record's
/// line, trace and scheduler, and what was wrong: counts negative, zero, fractional or absurd,
/// a figure that is not a number, a run that did not complete, a name that is not a trace
/// name, the same trace and scheduler twice (naming both records).
#[test]
fn calibrate_and_bench_refuse_questionable_reference_records() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("reference");
    pack(&export_nn_small(&tmp.path().join("nn")), &r, "nn-small");
    let base = || vec![record("gto"), record("lrr"), record("two-level")];
    let figure = |key: &str, v: serde_json::Value| {
        let mut rs = base();
        rs[1]["accelsim"][key] = v;
        rs
    };
    let cases: Vec<(Vec<serde_json::Value>, &str)> = vec![
        (
            figure("gpu_sim_cycle", (-5).into()),
            "3: nn-small lrr: `accelsim.gpu_sim_cycle` = -5 is negative",
        ),
        (
            figure("gpu_sim_cycle", 0.into()),
            "3: nn-small lrr: `accelsim.gpu_sim_cycle` = 0, but a run that completed has a \
             positive one",
        ),
        (
            figure("gpgpu_n_tot_w_icount", 2880.5.into()),
            "3: nn-small lrr: `accelsim.gpgpu_n_tot_w_icount` = 2880.5 is not a count",
        ),
        (
            figure("gpu_sim_cycle", 1e30.into()),
            "3: nn-small lrr: `accelsim.gpu_sim_cycle` = 1e+30 is not a count (a whole number \
             up to 2^53)",
        ),
        (
            figure("wall_s", "NaN".into()),
            "3: nn-small lrr: `accelsim.wall_s` = \"NaN\": expected a number",
        ),
        (
            figure("max_rss_mb", 0.0.into()),
            "3: nn-small lrr: `accelsim.max_rss_mb` = 0.0, but a run that completed",
        ),
        (
            figure(
                "l2_breakdown_nonzero",
                serde_json::json!({"GLOBAL_ACC_R.MISS": -3}),
            ),
            "3: nn-small lrr: `accelsim.l2_breakdown_nonzero.GLOBAL_ACC_R.MISS` = -3 is negative",
        ),
        (
            figure("completed", false.into()),
            "3: nn-small lrr: the reference run did not complete",
        ),
        (
            figure("exit_status", 1.into()),
            "3: nn-small lrr: `accelsim.exit_status` = 1: the reference run failed",
        ),
        (
            {
                let mut rs = base();
                rs[2]["workload"] = "../nn".into();
                rs
            },
            "4: ../nn-small two-level: `workload` = \"../nn\" is not a trace name",
        ),
        (
            {
                let mut rs = base();
                rs.push(record("gto"));
                rs
            },
            "5: nn-small gto: the same trace and scheduler `gto` as the record at ",
        ),
        (
            {
                let mut rs = base();
                rs[2]["gpusched_warp_sched"] = "lrr".into();
                rs
            },
            "4: nn-small two-level: the same trace and scheduler `lrr` as the record at ",
        ),
    ];
    for (records, want) in cases {
        let file = write_results(&r, &records);
        for o in both(&r) {
            refuses(&o, &format!("{file}:{want}"));
        }
    }
    // Both places of a repeated record are named.
    let file = write_results(&r, &[record("gto"), record("lrr"), record("gto")]);
    for o in both(&r) {
        let want = format!(
            "{file}:4: nn-small gto: the same trace and scheduler `gto` as the record at {file}:2"
        );
        refuses(&o, &want);
    }
    // A record of the wrong shape: the JSON reader's line and column.
    std::fs::write(r.join("results.json"), "[\n{\"workload\": 5}\n]\n").unwrap();
    for o in both(&r) {
        refuses(&o, "results.json: not a list of reference records");
        refuses(&o, "line 2 column");
    }
    // The valid records are read, and calibrate runs them.
    write_results(&r, &base());
    let v = json(&gpusched(&[
        "calibrate",
        "--reference",
        r.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(v["runs"].as_array().unwrap().len(), 3, "{v}");
}

/// A trace that does not hold the warp instructions its record says the reference ran is
/// refused, naming the record and the archive, before anything runs; so is a malformed trace
/// in the reference set, with the reader's error.
#[test]
fn a_reference_trace_must_hold_the_warp_instructions_of_its_records() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path().join("reference");
    pack(&export_nn_small(&tmp.path().join("nn")), &r, "nn-small");
    let mut rs = vec![record("gto"), record("lrr")];
    rs[1]["accelsim"]["gpgpu_n_tot_w_icount"] = 2881.into();
    let file = write_results(&r, &rs);
    let archive = r.join("traces/nn-small.tar.xz");
    for o in both(&r) {
        refuses(
            &o,
            &format!(
                "{file}:3: nn-small lrr: `accelsim.gpgpu_n_tot_w_icount` = 2881, but {} holds \
                 2880 warp instructions: the reference ran another trace",
                archive.display()
            ),
        );
    }
    // A trace with a block listed twice in place of the right one.
    let bad = tmp.path().join("bad");
    let first = write_trace(&bad, 1, LIST, &[(0, BODY), (0, BODY)]);
    pack(&bad, &r, "nn-small");
    write_results(&r, &[record("gto")]);
    for o in both(&r) {
        refuses(&o, &format!("{}: a malformed trace: ", archive.display()));
        refuses(
            &o,
            &format!(
                "kernel-1.traceg:{}: thread block (0,0,0) appears twice in the trace (first at \
                 line {first})",
                first + 7
            ),
        );
    }
}
