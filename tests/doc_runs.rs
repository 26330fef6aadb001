//! The documentation's example tables, run again. A table right below the line
//! `<!-- rerun: gpusched ARGS -->` holds one run per row: `gpusched ARGS` (which prints JSON;
//! `{tmp}` stands for a scratch directory) with the row's options. The header's first cell
//! names a flag (`` `--kernel-sched` ``), each row's first cell its value and further options
//! in backticks (text in parentheses is a comment), and every other column a figure of that
//! run's JSON, named by the header (`COLUMNS`). A figure that differs from the rerun fails the
//! test, which prints the row as the run gives it.

mod common;

use common::{gpusched, json};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The marker a rerun table sits under.
const MARKER: &str = "<!-- rerun: gpusched ";

/// The pages with rerun tables; each has a test below.
const PAGES: [&str; 4] = [
    "several-kernels-streams-and-preemption.md",
    "gpu-maestro-seed-003-ch-v.md",
    "paver-seed-004.md",
    "cache-bypassing-seed-001.md",
];

/// A column's figure from one run's `--json` report.
type Column = fn(&Value, &str) -> String;

/// The columns a rerun table may have: header (a backticked workload name stands for `W`)
/// and how the figure is read; `sim --json` reports, then `paver graph --json`.
const COLUMNS: [(&str, Column); 20] = [
    ("cycles", |v, _| grouped(v["cycles"].as_u64().unwrap())),
    ("`W` turnaround", |v, w| {
        let kernels = v["kernels"].as_array().unwrap();
        let k = kernels.iter().find(|k| name_is(k, w));
        grouped(
            k.expect("a kernel of that workload")["turnaround"]
                .as_u64()
                .unwrap(),
        )
    }),
    ("ANTT", |v, _| {
        format!("{:.2}", v["isolated"]["antt"].as_f64().unwrap())
    }),
    ("STP", |v, _| {
        format!("{:.2}", v["isolated"]["stp"].as_f64().unwrap())
    }),
    ("blocks preempted", |v, _| {
        let named: Vec<String> = ["switch", "drain", "flush"]
            .iter()
            .zip(["switched", "drained", "flushed"])
            .filter(|(t, _)| preempted(v, t) > 0)
            .map(|(t, past)| format!("{} {past}", grouped(preempted(v, t))))
            .collect();
        if named.is_empty() {
            "—".into()
        } else {
            named.join(", ")
        }
    }),
    ("blocks switched / drained / flushed", |v, _| {
        let n = ["switch", "drain", "flush"].map(|t| preempted(v, t).to_string());
        n.join(" / ")
    }),
    ("decisions", |v, _| {
        let d = v["kernel_sched_stats"]["decisions"].as_array();
        d.map_or(0, Vec::len).to_string()
    }),
    ("fragmented cycles", |v, _| {
        let f = v["sm_alloc_stats"]["fragmented_cycles"].as_u64();
        f.map_or("—".into(), grouped)
    }),
    ("blocks", |v, _| {
        let k = v["kernels"].as_array().unwrap().iter();
        grouped(k.map(|k| k["stats"]["vertices"].as_u64().unwrap()).sum())
    }),
    ("sparsity", |v, _| {
        format!("{:.3}", v["mean_sparsity"].as_f64().unwrap())
    }),
    ("Table 2", |v, _| {
        let b = v["paper"]["benchmark"].as_str();
        b.map_or("—".into(), String::from)
    }),
    ("Table 2 blocks", |v, _| {
        let n = v["paper"]["tbs"].as_u64();
        n.map_or("—".into(), grouped)
    }),
    ("Table 2 sparsity", |v, _| {
        let s = v["paper"]["sparsity"].as_f64();
        s.map_or("—".into(), |s| format!("{s:.4}"))
    }),
    ("L1D read hits", |v, _| {
        grouped(v["l1d"]["hits"].as_u64().unwrap())
    }),
    ("L1D refused accesses", |v, _| {
        grouped(v["l1d"]["fails"].as_u64().unwrap())
    }),
    ("L1D hit-reserved", |v, _| {
        grouped(v["l1d"]["hit_reserved"].as_u64().unwrap())
    }),
    ("L2 accesses", |v, _| {
        grouped(v["l2"]["accesses"].as_u64().unwrap())
    }),
    ("cached loads", |v, _| {
        let loads = v["bypass_plan"]["kernels"][0]["loads"].as_array().unwrap();
        let cached = loads.iter().filter(|l| l["cached"].as_bool().unwrap());
        let pcs: Vec<String> = cached
            .map(|l| format!("{:#x}", l["pc"].as_u64().unwrap()))
            .collect();
        pcs.join(", ")
    }),
    ("L2 read misses", |v, _| {
        grouped(v["l2"]["misses"].as_u64().unwrap())
    }),
    ("DRAM read bursts", |v, _| {
        grouped(v["dram"]["reads"].as_u64().unwrap())
    }),
];

