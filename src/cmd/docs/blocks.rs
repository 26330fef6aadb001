//! One page per hardware block, `docs/src/blocks/<name>.md`, written from what the project
//! already keeps current: the registry's catalog (summary, policies, presets), the golden
//! model's module documentation (`sim/src/blocks/<name>/mod.rs`, compiled in), the emitted
//! modules' parameters and ports (`rtl-out/manifest.json`) and their synthesis and FPGA figures
//! (`rtl-out/REPORT.md`, itself checked by `gpusched gen --check`). Guides that link to a block's
//! page are listed on it.

use anyhow::{Context, Result};
use gpusched_gen::manifest::{Manifest, ModuleEntry, PortDecl, PortDir};
use gpusched_gen::{fpga::table as fpga_table, report};
use gpusim::blocks::{catalog, BlockInfo};
use std::path::Path;

macro_rules! golden_sources {
    ($($b:ident)*) => {
        /// (block, source of its golden model's `mod.rs`), in registry order.
        const GOLDEN_SOURCES: &[(&str, &str)] = &[$((
            stringify!($b),
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"), "/sim/src/blocks/", stringify!($b), "/mod.rs"
            )),
        )),*];
    };
}
gpusched_registry::blocks!(golden_sources);

/// Directory of the block pages inside `docs/src`.
pub const DIR: &str = "blocks";

/// The pages: (file name inside [`DIR`], Markdown), one per block of the registry. `src` is
/// `docs/src` (scanned for guides that link to a page), `rtl` the `rtl-out/` directory.
pub fn pages(src: &Path, rtl: &Path) -> Result<Vec<(String, String)>> {
    let manifest_path = rtl.join("manifest.json");
    let manifest: Manifest = serde_json::from_str(
        &std::fs::read_to_string(&manifest_path)
            .with_context(|| format!("reading {}", manifest_path.display()))?,
    )
    .with_context(|| format!("parsing {}", manifest_path.display()))?;
    let report_path = rtl.join(report::REPORT);
    let report_text = std::fs::read_to_string(&report_path)
        .with_context(|| format!("reading {}", report_path.display()))?;
    let guides = guides(src)?;
    let (rows, fpga) = (
        report::rows_in(&report_text),
        fpga_table::rows_in(&report_text),
    );
    Ok(catalog()
        .iter()
        .map(|b| {
            let modules: Vec<&ModuleEntry> = manifest
                .modules
                .iter()
                .filter(|m| m.block == b.name)
                .collect();
            let page = Page {
                block: b,
                modules: &modules,
                report: &report_text,
                rows: &rows,
                fpga: &fpga,
                guides: &guides,
            };
            (format!("{}.md", b.name), page.render())
        })
        .collect())
}

/// The guides of `src` (not the generated pages): (file name, title, text); none when `src`
/// does not exist yet.
fn guides(src: &Path) -> Result<Vec<(String, String, String)>> {
    let mut out = vec![];
    let Ok(entries) = std::fs::read_dir(src) else {
        return Ok(out);
    };
    for e in entries {
        let p = e
            .with_context(|| format!("reading {}", src.display()))?
            .path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if !name.ends_with(".md") || name == "SUMMARY.md" || name == "cli.md" {
            continue;
        }
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        let title = text
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .unwrap_or(name)
            .to_string();
        out.push((name.to_string(), title, text));
    }
    out.sort();
    Ok(out)
}

/// What one block's page is made of.
struct Page<'a> {
    block: &'a BlockInfo,
    modules: &'a [&'a ModuleEntry],
    /// `REPORT.md`'s text, its synthesis rows and its FPGA rows.
    report: &'a str,
    rows: &'a [report::Row],
    fpga: &'a [fpga_table::FpgaRow],
    guides: &'a [(String, String, String)],
}

