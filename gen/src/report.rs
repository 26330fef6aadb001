//! `rtl-out/REPORT.md`: FPGA figures of every module `gen` emits (every block of the registry x
//! policy x preset, in manifest order) and each research block's storage against its paper's
//! budget, which the block declares in its own registry entry ([`BlockKind::paper_budget`]).
//!
//! [`BlockKind::paper_budget`]: gpusim::block::BlockKind::paper_budget
//!
//! Per module: Yosys `synth_xilinx` (7-series cells: LUTs, flip-flops, CARRY4, MUXF7/8, and the
//! cells on the longest path between flip-flops and ports, see [`synth_xilinx`]) and the logic
//! depth in LUT6 levels (generic `synth`, `abc -fast -lut 6`, `ltp -noff`). Every row names the SHA-256 of the Verilog it was
//! synthesized from, so `gpusched gen --check` can tell, without running Yosys, whether the
//! report still describes `rtl-out/`, and `gpusched gen` re-synthesizes only the modules whose
//! Verilog changed (minutes for the ELF `fermi` module and the 80-SM dispatchers). Its last
//! section, place and route of every module's self-test on its board, is written by `gpusched
//! fpga --all` ([`table`]) and kept here as it is; `gen --check` checks its hashes too.

use crate::emit::Generated;
use crate::fpga::table;
use crate::lint::{lut6_depth, synth_xilinx, GateError, XilinxFigures};
use crate::tables::table_bits;
use gpusim::block::{PaperBudget, BUDGET_RATIO_BOUND};
use gpusim::blocks::catalog;
use sha2::{Digest, Sha256};
use std::path::Path;

/// File name of the report in `rtl-out/`.
pub const REPORT: &str = "REPORT.md";

/// Columns of a figures row: module, hash, LUTs, flip-flops, RAM bits, CARRY4, MUXF7/8,
/// 7-series depth, LUT6 depth, critical path.
const ROW_COLUMNS: usize = 10;

/// Named signals shown of a critical path: the first and last ones when it has more.
const PATH_SHOWN: usize = 10;

/// A critical path as the report writes it: `a > b > c`, elided in the middle when long.
fn path_text(path: &[String]) -> String {
    if path.len() <= PATH_SHOWN {
        return path.join(" > ");
    }
    let head = &path[..PATH_SHOWN / 2];
    let tail = &path[path.len() - (PATH_SHOWN / 2 - 1)..];
    format!("{} > ... > {}", head.join(" > "), tail.join(" > "))
}

/// First 16 hex digits of the SHA-256 of `text`.
pub fn short_hash(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One module's figures row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Module name.
    pub module: String,
    /// Short hash of the Verilog synthesized.
    pub hash: String,
    /// `synth_xilinx` figures.
    pub xilinx: XilinxFigures,
    /// Logic depth in LUT6 levels.
    pub lut6_depth: u64,
}

impl Row {
    fn render(&self) -> String {
        let f = &self.xilinx;
        format!(
            "| {} | `{}` | {} | {} | {} | {} | {} | {} | {} | {} |\n",
            self.module,
            self.hash,
            f.luts,
            f.ffs,
            f.ram_bits,
            f.carry,
            f.muxf,
            f.depth,
            self.lut6_depth,
            path_text(&f.path)
        )
    }
}

/// The figures rows of a report's text (lines of the figures table that parse).
pub fn rows_in(report: &str) -> Vec<Row> {
    crate::fpga::table::before_section(report)
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('|').map(str::trim).collect();
            // "| a | b |" splits into ["", a, b, ""].
            if cols.len() != ROW_COLUMNS + 2 || !cols[2].starts_with('`') {
                return None;
            }
            let n: Vec<u64> = cols[3..ROW_COLUMNS]
                .iter()
                .map(|c| c.parse().ok())
                .collect::<Option<_>>()?;
            Some(Row {
                module: cols[1].to_string(),
                hash: cols[2].trim_matches('`').to_string(),
                xilinx: XilinxFigures {
                    luts: n[0],
                    ffs: n[1],
                    ram_bits: n[2],
                    carry: n[3],
                    muxf: n[4],
                    depth: n[5],
                    path: cols[ROW_COLUMNS]
                        .split(" > ")
                        .filter(|s| !s.is_empty())
                        .map(String::from)
                        .collect(),
                },
                lut6_depth: n[6],
            })
        })
        .collect()
}