/// Whether `kernel` is a launch of the suite's `workload` (its name is `<workload>_<size>`).
fn name_is(kernel: &Value, workload: &str) -> bool {
    let name = kernel["name"].as_str().unwrap_or_default();
    name.strip_prefix(workload)
        .is_some_and(|size| size.starts_with('_'))
}

/// Blocks of every kernel that left their SM by `technique` (switch, drain, flush).
fn preempted(v: &Value, technique: &str) -> u64 {
    let kernels = v["kernels"].as_array().unwrap();
    let blocks = kernels
        .iter()
        .map(|k| &k["preemptions"][technique]["blocks"]);
    blocks.map(|b| b.as_u64().unwrap()).sum()
}

/// `n` with thousands separators (12,345), as the documentation writes figures.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn cells(row: &str) -> Vec<String> {
    let row = row.trim().trim_start_matches('|').trim_end_matches('|');
    row.split(" | ").map(|c| c.trim().to_string()).collect()
}

/// The options a row's first cell stands for: its backticked words outside parentheses.
fn row_options(first: &str) -> Vec<String> {
    let mut outside = String::new();
    let mut depth = 0;
    for c in first.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ if depth == 0 => outside.push(c),
            _ => {}
        }
    }
    let quoted = outside.split('`').skip(1).step_by(2);
    quoted
        .flat_map(|q| q.split_whitespace().map(String::from))
        .collect()
}

/// How a header reads its figure, and the workload it names (for `` `W` turnaround ``).
fn column(header: &str) -> (Column, String) {
    let workload = header.split('`').nth(1).unwrap_or_default().to_string();
    let generic = header.replacen(&format!("`{workload}`"), "`W`", 1);
    let found = COLUMNS.iter().find(|(h, _)| *h == header || *h == generic);
    let (_, read) = found.unwrap_or_else(|| panic!("no rerun column is named {header:?}"));
    (*read, workload)
}

/// One row to run again: the row as written, its cells, the command's arguments and how its
/// columns are read.
struct Row<'a> {
    text: &'a str,
    written: Vec<String>,
    args: Vec<String>,
    columns: Vec<(Column, String)>,
}

/// The rows of every marked table of `text` (`{tmp}` is `cache`).
fn rows<'a>(text: &'a str, cache: &Path) -> Vec<Row<'a>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = vec![];
    for (i, line) in lines.iter().enumerate() {
        let Some(command) = line.trim().strip_prefix(MARKER) else {
            continue;
        };
        let base = command.trim_end_matches("-->").split_whitespace();
        let tmp = cache.to_str().unwrap();
        let base: Vec<&str> = base.map(|a| if a == "{tmp}" { tmp } else { a }).collect();
        let header = cells(lines[i + 1]);
        let flag = header[0].trim_matches('`').to_string();
        let columns: Vec<(Column, String)> = header[1..].iter().map(|h| column(h)).collect();
        let table = lines[i + 3..]
            .iter()
            .take_while(|l| l.trim_start().starts_with('|'));
        for row in table {
            let written = cells(row);
            let mut args: Vec<String> = base.iter().map(|s| s.to_string()).collect();
            args.push(flag.clone());
            args.extend(row_options(&written[0]));
            let columns = columns.clone();
            out.push(Row {
                text: row.trim(),
                written,
                args,
                columns,
            });
        }
    }
    out
}

/// Reruns every marked table of `text` (`{tmp}` is `cache`), the runs on every core. Returns
/// how many rows were run and, per differing row, the row as written and as the run gives it.
fn rerun_tables(text: &str, cache: &Path) -> (usize, Vec<(String, String)>) {
    let rows = rows(text, cache);
    let args: Vec<Vec<String>> = rows.iter().map(|r| r.args.clone()).collect();
    let reports = run_all(&args);
    let mut differ = vec![];
    for (row, v) in rows.iter().zip(&reports) {
        let mut ran = vec![row.written[0].clone()];
        ran.extend(row.columns.iter().map(|(read, w)| read(v, w)));
        if ran != row.written {
            differ.push((row.text.to_string(), format!("| {} |", ran.join(" | "))));
        }
    }
    (rows.len(), differ)
}

