//! `gpusched fpga --board B --module M [--design selftest|bridge] [--out DIR] [--json]`: a
//! module's self-test wrapper or host bridge through synthesis, place and route and bitstream
//! for a board, with the utilization, Fmax and critical path.

use anyhow::Result;
use clap::Args;
use gpusched_gen::fpga::board::{board, BOARDS};
use gpusched_gen::fpga::flow::{run_flow, Design, FlowError, FlowReport, Status};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gpusched fpga`.
#[derive(Args)]
pub struct FpgaArgs {
    /// Board: icebreaker (iCE40UP5K, 12 MHz), ulx3s (ECP5-85F, 25 MHz), arty (A7-100T,
    /// Yosys figures only).
    #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(BOARDS.map(|b| b.name)))]
    board: String,
    /// Module of rtl-out/ (`gpusched blocks` lists them), e.g. warp_arbiter_two_level_proto.
    #[arg(long)]
    module: String,
    /// What to build around the module: `selftest` (plays its stimulus ROM, reports PASS or
    /// FAIL on the LEDs and the UART) or `bridge` (the UART host bridge that `gpusched cosim
    /// --target uart:DEVICE` drives).
    #[arg(long, default_value = "selftest",
          value_parser = clap::builder::PossibleValuesParser::new(Design::NAMES))]
    design: String,
    /// Working directory for the sources, logs, reports and bitstream
    /// [default: fpga-out/<board>/<module>].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Directory holding the modules and fpga/ [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    rtl: Option<PathBuf>,
    /// Print one JSON object instead of the report.
    #[arg(long)]
    json: bool,
}

/// Runs `fpga`.
pub fn run(a: FpgaArgs) -> Result<ExitCode> {
    let b = board(&a.board).expect("clap checked the board");
    let rtl = a.rtl.unwrap_or_else(super::default_rtl_dir);
    let design = Design::from_name(&a.design).expect("clap checked the design");
    let out = a.out.unwrap_or_else(|| {
        PathBuf::from("fpga-out")
            .join(b.name)
            .join(format!("{}_{}", a.module, a.design))
    });
    let mut progress = |step: &str| eprintln!("{step}...");
    let report = match run_flow(b, &a.module, design, &rtl, &out, &mut progress) {
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
            p.from,
            p.to
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
