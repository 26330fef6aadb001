//! `gpusched fpga --board B --module M [--design selftest|bridge] [--out DIR] [--json]`: a
//! module's self-test wrapper or host bridge through synthesis, place and route and bitstream
//! for a board, with the utilization, Fmax and critical path.

use anyhow::Result;
use clap::Args;
use gpusched_gen::fpga::board::{board, Board, BOARDS};
use gpusched_gen::fpga::flow::{
    self, run_flow, Design, FlowError, FlowReport, RunOptions, Status, DEFAULT_SEED,
};
use gpusched_gen::fpga::table::{self, net_of, FpgaRow};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gpusched fpga`.
#[derive(Args)]
pub struct FpgaArgs {
    /// Board: icebreaker (iCE40UP5K, 12 MHz), ulx3s (ECP5-85F, 25 MHz), arty (A7-100T,
    /// Yosys figures only). With --all: only this board's rows.
    #[arg(long, required_unless_present = "all",
          value_parser = clap::builder::PossibleValuesParser::new(BOARDS.map(|b| b.name)))]
    board: Option<String>,
    /// Module of rtl-out/ (`gpusched blocks` lists them), e.g. warp_arbiter_two_level_proto.
    /// With --all: only this module's rows.
    #[arg(long, required_unless_present = "all")]
    module: Option<String>,
    /// Every module's self-test on its boards (`proto` on the iCEBreaker and the ULX3S, `fermi`
    /// and `titanv` on the ULX3S) into the FPGA section of rtl-out/REPORT.md, each row written as it is
    /// done; rows already made from the current Verilog are kept.
    #[arg(long)]
    all: bool,
    /// With --all: run every pair again, current rows included. A row made from the same
    /// Verilog stays when the new run reaches a lower Fmax or none (a time limit, no fit), so
    /// that another --seed can be tried without losing the best placement.
    #[arg(long, requires = "all")]
    force: bool,
    /// With --all: stop Yosys or nextpnr after this many minutes (the row says so).
    #[arg(long, value_name = "MIN", default_value_t = 30, requires = "all",
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout_min: u64,
    /// What to build around the module: `selftest` (plays its stimulus ROM, reports PASS or
    /// FAIL on the LEDs and the UART) or `bridge` (the UART host bridge that `gpusched cosim
    /// --target uart:DEVICE` drives).
    #[arg(long, default_value = "selftest",
          value_parser = clap::builder::PossibleValuesParser::new(Design::NAMES))]
    design: String,
    /// Working directory for the sources, logs, reports and bitstream
    /// [default: fpga-out/<board>/<module>_<design>; with --all: fpga-out].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Directory holding the modules and fpga/ [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Extra nextpnr arguments, after the flow's own (not the device, files, --freq, --seed or
    /// --report, which it sets: see --seed), e.g. "--router2-alt-weights" or "--no-tmdriv"; one
    /// the flow adds for a large design ("--router router2" on the ECP5) is replaced by yours; a
    /// report row made with them shows them in its status.
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true)]
    pnr_args: Option<String>,
    /// Extra options of Yosys's synthesis command, after the flow's (`synth_ecp5 -top gs_top
    /// -json synth.json`; not -top or -json), e.g. "-abc9" (ABC9's timing-driven LUT mapping)
    /// or, on the iCEBreaker, "-dsp" (multipliers in the UP5K's DSP blocks); a report row made
    /// with them shows them in its status.
    #[arg(long, value_name = "ARGS", allow_hyphen_values = true, value_parser = parse_synth_args)]
    synth_args: Option<SynthArgs>,
    /// nextpnr's placement seed; a report row made with another than 1 shows it in its status
    /// (another placement can route a congested design that seed 1 does not) [default: 1].
    /// Without --seed, --pnr-args and --synth-args, a self-test whose REPORT.md row names the
    /// options it was made with (e.g. `synth_ecp5 -abc9`, `--no-tmdriv --seed 2`) is built
    /// with those again.
    #[arg(long)]
    seed: Option<u64>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
}

