//! `gpusched gen [--check] [--out DIR]`: the Verilog, `manifest.json` and `REPORT.md` (FPGA
//! figures, re-synthesized when the Verilog it names changed).

use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `gpusched gen`.
#[derive(Args)]
pub struct GenArgs {
    /// Do not write: exit 1 if DIR differs from what hdl/ generates now.
    #[arg(long)]
    check: bool,
    /// Output directory [default: rtl-out/ of the repository].
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Runs `gen`.
pub fn run(a: GenArgs) -> Result<ExitCode> {
    let dir = a.out.unwrap_or_else(super::default_rtl_dir);
    let g = gpusched_gen::generate_all()?;
    if a.check {
        let r = gpusched_gen::check(&g, &dir);
        if r.is_clean() {
            outln!(
                "{}: up to date ({} modules)",
                dir.display(),
                g.manifest.modules.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{} differs from what hdl/ generates:\n{r}run `gpusched gen` to regenerate it",
            dir.display()
        );
        return Ok(ExitCode::from(1));
    }
    gpusched_gen::write_all(&g, &dir)?;
    for m in &g.manifest.modules {
        outln!("wrote {}/{}", dir.display(), m.file);
    }
    outln!(
        "wrote {}/manifest.json ({} modules)",
        dir.display(),
        g.manifest.modules.len()
    );
    outln!(
        "wrote {}/{}/: {n} self-test wrappers with their ROMs, {n} host bridges with their \
         register maps (.regmap.csv, .regmap.h), {}, {}, {}, {}",
        dir.display(),
        gpusched_gen::fpga::DIR,
        gpusched_gen::fpga::control::FILE,
        gpusched_gen::fpga::bridge_ctl::FILE,
        gpusched_gen::fpga::uart::FILE,
        gpusched_gen::fpga::SUMMARY,
        n = g.manifest.modules.len(),
    );
    let report = gpusched_gen::report::REPORT;
    match gpusched_gen::report::stale(&g, &dir) {
        None => outln!("{}/{report} is up to date", dir.display()),
        Some(why) => {
            // Only modules whose Verilog changed are synthesized: none when only the text
            // around the rows differs.
            eprintln!("{why}: writing it again");
            let progress = |m: &str| eprintln!("  synthesizing {m} with yosys (minutes)...");
            match gpusched_gen::report::render(&g, &dir, &progress) {
                Ok(text) => {
                    std::fs::write(dir.join(report), text)?;
                    outln!("wrote {}/{report}", dir.display());
                }
                Err(e) => {
                    eprintln!("warning: {report} not regenerated: {e}");
                    return Ok(ExitCode::from(1));
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