impl Page<'_> {
    fn render(&self) -> String {
        let b = self.block;
        let mut s = format!("# `{}`\n\n{}\n\n", b.name, b.summary);
        s.push_str(&format!(
            "Written by `gpusched docs` (do not edit; a test fails when it is stale) from the \
             block's registry entry, its golden model's documentation \
             (`sim/src/blocks/{0}/mod.rs`), `rtl-out/manifest.json` and `rtl-out/REPORT.md`. \
             RTL: `hdl/src/{0}/`; `gpusched cosim --block {0} --policy <policy>` runs it in \
             lockstep with the golden model.\n",
            b.name
        ));
        let linked: Vec<String> = self
            .guides
            .iter()
            .filter(|(_, _, text)| text.contains(&format!("blocks/{}.md", b.name)))
            .map(|(file, title, _)| format!("[{title}](../{file})"))
            .collect();
        if !linked.is_empty() {
            s.push_str(&format!("\nGuides: {}.\n", linked.join(", ")));
        }
        s.push_str(&self.modules_section());
        s.push_str(&self.ports_section());
        s.push_str(&self.cost_section());
        s.push_str(&self.budget_sections());
        s.push_str("\n## Behaviour\n\nFrom the golden model's documentation.\n\n");
        s.push_str(&module_doc(golden_source(b.name)));
        s
    }

    /// Policies x presets: the emitted modules and their parameters.
    fn modules_section(&self) -> String {
        let b = self.block;
        let mut s = format!(
            "\n## Modules\n\nPolicies: {}. Presets: {}. One Verilog module per policy and \
             preset, `rtl-out/<module>.v`.\n\n| module | policy | preset | parameters |\n|---|---|\
             ---|---|\n",
            code_list(b.policies),
            code_list(b.presets)
        );
        for m in self.modules {
            let params: Vec<String> = m.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                m.module,
                m.policy,
                m.preset,
                params.join(", ")
            ));
        }
        s
    }

    /// Ports with their widths per module (arrays as `count x width`).
    fn ports_section(&self) -> String {
        let columns = port_columns(self.modules);
        let mut rows: Vec<(String, PortDir)> = vec![];
        for (_, ports) in &columns {
            for p in ports {
                if !rows.iter().any(|(n, _)| *n == p.name) {
                    rows.push((p.name.clone(), p.dir));
                }
            }
        }
        let mut s = String::from(
            "\n## Ports\n\nBesides `clock` and `reset` (synchronous, active high). An array \
             `x_k` is the ports `x_0`, `x_1`, ... (`count x width` bits); widths in bits.\n\n\
             | port | direction |",
        );
        for (head, _) in &columns {
            s.push_str(&format!(" {head} |"));
        }
        s.push_str("\n|---|---|");
        s.push_str(&"---:|".repeat(columns.len()));
        s.push('\n');
        for (name, dir) in rows.iter().filter(|(n, _)| n != "clock" && n != "reset") {
            let dir = match dir {
                PortDir::Input => "in",
                PortDir::Output => "out",
            };
            s.push_str(&format!("| `{name}` | {dir} |"));
            for (_, ports) in &columns {
                let cell = ports
                    .iter()
                    .find(|p| p.name == *name)
                    .map(|p| match p.count {
                        None => p.width.to_string(),
                        Some(n) => format!("{n} x {}", p.width),
                    })
                    .unwrap_or_else(|| "-".into());
                s.push_str(&format!(" {cell} |"));
            }
            s.push('\n');
        }
        s
    }

    /// Synthesis and FPGA rows of the block's modules.
    fn cost_section(&self) -> String {
        let mut s = String::from(
            "\n## Cost\n\nFrom `rtl-out/REPORT.md` (its first section says how each figure is \
             measured). Yosys `synth_xilinx`:\n\n| module | LUTs | flip-flops | CARRY4 | MUXF7/8 \
             | 7-series depth | LUT6 depth |\n|---|---:|---:|---:|---:|---:|---:|\n",
        );
        for m in self.modules {
            if let Some(r) = self.rows.iter().find(|r| r.module == m.module) {
                let f = &r.xilinx;
                s.push_str(&format!(
                    "| `{}` | {} | {} | {} | {} | {} | {} |\n",
                    m.module, f.luts, f.ffs, f.carry, f.muxf, f.depth, r.lut6_depth
                ));
            }
        }
        s.push_str(
            "\nPlace and route of each module's self-test wrapper (`gpusched fpga`):\n\n| module \
             | board | status | logic | block RAM | Fmax (MHz) | target (MHz) |\n|---|---|---|---|\
             ---:|---:|---|\n",
        );
        for r in self.fpga {
            if !self.modules.iter().any(|m| m.module == r.module) {
                continue;
            }
            s.push_str(&format!(
                "| `{}` | {} | {} | {} | {} | {} | {} |\n",
                r.module,
                r.board,
                r.status,
                r.logic,
                r.ram,
                r.fmax.map_or("-".into(), |f| format!("{f:.1}")),
                r.target_cell()
            ));
        }
        s
    }

    /// The sections of `REPORT.md` (before its FPGA section) about budgets with a row of one
    /// of the block's modules (its storage against the paper's budget), their tables cut to
    /// the block's rows.
    fn budget_sections(&self) -> String {
        let figures = fpga_table::before_section(self.report);
        let ours = |line: &str| {
            self.modules
                .iter()
                .any(|m| line.starts_with(&format!("| {} |", m.module)))
        };
        let mut s = String::new();
        for section in figures.split("\n## ").skip(1) {
            if !section.contains("budget") || !section.lines().any(ours) {
                continue;
            }
            // A table line is kept when it is the header, the rule or one of ours.
            let mut in_table = 0;
            let kept: Vec<&str> = section
                .lines()
                .filter(|l| {
                    if !l.starts_with('|') {
                        in_table = 0;
                        return true;
                    }
                    in_table += 1;
                    in_table <= 2 || ours(l)
                })
                .collect();
            s.push_str(&format!("\n### {}\n", kept.join("\n").trim_end()));
        }
        if !s.is_empty() {
            s.insert_str(
                0,
                "\nAgainst the paper's hardware budget, from `rtl-out/REPORT.md`:\n",
            );
        }
        s
    }
}