impl FpgaArgs {
    /// The Yosys and nextpnr options for `board`'s self-test of a module whose REPORT.md row
    /// (of any Verilog) is `previous`: `--synth-args`, `--pnr-args` and `--seed` when any is
    /// given, else the options the row names, else none and seed 1. Prints where they came
    /// from.
    fn options(&self, board: &Board, previous: Option<&FpgaRow>, label: &str) -> RunOptions {
        let mut opts = RunOptions::default();
        if self.seed.is_some() || self.pnr_args.is_some() || self.synth_args.is_some() {
            opts.extra_pnr = self
                .pnr_args
                .as_deref()
                .map(|a| a.split_whitespace().map(String::from).collect())
                .unwrap_or_default();
            opts.extra_synth = self.synth_args.clone().map(|a| a.0).unwrap_or_default();
            opts.seed = self.seed.unwrap_or(DEFAULT_SEED);
            return opts;
        }
        let Some(previous) = previous else {
            return opts;
        };
        let flow_own = board.large_pnr.map_or(&[][..], |(_, _, args)| args);
        let (extra, seed) = previous.recorded_options(flow_own);
        opts.extra_synth = previous.recorded_synth();
        if !extra.is_empty() || seed.is_some() || !opts.extra_synth.is_empty() {
            opts.extra_pnr = extra;
            opts.seed = seed.unwrap_or(DEFAULT_SEED);
            let named = [
                &opts.extra_pnr[..],
                &["--seed".into(), opts.seed.to_string()],
            ];
            let synth = match &opts.extra_synth[..] {
                [] => String::new(),
                words => format!("Yosys {}; ", words.join(" ")),
            };
            eprintln!(
                "{label}: options of its REPORT.md row: {synth}nextpnr {} \
                 (--synth-args, --seed or --pnr-args to choose others)",
                named.concat().join(" ")
            );
        }
        opts
    }
}

/// `--synth-args`, split into words.
#[derive(Clone, Debug)]
pub struct SynthArgs(Vec<String>);

/// `--synth-args`: the words of `text`, checked by [`flow::check_synth_args`].
fn parse_synth_args(text: &str) -> Result<SynthArgs, String> {
    let words: Vec<String> = text.split_whitespace().map(String::from).collect();
    flow::check_synth_args(&words)?;
    Ok(SynthArgs(words))
}

/// The FPGA section's rows in `rtl`'s REPORT.md (none when it has no report).
fn committed_rows(rtl: &std::path::Path) -> Vec<FpgaRow> {
    std::fs::read_to_string(rtl.join(gpusched_gen::report::REPORT))
        .map(|t| table::rows_in(&t))
        .unwrap_or_default()
}

/// Runs `fpga`.
pub fn run(a: FpgaArgs) -> Result<ExitCode> {
    if a.all {
        return all(&a);
    }
    let b = board(a.board.as_deref().expect("clap requires it")).expect("clap checked it");
    let module = a.module.clone().expect("clap requires it");
    let rtl = a.rtl.clone().unwrap_or_else(super::default_rtl_dir);
    let design = Design::from_name(&a.design).expect("clap checked the design");
    let out = a.out.clone().unwrap_or_else(|| {
        PathBuf::from("fpga-out")
            .join(b.name)
            .join(format!("{module}_{}", a.design))
    });
    let mut progress = |step: &str| eprintln!("{step}...");
    let previous = match design {
        Design::Selftest => committed_rows(&rtl)
            .into_iter()
            .find(|r| r.module == module && r.board == b.name),
        Design::Bridge => None,
    };
    let opts = a.options(b, previous.as_ref(), &format!("{module} on {}", b.name));
    let report = match run_flow(b, &module, design, &rtl, &out, &opts, &mut progress) {
        Ok(r) => r,
        // Bad input: exit 2 through the caller.
        Err(e @ (FlowError::UnknownModule(_) | FlowError::Io { .. })) => return Err(e.into()),
        // The flow ran and the design or the machine says no: a failed check.
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(1));
        }
    };
    if a.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print(&report, b.title)?;
    }
    Ok(match report.status {
        Status::TimingMiss => ExitCode::from(1),
        Status::Ok | Status::SynthOnly => ExitCode::SUCCESS,
    })
}