/// The figures rows of `dir/REPORT.md` (none when it is missing).
pub fn rows_at(dir: &Path) -> Vec<Row> {
    std::fs::read_to_string(dir.join(REPORT))
        .map(|t| rows_in(&t))
        .unwrap_or_default()
}

/// The row of `rows` made from exactly the Verilog of `module` whose [`short_hash`] is `hash`:
/// its figures stand for that text, and Yosys need not run on it again.
pub fn row_for<'a>(rows: &'a [Row], module: &str, hash: &str) -> Option<&'a Row> {
    rows.iter().find(|r| r.module == module && r.hash == hash)
}

/// (module, short hash of its Verilog) of every module `gen` emits, in manifest order.
fn modules(gen: &Generated) -> Vec<(String, String)> {
    gen.manifest
        .modules
        .iter()
        .map(|m| {
            let text = gen
                .files
                .iter()
                .find(|(f, _)| *f == m.file)
                .map(|(_, t)| t.as_str())
                .unwrap_or_default();
            (m.module.clone(), short_hash(text))
        })
        .collect()
}

/// Whether `dir/REPORT.md` was made from the Verilog `gen` produces now and reads as `gen`
/// renders it (`None`: fresh; else why not).
pub fn stale(gen: &Generated, dir: &Path) -> Option<String> {
    let Ok(text) = std::fs::read_to_string(dir.join(REPORT)) else {
        return Some(format!("{REPORT} is missing"));
    };
    let on_disk = rows_in(&text);
    let want = modules(gen);
    for (m, h) in &want {
        match on_disk.iter().find(|r| &r.module == m) {
            Some(r) if &r.hash == h => {}
            Some(_) => return Some(format!("{REPORT} describes an older {m}.v")),
            None => return Some(format!("{REPORT} has no row for {m}")),
        }
    }
    if let Some(r) = on_disk
        .iter()
        .find(|r| !want.iter().any(|(m, _)| *m == r.module))
    {
        return Some(format!(
            "{REPORT} has a row for {}, which gen no longer emits",
            r.module
        ));
    }
    if let Some(why) = table::stale(&text, &fpga_pairs(gen)) {
        return Some(format!("{REPORT}: {why}"));
    }
    // Every row is current: the rest of the text (the storage sections) renders without Yosys.
    match render(gen, dir, &|_| {}) {
        Ok(fresh) if fresh == text => None,
        Ok(_) => Some(format!("{REPORT}'s text differs from what gen renders now")),
        Err(e) => Some(format!("{REPORT} does not render: {e}")),
    }
}

/// The report rendered again from the rows on disk when every module's Xilinx row is current
/// (no Yosys run): how `gpusched fpga --all` brings the targets section up to date after writing
/// FPGA rows. `None` when some module's Verilog in `dir` is not what `gen` produces now.
pub fn render_current(gen: &Generated, dir: &Path) -> Result<Option<String>, GateError> {
    let old = rows_at(dir);
    if modules(gen)
        .iter()
        .any(|(m, h)| row_for(&old, m, h).is_none())
    {
        return Ok(None);
    }
    render(gen, dir, &|_| {}).map(Some)
}