/// `a`, `b` as Markdown code spans.
fn code_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One row of a port table: a scalar port or a whole array.
struct PortRow {
    /// `x` or, for an array, `x_k`.
    name: String,
    dir: PortDir,
    width: u32,
    /// Elements of an array (`None`: a scalar).
    count: Option<usize>,
}

/// The ports of `ports` with each array `x_0, x_1, ...` (same direction and width, indices
/// from 0 in order) folded into one row.
fn fold_arrays(ports: &[PortDecl]) -> Vec<PortRow> {
    let mut out: Vec<PortRow> = vec![];
    for p in ports {
        let element = p
            .name
            .rsplit_once('_')
            .and_then(|(stem, k)| Some((stem, k.parse::<usize>().ok()?)));
        if let Some((stem, k)) = element {
            let row_name = format!("{stem}_k");
            if let Some(last) = out.last_mut() {
                if last.name == row_name
                    && last.dir == p.dir
                    && last.width == p.width
                    && last.count == Some(k)
                {
                    last.count = Some(k + 1);
                    continue;
                }
            }
            if k == 0 {
                out.push(PortRow {
                    name: row_name,
                    dir: p.dir,
                    width: p.width,
                    count: Some(1),
                });
                continue;
            }
        }
        out.push(PortRow {
            name: p.name.clone(),
            dir: p.dir,
            width: p.width,
            count: None,
        });
    }
    out
}

/// The columns of a port table: one per preset when every policy of a preset has the same
/// ports, else one per module.
fn port_columns(modules: &[&ModuleEntry]) -> Vec<(String, Vec<PortRow>)> {
    let per_preset_alike = modules.iter().all(|m| {
        modules
            .iter()
            .filter(|o| o.preset == m.preset)
            .all(|o| o.ports == m.ports)
    });
    let mut out: Vec<(String, Vec<PortRow>)> = vec![];
    for m in modules {
        let head = if per_preset_alike {
            m.preset.clone()
        } else {
            format!("`{}`", m.module)
        };
        if !out.iter().any(|(h, _)| *h == head) {
            out.push((head, fold_arrays(&m.ports)));
        }
    }
    out
}

