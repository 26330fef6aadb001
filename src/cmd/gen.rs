//! `gpusched gen [--check] [--out DIR]`.

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
            println!(
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
        println!("wrote {}/{}", dir.display(), m.file);
    }
    println!(
        "wrote {}/manifest.json ({} modules)",
        dir.display(),
        g.manifest.modules.len()
    );
    Ok(ExitCode::SUCCESS)
}
