//! The documentation's internal links: every relative link of `README.md` and `docs/src/*.md`
//! names a file of the repository, and every `#anchor` a heading of the page it points to
//! (GitHub's and mdBook's anchor rule). Links into `../shared/` (beside the repository) and to
//! web addresses are not checked. And its figures: each is on a page it links to, in one of
//! its rerun tables, or declared with where it comes from.

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

/// The storage ratios (state bits over the paper's bits) of `block`'s `fermi` modules in
/// `rtl-out/REPORT.md`'s budget section, sorted.
fn report_ratios(report: &str, block: &str) -> Vec<String> {
    let section = report
        .split("## Storage against the papers' budgets")
        .nth(1)
        .expect("REPORT.md has its budget section");
    let mut v: Vec<String> = section
        .lines()
        .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
        .filter(|c| {
            c.len() > 6
                && c[1]
                    .strip_prefix(&format!("{block}_"))
                    .is_some_and(|m| m.ends_with("_fermi"))
        })
        .flat_map(|c| numbers(c[6]))
        .collect();
    v.sort();
    v
}

/// The README's status table gives each block's Fmax as `rtl-out/REPORT.md` has it (the
/// `fermi` modules on the ULX3S, the `proto` ones on the iCEBreaker) and its `fermi` modules'
/// storage against the paper's budget.
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
        assert_eq!(
            numbers(cells[6]),
            report_ratios(&report, block),
            "README status row of `{block}`, storage against the paper: `{}`",
            cells[6]
        );
        rows += 1;
    }
    assert_eq!(
        rows,
        gpusim::blocks::catalog().len(),
        "one status row per block of the registry"
    );
}

/// The figures a page may give: those of the results pages (`docs/src/results/`, what `repro`
/// and `bench` write, checked against reruns by `tests/cli.rs`), of `rtl-out/REPORT.md`
/// (checked by `gen --check`) and of the block pages made from it that it links to, those of its own rerun tables (run again by
/// `tests/doc_runs.rs`), and those it declares in a comment that says where they come from:
/// `<!-- figures not from a run (inputs, the thesis's): 21,000 1.4 -->` (inputs, the papers'
/// figures, wall times) or `<!-- figures checked by tests/cli.rs: 6.7 -->`.
struct Sources {
    numbers: BTreeSet<String>,
    declared: Vec<String>,
}

impl Sources {
    fn of(page: &Path, text: &str) -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .canonicalize()
            .unwrap();
        let generated = [
            root.join("docs/src/results"),
            root.join("docs/src/blocks"),
            root.join("rtl-out/REPORT.md"),
        ];
        let mut linked = BTreeSet::new();
        for (_, line) in prose(text) {
            for t in targets(line) {
                let path = t.split('#').next().unwrap_or_default();
                let Ok(file) = page.parent().unwrap().join(path).canonicalize() else {
                    continue;
                };
                if file.is_file() && generated.iter().any(|g| file.starts_with(g)) {
                    linked.insert(file);
                }
            }
        }
        let mut numbers = BTreeSet::new();
        for file in linked {
            let t = std::fs::read_to_string(&file).unwrap();
            numbers.extend(all_numbers(&t));
        }
        numbers.extend(rerun_rows(text).into_iter().flat_map(all_numbers));
        let declared = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("<!-- figures "))
            .filter_map(|l| Some(l.split_once(':')?.1))
            .flat_map(|l| l.trim_end_matches("-->").split_whitespace())
            .map(String::from)
            .collect();
        Self { numbers, declared }
    }
}

/// Every number of `text` (digits, with `,` groups and one `.`), commas dropped.
fn all_numbers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
        .map(|t| t.trim_matches(|c| c == ',' || c == '.').replace(',', ""))
        .filter(|t| !t.is_empty())
        .collect()
}

/// The rows of the tables under `<!-- rerun: ... -->` markers.
fn rerun_rows(text: &str) -> Vec<&str> {
    let mut rows = vec![];
    let mut under = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("<!-- rerun:") {
            under = true;
        } else if under && t.starts_with('|') {
            rows.push(t);
        } else {
            under = false;
        }
    }
    rows
}

/// Words after which a number is a reference, not a figure (`Table 4.1`, `§2.3`, `Q16.16`).
const REFERENCES: [&str; 11] = [
    "§",
    "Table ",
    "Tables ",
    "Fig. ",
    "Figure ",
    "Eq. ",
    "Q",
    "GPGPU-Sim ",
    "Accel-Sim ",
    "Section ",
    "Chapter ",
];

/// The figures of `line` (outside code spans and link targets): decimals (`1.55`, `-29.5`)
/// and grouped integers (`28,611`), as written. Versions (`3.2.2`) and references are not
/// figures.
fn figures(line: &str) -> Vec<String> {
    let mut plain = String::new();
    for (i, part) in line.split('`').enumerate() {
        plain.push_str(if i % 2 == 0 { part } else { " " });
    }
    for t in targets(line) {
        plain = plain.replace(&format!("]({t})"), "] ");
    }
    let bytes = plain.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    // Where the last reference ended: `§7.1-7.3` and `Eq. 5.1/5.2` are references throughout.
    let mut reference_end = None;
    while i < bytes.len() {
        let starts = bytes[i].is_ascii_digit()
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'.'));
        if !starts {
            i += 1;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&j| !(bytes[j].is_ascii_digit() || bytes[j] == b',' || bytes[j] == b'.'))
            .unwrap_or(bytes.len());
        let token = plain[i..end].trim_end_matches([',', '.']);
        let dots = token.matches('.').count();
        let grouped = token.contains(',')
            && token.split(',').skip(1).all(|g| g.len() == 3)
            && token.split(',').next().is_some_and(|g| g.len() <= 3);
        let figure = (dots == 1 && !token.contains(',')) || (grouped && dots <= 1);
        let before = &plain[..i];
        let range = reference_end.is_some_and(|e| matches!(&plain[e..i], "-" | "/"));
        let reference = range || REFERENCES.iter().any(|r| before.ends_with(r));
        reference_end = reference.then_some(end);
        if figure && !reference {
            let sign = before.chars().last().filter(|c| *c == '-' || *c == '+');
            out.push(format!(
                "{}{token}",
                sign.map(String::from).unwrap_or_default()
            ));
        }
        i = end;
    }
    out
}