/// The JSON of `gpusched ARGS` for each of `runs`, in order, run on as many threads as cores.
fn run_all(runs: &[Vec<String>]) -> Vec<Value> {
    gpusched_gen::parallel::map(runs.iter().collect(), |args| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        json(&gpusched(&args))
    })
}

fn docs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src")
}

/// Reruns `page`'s tables; fails naming each row that differs, with the whole table as run.
fn check_page(page: &str) {
    let text = std::fs::read_to_string(docs().join(page)).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let (rows, differ) = rerun_tables(&text, cache.path());
    assert!(rows > 0, "{page} has no table under {MARKER}...");
    let shown: Vec<String> = differ
        .iter()
        .map(|(w, r)| format!("written: {w}\nrun:     {r}"))
        .collect();
    assert!(
        differ.is_empty(),
        "{page}: {} of {rows} rows differ from their runs:\n{}",
        differ.len(),
        shown.join("\n")
    );
}

#[test]
fn the_several_kernels_page_shows_what_its_runs_give() {
    check_page(PAGES[0]);
}

#[test]
fn the_maestro_chapter_shows_what_its_runs_give() {
    check_page(PAGES[1]);
}

#[test]
fn the_paver_chapter_shows_what_its_runs_give() {
    check_page(PAGES[2]);
}

#[test]
fn the_bypass_chapter_shows_what_its_runs_give() {
    check_page(PAGES[3]);
}

#[test]
fn every_page_with_a_rerun_table_is_checked() {
    let mut marked = vec![];
    for entry in std::fs::read_dir(docs()).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if text.lines().any(|l| l.trim().starts_with(MARKER)) {
            marked.push(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    marked.sort();
    let mut pages = PAGES.map(String::from).to_vec();
    pages.sort();
    assert_eq!(marked, pages);
}

/// A planted wrong figure is caught, and the row as run is given.
#[test]
fn a_row_that_differs_from_its_run_is_named() {
    let page =
        "<!-- rerun: gpusched sim --mix mixes/two_streams.toml --isolated {tmp} --json -->\n\
        | `--kernel-sched` | cycles | `mm` turnaround | blocks preempted | ANTT |\n\
        |---|---:|---:|---|---:|\n\
        | `fcfs` (comment `x`) | 1 | 2 | — | 9.99 |\n";
    let cache = tempfile::tempdir().unwrap();
    let (rows, differ) = rerun_tables(page, cache.path());
    assert_eq!(rows, 1);
    let (written, run) = &differ[0];
    assert!(written.contains("| 1 | 2 |"), "{written}");
    assert!(run.starts_with("| `fcfs` (comment `x`) | "), "{run}");
    assert!(!run.contains("| 1 | 2 |") && !run.contains("9.99"), "{run}");
    assert_eq!(
        row_options("`maestro --epoch 10000` (`twoway`, Chimera)"),
        ["maestro", "--epoch", "10000"]
    );
    assert_eq!(grouped(1_234_567), "1,234,567");
}

/// The README's first simulation prints what the README shows (its lines before `...`).
#[test]
fn the_readme_shows_what_its_first_simulation_prints() {
    let Some(trace) = gpusim::testing::shared_trace("matrixmul-32-32") else {
        return;
    };
    let readme = std::fs::read_to_string(docs().join("../../README.md")).unwrap();
    let command =
        "target/release/gpusched sim --trace ../shared/traces/matrixmul-32-32 --warp-sched gto";
    assert!(readme.contains(command), "the README runs {command}");
    let shown: Vec<&str> = readme
        .split("and prints:\n\n```\n")
        .nth(1)
        .expect("the README shows the output")
        .lines()
        .take_while(|l| l.trim() != "...")
        .collect();
    let o = gpusched(&[
        "sim",
        "--trace",
        trace.to_str().unwrap(),
        "--warp-sched",
        "gto",
    ]);
    assert!(o.status.success());
    let printed = String::from_utf8_lossy(&o.stdout).into_owned();
    let printed: Vec<&str> = printed.lines().take(shown.len()).collect();
    assert!(shown.len() >= 4, "{shown:?}");
    assert_eq!(shown, printed, "README.md's first simulation");
}
