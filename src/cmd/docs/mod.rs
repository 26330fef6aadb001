//! `gpusched docs`: the generated parts of the documentation, written from the code so they
//! cannot go stale unnoticed: the command-line reference (`docs/src/cli.md` and `docs/man/*.1`,
//! [`cli`]) and one page per hardware block (`docs/src/blocks/*.md`, [`blocks`]). `--check`
//! renders the same text and fails naming each file that differs or is left over, and each
//! committed figure (`docs/src/results/*.svg`) with text outside its canvas (a test runs it).

mod blocks;
mod cli;

use anyhow::{bail, Context, Result};
use clap::{Args, Command};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `gpusched docs`.
#[derive(Args)]
pub struct DocsArgs {
    /// The documentation directory (with `src/` and `man/`).
    #[arg(long, value_name = "DIR", default_value = "docs")]
    dir: PathBuf,
    /// The emitted Verilog's directory, whose `manifest.json` and `REPORT.md` the block pages
    /// are written from.
    #[arg(long, value_name = "DIR", default_value = "rtl-out")]
    rtl_out: PathBuf,
    /// Write nothing; fail when a file differs from what would be written.
    #[arg(long)]
    check: bool,
}

/// The generated directories: (directory inside `--dir`, extension of its generated files).
/// Any file of that extension there that is not generated is left over (a removed command or
/// block) and is removed, or named by `--check`.
const GENERATED_DIRS: [(&str, &str); 2] = [("man", "1"), ("src/blocks", "md")];

/// Runs `gpusched docs` for the command line `root`.
pub fn run(a: DocsArgs, mut root: Command) -> Result<ExitCode> {
    root.build();
    let all = cli::commands(&root);
    let mut files: Vec<(PathBuf, String)> = vec![(a.dir.join("src/cli.md"), cli::reference(&all))];
    for (f, text) in cli::man_pages(&all)? {
        files.push((a.dir.join("man").join(f), text));
    }
    let src = a.dir.join("src");
    for (f, text) in blocks::pages(&src, &a.rtl_out)? {
        files.push((src.join(blocks::DIR).join(f), text));
    }
    let expected: Vec<&Path> = files.iter().map(|(p, _)| p.as_path()).collect();
    let mut extra = vec![];
    for (dir, ext) in GENERATED_DIRS {
        extra.extend(left_over(&a.dir.join(dir), ext, &expected)?);
    }
    if a.check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(p, text)| std::fs::read_to_string(p).ok().as_deref() != Some(text))
            .map(|(p, _)| p.display().to_string())
            .chain(extra)
            .collect();
        let cut = figures_cut(&src.join("results"))?;
        let mut problems = vec![];
        if !stale.is_empty() {
            problems.push(format!(
                "the generated documentation is stale (run `gpusched docs`): {}",
                stale.join(", ")
            ));
        }
        if !cut.is_empty() {
            problems.push(format!(
                "figures with text outside their canvas (write them again with `gpusched \
                 repro`): {}",
                cut.join("; ")
            ));
        }
        if !problems.is_empty() {
            bail!("{}", problems.join("\n"));
        }
        outln!("{}: up to date ({} files)", a.dir.display(), files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for p in &extra {
        std::fs::remove_file(p).with_context(|| format!("removing {p}"))?;
    }
    for (p, text) in &files {
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    outln!("wrote {} files into {}", files.len(), a.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// The SVG figures of `dir` with text outside their canvas, each with the first such text.
fn figures_cut(dir: &Path) -> Result<Vec<String>> {
    let mut cut = vec![];
    if !dir.is_dir() {
        return Ok(cut);
    }
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut svgs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "svg"))
        .collect();
    svgs.sort();
    for p in svgs {
        let text =
            std::fs::read_to_string(&p).with_context(|| format!("reading {}", p.display()))?;
        if let Some(t) = crate::cmd::repro::chart::text_outside(&text).first() {
            cut.push(format!("{}: {t}", p.display()));
        }
    }
    Ok(cut)
}

/// Files of `dir` with extension `ext` not among `expected`.
fn left_over(dir: &Path, ext: &str, expected: &[&Path]) -> Result<Vec<String>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(vec![]);
    };
    let mut out = vec![];
    for e in entries {
        let p = e
            .with_context(|| format!("reading {}", dir.display()))?
            .path();
        if p.extension().is_some_and(|x| x == ext) && !expected.contains(&p.as_path()) {
            out.push(p.display().to_string());
        }
    }
    out.sort();
    Ok(out)
}