/// The figures of `text` that none of `sources` gives (`line: figure`), then the declared ones
/// the page no longer gives.
fn unsourced(text: &str, sources: &Sources) -> Vec<String> {
    let rerun: BTreeSet<&str> = rerun_rows(text).into_iter().collect();
    let mut out = vec![];
    let mut given = BTreeSet::new();
    for (n, line) in prose(text) {
        if rerun.contains(line.trim()) || line.trim_start().starts_with("<!--") {
            continue;
        }
        for f in figures(line) {
            let bare = f.trim_start_matches(['-', '+']).replace(',', "");
            given.insert(f.clone());
            if !sources.numbers.contains(&bare) && !sources.declared.contains(&f) {
                out.push(format!("{n}: {f}"));
            }
        }
    }
    let stale = sources.declared.iter().filter(|d| !given.contains(*d));
    out.extend(stale.map(|d| format!("declared but not given: {d}")));
    out
}

/// Every figure of the documentation is current: each page (but the generated results, block
/// and command pages and the dated experiment log) gives only figures of the results pages and
/// the report it links to, of its rerun tables, or declared as no run's (`Sources`). So a
/// figure typed by hand from a run fails here, and results written again with other figures
/// fail here until the pages that quote them say them.
#[test]
fn every_figure_of_the_documentation_is_on_a_page_it_links_to() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let generated = ["results", "blocks", "cli", "notes"].map(|d| src.join(d));
    let mut bad = vec![];
    for page in pages() {
        if generated.iter().any(|g| page.starts_with(g)) {
            continue;
        }
        let text = std::fs::read_to_string(&page).unwrap();
        let sources = Sources::of(&page, &text);
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        bad.extend(
            unsourced(&text, &sources)
                .into_iter()
                .map(|u| format!("{name}:{u}")),
        );
    }
    assert!(
        bad.is_empty(),
        "figures that no linked results page, report or rerun table gives (declare inputs and \
         the papers' figures in `<!-- figures not from a run: ... -->`):\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_figure_check_finds_a_typed_figure_and_a_stale_declaration() {
    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/x.md");
    let text = "See [the page](results/chimera-gtx480.md): 572,220 cycles, +5.0%, 1.59x, \
                §4.6 and Table 5.3, GPGPU-Sim 3.2.2, `9.99`.\n\
                Typed by hand: 7.77 and 12,345 and -3.5; declared 21,000.\n\
                <!-- figures not from a run (inputs): 21,000 4.2 -->\n";
    let sources = Sources::of(&page, text);
    assert_eq!(
        unsourced(text, &sources),
        [
            "2: 7.77",
            "2: 12,345",
            "2: -3.5",
            "declared but not given: 4.2"
        ]
    );
    assert_eq!(
        figures("ANTT 1.5 (x2.0), v1, 3.2.2, 10.0.1, §1.5-1.7, 1,536 threads, 12345, L1,2, -0.7"),
        ["1.5", "1,536", "-0.7"]
    );
}

/// Every table row of a chapter whose first cell starts a row of a results page it links to is
/// that row, so a chapter's copy of a results table cannot drift from it. The dated experiment
/// logs (`notes/`) keep the rows of the runs they record, as the figure check lets them.
#[test]
fn the_chapters_table_rows_are_their_results_pages_rows() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src");
    let exempt = ["results", "notes"].map(|d| src.join(d));
    let mut bad = vec![];
    for page in pages()
        .into_iter()
        .filter(|p| !exempt.iter().any(|e| p.starts_with(e)))
    {
        let text = std::fs::read_to_string(&page).unwrap();
        let dir = page.parent().unwrap();
        let linked: String = prose(&text)
            .into_iter()
            .flat_map(|(_, l)| targets(l))
            .filter(|t| t.contains("results/"))
            .filter_map(|t| std::fs::read_to_string(dir.join(t.split('#').next()?)).ok())
            .collect();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        bad.extend(
            drifted_rows(&text, &linked)
                .into_iter()
                .map(|r| format!("{name}: {r}")),
        );
    }
    assert!(
        bad.is_empty(),
        "rows that differ from their results page:\n{}",
        bad.join("\n")
    );
    let page = "| all (2) | ANTT | 1.5 |\n";
    assert_eq!(
        drifted_rows("| all (2) | ANTT | 1.4 |\n| other | 1 |\n", page),
        ["| all (2) | ANTT | 1.4 |"]
    );
}

/// The table rows of `chapter` whose first cell starts a row of `page` but that are not rows
/// of it.
fn drifted_rows(chapter: &str, page: &str) -> Vec<String> {
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| ")).collect();
    let mut out = vec![];
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