fn print(r: &FlowReport, title: &str) -> Result<()> {
    let design = match r.design {
        Design::Selftest => "self-test",
        Design::Bridge => "host bridge",
    };
    outln!("{} ({design}) on {}", r.module, title);
    let cells: Vec<String> = r.cells.iter().map(|(t, n)| format!("{t} {n}")).collect();
    outln!("  synthesis (Yosys cells): {}", cells.join(", "));
    if !r.synth_args.is_empty() {
        outln!("  Yosys options: {}", r.synth_args.join(" "));
    }
    if !r.pnr_args.is_empty() {
        outln!("  nextpnr options: {}", r.pnr_args.join(" "));
    }
    for u in &r.utilization {
        outln!(
            "  {:<16} {:>7} of {:<7} ({}%)",
            u.resource,
            u.used,
            u.available,
            u.used * 100 / u.available.max(1)
        );
    }
    for f in &r.fmax {
        let verdict = if f.achieved_mhz >= f.constraint_mhz {
            "met"
        } else {
            "MISSED"
        };
        outln!(
            "  clock {}: {:.1} MHz achieved, board {:.0} MHz: {verdict}",
            f.clock,
            f.achieved_mhz,
            f.constraint_mhz
        );
    }
    if let Some(p) = &r.critical_path {
        outln!(
            "  critical path: {:.1} ns, {} logic levels, {} -> {}",
            p.delay_ns,
            p.logic_levels,
            net_of(&p.from),
            net_of(&p.to)
        );
    }
    match (&r.bitstream, r.status) {
        (Some(b), Status::TimingMiss) => outln!(
            "  bitstream: {} (written, but the design does not meet the board clock)",
            b.display()
        ),
        (Some(b), _) => outln!("  bitstream: {}", b.display()),
        (None, _) => outln!("  no bitstream: this board's place and route is the vendor's tool"),
    }
    outln!("  {:.1} s", r.seconds);
    Ok(())
}