/// The golden model's source of `block`.
fn golden_source(block: &str) -> &'static str {
    GOLDEN_SOURCES
        .iter()
        .find(|(b, _)| *b == block)
        .map(|(_, src)| *src)
        .unwrap_or_default()
}

/// The `//!` documentation of a Rust source as Markdown for the page: headings two levels
/// down (under the page's `## Behaviour`), rustdoc's intra-doc links as plain code spans.
fn module_doc(source: &str) -> String {
    let mut out = String::new();
    let mut fence = false;
    for line in source.lines() {
        let Some(text) = line.strip_prefix("//!") else {
            if line.trim().is_empty() {
                continue;
            }
            break;
        };
        let text = text.strip_prefix(' ').unwrap_or(text);
        if text.starts_with("```") {
            fence = !fence;
            out.push_str(if text == "```" && fence {
                "```text"
            } else {
                text
            });
        } else if fence {
            out.push_str(text);
        } else if text.starts_with('#') {
            out.push_str(&format!("##{text}"));
        } else {
            out.push_str(&plain_links(text));
        }
        out.push('\n');
    }
    out
}

/// `text` with rustdoc's intra-doc links (`` [`x`] ``, `` [`x`](crate::y) ``, `[x](y::z)`)
/// reduced to their label, ordinary links (`[x](page.md)`, `[x](https://...)`) kept and other
/// bracketed words (`[REC]`) escaped.
fn plain_links(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let Some(close) = after.find(']') else {
            out.push_str(&rest[open..]);
            return out;
        };
        let label = &after[..close];
        let tail = &after[close + 1..];
        match tail.strip_prefix('(').and_then(|t| t.split_once(')')) {
            Some((target, next)) if is_rust_path(target) => {
                out.push_str(label);
                rest = next;
            }
            Some(_) => {
                out.push('[');
                out.push_str(label);
                out.push(']');
                rest = tail;
            }
            None if label.starts_with('`') && label.ends_with('`') => {
                out.push_str(label);
                rest = tail;
            }
            None => {
                // A bracketed word that is no link (`[REC]`): escaped, so that Markdown does not
                // read it as a reference link.
                out.push_str(&format!("\\[{label}\\]"));
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether a link target is a Rust item path (`crate::x::Y`, `Self::f`, `y`) rather than a
/// file or a web address.
fn is_rust_path(target: &str) -> bool {
    !target.is_empty()
        && !target.contains('/')
        && !target.contains('.')
        && !target.contains('#')
        && target.chars().all(|c| {
            c.is_alphanumeric() || c == '_' || c == ':' || c == '!' || c == '<' || c == '>'
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intra_doc_links_become_code_spans_and_files_stay_links() {
        assert_eq!(
            plain_links("see [`warp_locality`] and [`x`](crate::a::B) or [spec](spec.md)"),
            "see `warp_locality` and `x` or [spec](spec.md)"
        );
        assert_eq!(plain_links("a [REC] c [d"), "a \\[REC\\] c [d");
    }

    #[test]
    fn module_doc_demotes_headings_and_stops_at_code() {
        let src = "//! Title line.\n//!\n//! # Ports\n//! * [`a`]\n\nuse x;\n//! not doc\n";
        assert_eq!(module_doc(src), "Title line.\n\n### Ports\n* `a`\n");
    }

    #[test]
    fn arrays_fold_into_one_row_and_scalars_stay() {
        let p = |name: &str, width| PortDecl {
            name: name.into(),
            dir: PortDir::Input,
            width,
        };
        let rows = fold_arrays(&[p("ready_0", 8), p("ready_1", 8), p("room2", 4), p("x_1", 3)]);
        let got: Vec<(String, Option<usize>)> =
            rows.iter().map(|r| (r.name.clone(), r.count)).collect();
        assert_eq!(
            got,
            vec![
                ("ready_k".into(), Some(2)),
                ("room2".into(), None),
                ("x_1".into(), None)
            ]
        );
    }
}