/// Renders the report for the modules of `gen` (written into `dir` first): rows of unchanged
/// Verilog come from the report on disk, the others are synthesized on every core, the largest
/// Verilog first (`progress` names each module as its synthesis starts, from any thread).
pub fn render(
    gen: &Generated,
    dir: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<String, GateError> {
    let old = rows_at(dir);
    let all = modules(gen);
    let mut stale: Vec<&(String, String)> = all
        .iter()
        .filter(|(m, h)| row_for(&old, m, h).is_none())
        .collect();
    let size = |m: &str| std::fs::metadata(dir.join(format!("{m}.v"))).map_or(0, |f| f.len());
    stale.sort_by_key(|(m, _)| std::cmp::Reverse(size(m)));
    let fresh = crate::parallel::map(stale, |(m, hash)| {
        progress(m);
        let file = dir.join(format!("{m}.v"));
        Ok::<_, GateError>(Row {
            xilinx: synth_xilinx(&file, m)?,
            lut6_depth: lut6_depth(&file, m)?,
            module: m.clone(),
            hash: hash.clone(),
        })
    })
    .into_iter()
    .collect::<Result<Vec<Row>, _>>()?;
    let rows: Vec<Row> = all
        .iter()
        .filter_map(|(m, h)| row_for(&old, m, h).or_else(|| row_for(&fresh, m, h)))
        .cloned()
        .collect();
    let mut s = String::new();
    s.push_str("# Hardware figures of the blocks\n\n");
    s.push_str(
        "Generated by `gpusched gen` (do not edit), one row per module in this directory. \
         Yosys `synth_xilinx -flatten` (Xilinx 7-series cells), then `stat`: LUTs, flip-flops, \
         *RAM bits* (the capacity of the RAM cells memories map to: RAMB18E1 18,432 bits, \
         RAMB36E1 36,864, LUT RAM 64 bits per LUT it takes), CARRY4, MUXF7/8; then the \
         flip-flops, RAM cells and I/O buffers are deleted and `ltp` gives \
         *7-series depth*, the cells on the longest path between flip-flops and ports, counting \
         LUTs, MUXF7/8, inverters and every CARRY4 of a carry chain (so wide adders and \
         compares read long); the project's bound of 30 per module applies to it. *LUT6 depth*: \
         generic `synth -flatten`, `abc -fast -lut 6`, `ltp -noff`: LUT levels on the longest \
         path, carry logic mapped into LUTs. *Critical path*: the named signals on the \
         7-series longest path, from where it starts (a register's `.q` or an input) to where it \
         ends (a register's `__d` or an output), through the locals and sub-block ports \
         (`inst__port`: the primitive or sub-block it crosses) it passes. The hash is the \
         SHA-256 (first 16 hex digits) of the Verilog synthesized; `gpusched gen --check` fails \
         when it no longer matches.\n\n",
    );
    s.push_str(
        "| module | Verilog sha256 | LUTs | flip-flops | RAM bits | CARRY4 | MUXF7/8 | 7-series depth | LUT6 depth | critical path |\n",
    );
    s.push_str("|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    for r in &rows {
        s.push_str(&r.render());
    }
    let budgeted = budgeted(gen, &rows);
    s.push_str(&budget_section(&budgeted));
    // The FPGA section as `gpusched fpga --all` left it (place and route is not re-run here).
    let on_disk = std::fs::read_to_string(dir.join(REPORT)).unwrap_or_default();
    let fpga = table::rows_in(&on_disk);
    s.push_str(&targets_section(gen, &budgeted, &fpga));
    s.push_str(&table::section(&fpga, &table::expected(&gen.manifest)));
    Ok(s)
}

/// (module, board, [`table::pair_hash`]) of every row the FPGA section must have, from what
/// `gen` produces now.
fn fpga_pairs(gen: &Generated) -> Vec<(String, &'static str, String)> {
    let text = |name: &str, list: &[(String, String)]| {
        list.iter()
            .find(|(f, _)| f == name)
            .map(|(_, t)| t.clone())
            .unwrap_or_default()
    };
    table::expected(&gen.manifest)
        .into_iter()
        .map(|(m, b, _)| {
            let module = text(&format!("{m}.v"), &gen.files);
            let wrapper = text(&format!("{}/{m}_selftest.v", crate::fpga::DIR), &gen.fpga);
            let hash = table::pair_hash(&module, &wrapper);
            (m, b.name, hash)
        })
        .collect()
}

/// A module whose block declares a paper budget, with its synthesized row.
struct Budgeted<'a> {
    module: String,
    budget: PaperBudget,
    row: &'a Row,
    /// Bits of the memories its Verilog declares ([`table_bits`]).
    table_bits: u64,
}

