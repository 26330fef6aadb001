//! The documentation's internal links: every relative link of `README.md` and `docs/src/*.md`
//! names a file of the repository, and every `#anchor` a heading of the page it points to
//! (GitHub's and mdBook's anchor rule). Links into `../shared/` (beside the repository) and to
//! web addresses are not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// A heading's anchor: lower case, only letters, digits, `_`, `-` and spaces, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of `text` outside fenced code blocks, numbered from 1.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fence = false;
    let mut out = vec![];
    for (i, line) in text.lines().enumerate() {
        if line.starts_with("```") {
            fence = !fence;
        } else if !fence {
            out.push((i + 1, line));
        }
    }
    out
}

/// The anchors of the headings of `text`.
fn anchors(text: &str) -> BTreeSet<String> {
    prose(text)
        .into_iter()
        .filter_map(|(_, l)| {
            let rest = l.trim_start_matches('#');
            (l.starts_with('#') && rest.starts_with(' ')).then(|| anchor(rest))
        })
        .collect()
}

/// The targets of the Markdown links `[label](target)` on `line`.
fn targets(line: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let t = &after[..end];
        if !t.contains(char::is_whitespace) {
            out.push(t);
        }
        rest = &after[end..];
    }
    out
}

/// The broken internal links of page `page` (text `text`): `file:line: target`.
fn broken(page: &Path, text: &str) -> Vec<String> {
    let dir = page.parent().expect("a page in a directory");
    let mut out = vec![];
    for (n, line) in prose(text) {
        for t in targets(line) {
            if t.starts_with("http") || t.starts_with("mailto:") || t.contains("/shared/") {
                continue;
            }
            let (path, frag) = t.split_once('#').unwrap_or((t, ""));
            let ok = if path.is_empty() {
                anchors(text).contains(frag)
            } else {
                let file = dir.join(path);
                match std::fs::read_to_string(&file) {
                    Ok(target) if !frag.is_empty() && path.ends_with(".md") => {
                        anchors(&target).contains(frag)
                    }
                    _ => file.exists(),
                }
            };
            if !ok {
                out.push(format!("{}:{n}: {t}", page.display()));
            }
        }
    }
    out
}

/// `README.md`, then every Markdown page under `docs/src` (subdirectories included), sorted.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut md = vec![];
    let mut dirs = vec![root.join("docs/src")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).expect("a docs directory") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                md.push(p);
            }
        }
    }
    md.sort();
    let mut v = vec![root.join("README.md")];
    v.extend(md);
    v
}

#[test]
fn every_internal_link_of_the_documentation_resolves() {
    let mut bad = vec![];
    for p in pages() {
        let text = std::fs::read_to_string(&p).unwrap();
        bad.extend(broken(&p, &text));
    }
    assert_eq!(bad, Vec::<String>::new());
}

#[test]
fn the_checker_finds_a_missing_file_and_a_missing_anchor() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/x.md");
    let text = "# Here\n\n[a](../../README.md#quick-start) [b](nope.md) [c](#here) [d](#gone)\n\
                [e](../../README.md#no-such-heading)\n```\n[f](ignored.md)\n```\n";
    assert_eq!(
        broken(&page, text),
        [
            format!("{}:3: nope.md", page.display()),
            format!("{}:3: #gone", page.display()),
            format!("{}:4: ../../README.md#no-such-heading", page.display()),
        ]
    );
}

#[test]
fn the_summary_lists_every_page_and_the_readme_stays_short() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let summary = std::fs::read_to_string(root.join("docs/src/SUMMARY.md")).unwrap();
    let src = root.join("docs/src");
    for p in pages().iter().skip(1) {
        let name = p.strip_prefix(&src).unwrap().to_str().unwrap();
        if name != "SUMMARY.md" {
            assert!(
                summary.contains(&format!("({name})")),
                "SUMMARY.md lacks {name}"
            );
        }
    }
    let readme = std::fs::metadata(root.join("README.md")).unwrap().len();
    assert!(
        readme <= 10 * 1024,
        "README.md is {readme} bytes (at most 10 KB)"
    );
}

/// The numbers of a status-table cell (`9.7 (pipelined 24.3)` -> 9.7, 24.3), sorted.
fn numbers(cell: &str) -> Vec<String> {
    let mut v: Vec<String> = cell
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter(|t| t.contains('.') && t.parse::<f64>().is_ok())
        .map(String::from)
        .collect();
    v.sort();
    v
}

/// The Fmax figures (MHz, as `REPORT.md` prints them) of the `REPORT.md` FPGA rows on `board`
/// of the modules `<block>_<policy>_<preset>`, sorted.
fn report_fmax(report: &str, block: &str, preset: &str, board: &str) -> Vec<String> {
    let mut v: Vec<String> = gpusched_gen::fpga::table::rows_in(report)
        .into_iter()
        .filter(|r| r.board == board)
        .filter(|r| {
            r.module
                .strip_prefix(&format!("{block}_"))
                .is_some_and(|m| m.ends_with(&format!("_{preset}")))
        })
        .filter_map(|r| r.fmax.map(|f| format!("{f:.1}")))
        .collect();
    v.sort();
    v
}