/// `fpga --all`: every (module, board) pair of the FPGA section whose row is missing or made
/// from other Verilog (all with `--force`), placed and routed and written into REPORT.md.
fn all(a: &FpgaArgs) -> Result<ExitCode> {
    use gpusched_gen::report::{rows_at, REPORT};
    if a.design != "selftest" {
        anyhow::bail!("--all places the self-tests (--design selftest)");
    }
    let rtl = a.rtl.clone().unwrap_or_else(super::default_rtl_dir);
    let out_root = a.out.clone().unwrap_or_else(|| PathBuf::from("fpga-out"));
    let read = |p: PathBuf| {
        std::fs::read_to_string(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
    };
    let manifest: gpusched_gen::Manifest = serde_json::from_str(&read(rtl.join("manifest.json"))?)?;
    let report_path = rtl.join(REPORT);
    let xilinx = rows_at(&rtl);
    let timeout = std::time::Duration::from_secs(60 * a.timeout_min);
    let pairs: Vec<_> = table::expected(&manifest)
        .into_iter()
        .filter(|(_, b, _)| a.board.as_deref().is_none_or(|n| n == b.name))
        .filter(|(m, _, _)| a.module.as_deref().is_none_or(|n| n == m))
        .collect();
    if pairs.is_empty() {
        anyhow::bail!(
            "the FPGA section has no row for{}{} (`gpusched fpga --help` says which boards a \
             module goes on)",
            a.module
                .as_deref()
                .map(|m| format!(" module {m}"))
                .unwrap_or_default(),
            a.board
                .as_deref()
                .map(|b| format!(" on board {b}"))
                .unwrap_or_default()
        );
    }
    let n = pairs.len();
    let mut wrote = false;
    for (k, (m, b, target)) in pairs.into_iter().enumerate() {
        let hash = table::pair_hash(
            &read(rtl.join(format!("{m}.v")))?,
            &read(rtl.join(format!("fpga/{m}_selftest.v")))?,
        );
        let rows = table::rows_in(&read(report_path.clone())?);
        let label = format!("[{}/{n}] {m} on {}", k + 1, b.name);
        let current = rows
            .iter()
            .find(|r| r.module == m && r.board == b.name && r.hash == hash)
            .cloned();
        // A row a smaller time limit stopped is run again under a larger one.
        let stopped_sooner = current
            .as_ref()
            .and_then(|r| r.stopped_after())
            .is_some_and(|s| s + 60 < timeout.as_secs());
        if !a.force && current.is_some() && !stopped_sooner {
            eprintln!("{label}: current");
            continue;
        }
        let mut row = FpgaRow {
            module: m.clone(),
            board: b.name.into(),
            hash,
            status: String::new(),
            logic: "-".into(),
            ram: "-".into(),
            fmax: None,
            target,
            levels: None,
            path: "-".into(),
        };
        // A LUT6 count above the device's LUT4s cannot fit: skip the long synthesis.
        let lut4 = b.capacity.first().map_or(u64::MAX, |c| c.2);
        let estimate = xilinx.iter().find(|r| r.module == m).map(|r| r.xilinx.luts);
        match estimate.filter(|&l| l > lut4) {
            Some(luts) => {
                row.status = "no fit (estimated)".into();
                row.logic = format!("{luts} LUT6 > {lut4} LUT4");
            }
            None => {
                let previous = rows.iter().find(|r| r.module == m && r.board == b.name);
                let opts = RunOptions {
                    timeout: Some(timeout),
                    ..a.options(b, previous, &label)
                };
                eprintln!("{label}: synthesizing, placing and routing...");
                let dir = out_root.join(b.name).join(format!("{m}_selftest"));
                match run_flow(b, &m, Design::Selftest, &rtl, &dir, &opts, &mut |_| {}) {
                    Ok(r) => fill(&mut row, &r, b),
                    Err(FlowError::NoFit {
                        resource,
                        used,
                        available,
                        pct,
                        ..
                    }) => {
                        row.status = "no fit".into();
                        row.note_options(flow::synth_name(b), &opts.extra_synth, &[]);
                        row.logic = format!("{resource} {used} of {available} ({pct}%)");
                    }
                    Err(FlowError::Timeout { tool, seconds, .. }) => {
                        row.status = format!("{tool} stopped after {seconds} s (time limit)");
                        row.note_options(flow::synth_name(b), &opts.extra_synth, &[]);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        eprintln!(
            "{label}: {}{}",
            row.status,
            row.fmax
                .map(|f| format!(", {f:.1} MHz"))
                .unwrap_or_default()
        );
        if let Some(kept) = current.filter(|c| c.outranks(&row)) {
            eprintln!(
                "{label}: kept the row made from this Verilog before ({:.1} MHz, {})",
                kept.fmax.unwrap_or_default(),
                kept.status
            );
            continue;
        }
        // Read again: another `fpga --all` (another board) may have written rows meanwhile.
        let text = read(report_path.clone())?;
        let mut rows = table::rows_in(&text);
        rows.retain(|r| !(r.module == m && r.board == b.name));
        rows.push(row);
        let fresh = format!(
            "{}\n{}",
            table::before_section(&text),
            table::section(&rows, &table::expected(&manifest))
        );
        std::fs::write(&report_path, fresh)
            .map_err(|e| anyhow::anyhow!("{}: {e}", report_path.display()))?;
        wrote = true;
    }
    outln!("{}: FPGA section up to date", report_path.display());
    if wrote {
        refresh_targets(&rtl)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Renders `rtl`'s REPORT.md again after new FPGA rows, so that its targets section (which
/// reads them) follows; when the Verilog there is not what `hdl/` generates now, says that
/// `gpusched gen` does it instead (it would synthesize).
fn refresh_targets(rtl: &Path) -> Result<()> {
    use gpusched_gen::report::{render_current, REPORT};
    let g = gpusched_gen::generate_all()?;
    let path = rtl.join(REPORT);
    match render_current(&g, rtl)? {
        Some(text) => {
            if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
                std::fs::write(&path, text)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
                outln!("{}: targets section updated", path.display());
            }
        }
        None => eprintln!(
            "note: {} holds Verilog that hdl/ no longer generates: run `gpusched gen --out {}` \
             to bring its targets section up to date",
            rtl.display(),
            rtl.display()
        ),
    }
    Ok(())
}

/// A row's figures from a place-and-route report on `board`.
fn fill(row: &mut FpgaRow, r: &FlowReport, board: &Board) {
    row.status = match r.status {
        Status::Ok => "ok".into(),
        Status::TimingMiss => "board clock missed".into(),
        Status::SynthOnly => "synthesis only".into(),
    };
    row.note_options(flow::synth_name(board), &r.synth_args, &r.pnr_args);
    let logic = ["ICESTORM_LC", "TRELLIS_COMB"];
    if let Some(u) = r
        .utilization
        .iter()
        .find(|u| logic.contains(&u.resource.as_str()))
    {
        row.logic = format!(
            "{} / {} {} ({}%)",
            u.used,
            u.available,
            if u.resource == "ICESTORM_LC" {
                "LC"
            } else {
                "LUT"
            },
            u.used * 100 / u.available.max(1)
        );
    }
    let ram = ["ICESTORM_RAM", "DP16KD"];
    row.ram = r
        .utilization
        .iter()
        .find(|u| ram.contains(&u.resource.as_str()))
        .map_or("0".into(), |u| u.used.to_string());
    // Rounded as the table shows it, so the target verdict reads the same from the file.
    row.fmax = r
        .fmax
        .iter()
        .find(|f| f.clock == "clk")
        .map(|f| (f.achieved_mhz * 10.0).round() / 10.0);
    if let Some(p) = &r.critical_path {
        row.levels = Some(p.logic_levels as u64);
        row.path = format!(
            "{:.1} ns: {} -> {}",
            p.delay_ns,
            net_of(&p.from),
            net_of(&p.to)
        );
    }
}