impl Budgeted<'_> {
    /// State bits: the flip-flops, and the tables' declared bits when Yosys mapped them onto
    /// RAM cells (with no RAM bits, the tables are among the flip-flops already).
    fn state_bits(&self) -> u64 {
        let tables = if self.row.xilinx.ram_bits > 0 {
            self.table_bits
        } else {
            0
        };
        self.row.xilinx.ffs + tables
    }

    /// State bits over the paper's bits, when it gives some.
    fn ratio(&self) -> Option<f64> {
        let paper = self.budget.bits.filter(|&b| b > 0)?;
        Some(self.state_bits() as f64 / paper as f64)
    }
}

/// The modules of `gen` whose block declares a paper budget and that have a row, in manifest
/// order.
fn budgeted<'a>(gen: &Generated, rows: &'a [Row]) -> Vec<Budgeted<'a>> {
    let kinds = catalog();
    gen.manifest
        .modules
        .iter()
        .filter_map(|m| {
            let kind = kinds.iter().find(|k| k.name == m.block)?;
            let text = gen.files.iter().find(|(f, _)| *f == m.file)?;
            Some(Budgeted {
                module: m.module.clone(),
                budget: (kind.paper_budget)(&m.policy, &m.preset)?,
                row: rows.iter().find(|r| r.module == m.module)?,
                table_bits: table_bits(&text.1, &m.module),
            })
        })
        .collect()
}

/// A verdict cell: `yes`, or a bold `no`.
fn verdict(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "**no**"
    }
}

/// The storage section: every module of a block with a paper budget, its flip-flops and RAM
/// bits against the bits the paper counts.
fn budget_section(budgeted: &[Budgeted]) -> String {
    let mut s = String::from(
        "\n## Storage against the papers' budgets\n\n\
         Each research block declares in its own registry entry (`BlockKind::paper_budget`, \
         `sim/src/blocks/<block>/`) the storage its paper counts at the module's parameters and \
         how the paper builds the logic; GPGPU-Sim's baselines have none. *Table bits*: the \
         words x width of the memories the module's Verilog declares (its tables in block or \
         LUT RAM), as a paper counts SRAM; *RAM bits* above is what they occupy once mapped. \
         *State bits* are the flip-flops and the table bits; the ratio is state bits over the \
         paper's bits, and the project's bound is ",
    );
    s.push_str(&format!(
        "{BUDGET_RATIO_BOUND}x.\n\n\
         | module | the paper's storage and structure | paper bits | flip-flops | table bits | \
         ratio | within {BUDGET_RATIO_BOUND}x |\n|---|---|---:|---:|---:|---:|---|\n"
    ));
    for b in budgeted {
        let ratio = b.ratio();
        s.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} |\n",
            b.module,
            b.budget.structure,
            b.budget.bits.map_or("-".into(), |b| b.to_string()),
            b.row.xilinx.ffs,
            b.table_bits,
            ratio.map_or("-".into(), |r| format!("{r:.2}")),
            ratio.map_or("-", |r| verdict(r <= BUDGET_RATIO_BOUND)),
        ));
    }
    s
}

/// Presets and boards of the per-block targets: a `fermi` module at the ULX3S's clock, a
/// `proto` one at the iCEBreaker's.
const BOARD_TARGETS: [(&str, &str); 2] = [("fermi", "ulx3s"), ("proto", "icebreaker")];