/// The README's status table gives each block's Fmax as `rtl-out/REPORT.md` has it: the
/// `fermi` modules on the ULX3S, the `proto` ones on the iCEBreaker.
#[test]
fn the_readme_status_table_has_the_reports_fmax() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let report = std::fs::read_to_string(root.join("rtl-out/REPORT.md")).unwrap();
    let mut rows = 0;
    for line in readme.lines().filter(|l| l.starts_with("| [`")) {
        let cells: Vec<&str> = line.split(" | ").collect();
        let block = cells[0].split('`').nth(1).unwrap();
        for (cell, preset, board) in [
            (cells[4], "fermi", "ulx3s"),
            (cells[5], "proto", "icebreaker"),
        ] {
            assert_eq!(
                numbers(cell),
                report_fmax(&report, block, preset, board),
                "README status row of `{block}`, {preset} on the {board}: `{cell}`"
            );
        }
        rows += 1;
    }
    assert_eq!(rows, 11, "status rows");
}

/// The experiment chapters quote the results pages (`docs/src/results/`, what `repro` writes,
/// checked against a rerun by `tests/cli.rs`): every signed percentage a chapter gives
/// (`+5.8%`) is on its results page, and every table row of the chapter whose first cell
/// starts a row of the results page is that row. So results written again with other figures
/// fail here until the chapter says them.
#[test]
fn the_experiment_chapters_quote_their_results_pages() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let chapters: [(&str, &[&str]); 5] = [
        (
            "the-elf-experiment.md",
            &["elf.md", "elf-gtx480-3.2.2.md", "elf-gtx480.md"],
        ),
        (
            "locality-aware-dispatch-and-warp-scheduling-seed-000.md",
            &[
                "locality.md",
                "locality-gtx480-3.2.2.md",
                "locality-gtx480.md",
            ],
        ),
        (
            "chimera-seed-003-ch-iv.md",
            &["chimera.md", "chimera-gtx480-3.2.2.md", "chimera-gtx480.md"],
        ),
        (
            "gpu-maestro-seed-003-ch-v.md",
            &["maestro.md", "maestro-gtx980-3.2.2.md", "maestro-gtx980.md"],
        ),
        (
            "paver-seed-004.md",
            &["paver.md", "paver-titanx.md", "paver-titanv.md"],
        ),
    ];
    for (chapter, pages) in chapters {
        let text = std::fs::read_to_string(src.join(chapter)).unwrap();
        let page: String = pages
            .iter()
            .map(|p| std::fs::read_to_string(src.join("results").join(p)).unwrap())
            .collect();
        let results = pages.join(", ");
        let unquoted = unquoted_figures(&text, &page);
        assert!(
            unquoted.is_empty(),
            "{chapter} gives figures that results/{results} does not have: {unquoted:?}"
        );
    }
    // A chapter with a figure the page lacks, and a table row that differs from the page's.
    let page = "| all (2) | ANTT | 1.5 |\nspeedup +5.8%\n";
    assert_eq!(
        unquoted_figures(
            "ELF gains +5.8% and +6.1%.\n\n| all (2) | ANTT | 1.4 |\n",
            page
        ),
        ["+6.1%", "| all (2) | ANTT | 1.4 |"]
    );
}

/// The signed percentages of `chapter` (outside code) that `page` does not contain, then the
/// table rows of `chapter` whose first cell starts a row of `page` but that are not rows of it.
fn unquoted_figures(chapter: &str, page: &str) -> Vec<String> {
    let mut out = vec![];
    for (_, line) in prose(chapter) {
        let bytes = line.as_bytes();
        for (i, c) in line.char_indices() {
            if (c == '+' || c == '-') && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
                let rest = &line[i + 1..];
                let end = rest
                    .find(|ch: char| !(ch.is_ascii_digit() || ch == '.'))
                    .unwrap_or(rest.len());
                let figure = format!("{c}{}%", &rest[..end]);
                if rest[end..].starts_with('%')
                    && rest[..end].contains('.')
                    && !page.contains(&figure)
                {
                    out.push(figure);
                }
            }
        }
    }
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| ")).collect();
    for (_, line) in prose(chapter)
        .into_iter()
        .filter(|(_, l)| l.trim_start().starts_with("| "))
    {
        let line = line.trim_start();
        let first = line.split(" | ").next().unwrap_or_default();
        let same_first = rows
            .iter()
            .any(|r| r.split(" | ").next() == Some(first) && first.len() > 2);
        if same_first && !rows.contains(&line) {
            out.push(line.to_string());
        }
    }
    out
}