/// One module against the targets: its Fmax on the board (`None`: no row, or it did not place)
/// and its storage ratio (`None`: the paper gives no figure).
struct Candidate<'a> {
    module: &'a str,
    fmax: Option<f64>,
    ratio: Option<f64>,
}

impl Candidate<'_> {
    /// Whether it runs at `clock` MHz within the storage bound (no paper figure: no bound).
    fn meets(&self, clock: u32) -> bool {
        self.fmax.is_some_and(|f| f >= clock as f64)
            && self.ratio.is_none_or(|r| r <= BUDGET_RATIO_BOUND)
    }

    /// `24.3 MHz, 3.49x (`elf_pipelined_fermi`)`.
    fn cell(&self) -> String {
        let fmax = self
            .fmax
            .map_or("does not place".into(), |f| format!("{f:.1} MHz"));
        let ratio = self.ratio.map_or(String::new(), |r| format!(", {r:.2}x"));
        format!("{fmax}{ratio} (`{}`)", self.module)
    }
}

/// Per research block (those with a paper budget): a `fermi` module at the ULX3S's clock and
/// a `proto` one at the iCEBreaker's, each within the storage bound. Each cell shows a module
/// that meets both, else the fastest one.
fn targets_section(gen: &Generated, budgeted: &[Budgeted], fpga: &[table::FpgaRow]) -> String {
    let mut s = String::from(
        "\n## Targets per block\n\n\
         Per research block: a `fermi` module placed and routed on the ULX3S at the board's \
         25 MHz clock and a `proto` module on the iCEBreaker at 12 MHz (the FPGA section \
         below), each keeping its state within the storage bound of the section above. A cell \
         shows a module that meets both, else the fastest.\n\n\
         | block | `fermi`, ULX3S | `proto`, iCEBreaker | met |\n|---|---|---|---|\n",
    );
    for kind in catalog() {
        let of_kind = |e: &&crate::manifest::ModuleEntry| e.block == kind.name;
        if !gen
            .manifest
            .modules
            .iter()
            .filter(of_kind)
            .any(|e| budgeted.iter().any(|b| b.module == e.module))
        {
            continue;
        }
        let mut met = true;
        let mut cells = vec![];
        for (preset, board) in BOARD_TARGETS {
            let clock = crate::fpga::board::board(board).map_or(0, |b| b.clock_mhz);
            let candidates: Vec<Candidate> = gen
                .manifest
                .modules
                .iter()
                .filter(of_kind)
                .filter(|e| e.preset == preset)
                .map(|e| Candidate {
                    module: &e.module,
                    fmax: fpga
                        .iter()
                        .find(|r| r.module == e.module && r.board == board)
                        .and_then(|r| r.fmax),
                    ratio: budgeted
                        .iter()
                        .find(|b| b.module == e.module)
                        .and_then(Budgeted::ratio),
                })
                .collect();
            let fastest = |a: &&Candidate, b: &&Candidate| {
                a.fmax.unwrap_or(0.0).total_cmp(&b.fmax.unwrap_or(0.0))
            };
            let shown = candidates
                .iter()
                .filter(|c| c.meets(clock))
                .max_by(fastest)
                .or_else(|| candidates.iter().max_by(fastest));
            met &= shown.is_some_and(|c| c.meets(clock));
            cells.push(shown.map_or("-".into(), Candidate::cell));
        }
        s.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            kind.name,
            cells[0],
            cells[1],
            verdict(met)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(ffs: u64, ram_bits: u64) -> Row {
        Row {
            module: "elf_base_fermi".into(),
            hash: "0123456789abcdef".into(),
            xilinx: XilinxFigures {
                luts: 1,
                ffs,
                ram_bits,
                carry: 3,
                muxf: 4,
                depth: 5,
                path: vec!["last.q".into(), "pick__sel".into(), "grant".into()],
            },
            lut6_depth: 6,
        }
    }

    #[test]
    fn the_ratio_counts_flip_flops_and_table_bits_against_the_papers_bits() {
        let budget = |bits| PaperBudget {
            bits,
            structure: String::new(),
        };
        let ratio = |row: &Row, table_bits, bits| {
            Budgeted {
                module: row.module.clone(),
                budget: budget(bits),
                row,
                table_bits,
            }
            .ratio()
        };
        // The tables' declared bits count, not the RAM cells' capacity.
        assert_eq!(ratio(&row(1000, 6400), 3000, Some(2000)), Some(2.0));
        // Tables Yosys kept in flip-flops (no RAM bits) count once, as flip-flops.
        assert_eq!(ratio(&row(4000, 0), 3000, Some(2000)), Some(2.0));
        assert_eq!(ratio(&row(1000, 0), 0, None), None);
        assert_eq!(ratio(&row(1000, 0), 0, Some(0)), None);
    }

    #[test]
    fn every_research_block_declares_its_papers_budget() {
        // GPGPU-Sim's baselines have no paper; every other block names its paper's hardware.
        let baselines = ["warp_arbiter", "tb_dispatch", "sm_alloc"];
        for kind in catalog() {
            for (policy, preset) in kind.variants() {
                let budget = (kind.paper_budget)(policy, preset);
                assert_eq!(
                    budget.is_none(),
                    baselines.contains(&kind.name),
                    "{} {policy} {preset}: {budget:?}",
                    kind.name
                );
                // It says where the paper gives it: a line (`L539`), a table or a section.
                if let Some(b) = budget {
                    let cites_line = b.structure.split(|c: char| !c.is_alphanumeric()).any(|w| {
                        w.len() > 1
                            && w.starts_with('L')
                            && w[1..].bytes().all(|c| c.is_ascii_digit())
                    });
                    assert!(
                        cites_line || b.structure.contains("Table") || b.structure.contains('§'),
                        "{}: {}",
                        kind.name,
                        b.structure
                    );
                }
            }
        }
    }

    #[test]
    fn the_papers_budgets_count_as_the_papers_do() {
        let bits = |block: &str, preset: &str| {
            let kind = catalog().into_iter().find(|k| k.name == block).unwrap();
            (kind.paper_budget)("base", preset).and_then(|b| b.bits)
        };
        // ELF: 32 x 42 + 48 x 8 bits; with NewCAR's 32 x 301, the thesis's 1.39 kB per SM.
        assert_eq!(bits("elf", "fermi"), Some(1728));
        assert_eq!(
            bits("elf", "fermi").unwrap() + bits("newcar", "fermi").unwrap(),
            11360
        );
        // The locality dispatcher: 15 B x (32 + 15 x 8) entries; PAVER 18 B per SM + 6 B.
        assert_eq!(bits("la_tb_dispatch", "fermi"), Some(15 * 8 * 152));
        assert_eq!(bits("paver_tb", "fermi"), Some(8 * (18 * 15 + 6)));
        // One scheduler's half of the thesis's 2.1 kB per SM of 48 warps.
        assert_eq!(
            bits("locality_degree", "fermi"),
            Some(24 * 24 / 2 * 8 + 24 * 128)
        );
        assert_eq!(bits("chimera_tb", "fermi"), None);
    }

    #[test]
    fn rows_parse_back() {
        let row = row(2, 7);
        let text = format!(
            "{}| other | x |\n| elf_base_fermi | 1728 | 1224 | 2952 |\n",
            row.render()
        );
        assert_eq!(rows_in(&text), vec![row.clone()]);
        // A long path is elided in the middle, and renders the same once parsed back.
        let mut long = row;
        long.xilinx.path = (0..14).map(|i| format!("s{i}")).collect();
        let once = long.render();
        assert!(once.contains("s4 > ... > s10"), "{once}");
        assert_eq!(rows_in(&once)[0].render(), once);
    }
}
