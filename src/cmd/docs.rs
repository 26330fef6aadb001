//! `gpusched docs`: the command-line reference written from the binary's own clap definition,
//! so it cannot go stale unnoticed: `docs/src/cli.md` (every command and subcommand with its
//! full help, 100 columns wide) and one man page per command in `docs/man/` (clap_mangen).
//! `--check` renders the same text and fails naming each file that differs (a test runs it).

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
    /// Write nothing; fail when a file differs from what would be written.
    #[arg(long)]
    check: bool,
}

/// Help text width, columns (fixed, so the files do not depend on the terminal).
const WIDTH: usize = 100;

/// The default of `--traces` as a fresh clone shows it (the traces beside the repository),
/// whatever this machine's `GPUSCHED_SHARED` says: the reference is the same everywhere.
const TRACES_DEFAULT: &str = "../shared/traces";

/// Every command as (`gpusched sweep run`, its clap command), depth first.
fn commands(cmd: &Command, prefix: &str, out: &mut Vec<(String, Command)>) {
    let name = match prefix {
        "" => cmd.get_name().to_string(),
        p => format!("{p} {}", cmd.get_name()),
    };
    let mut own = cmd.clone();
    if own.get_arguments().any(|a| a.get_id() == "traces") {
        own = own.mut_arg("traces", |a| a.default_value(TRACES_DEFAULT));
    }
    out.push((name.clone(), own));
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        commands(sub, &name, out);
    }
}

/// `docs/src/cli.md`.
fn reference(all: &[(String, Command)]) -> String {
    let mut s = String::from(
        "# Command-line reference\n\nWritten by `gpusched docs` from the binary's own help (do not \
         edit; a test fails when it is stale). Man pages of the same commands: `docs/man/`.\n",
    );
    for (name, cmd) in all {
        let mut c = cmd.clone().term_width(WIDTH).bin_name(name.as_str());
        let help = c.render_long_help().to_string();
        let help: Vec<&str> = help.lines().map(str::trim_end).collect();
        s.push_str(&format!(
            "\n## `{name}`\n\n```text\n{}\n```\n",
            help.join("\n")
        ));
    }
    s
}

/// One man page per command: (`gpusched-sweep-run.1`, its roff text).
fn man_pages(all: &[(String, Command)]) -> Result<Vec<(String, String)>> {
    all.iter()
        .map(|(name, cmd)| {
            let file = format!("{}.1", name.replace(' ', "-"));
            let c = cmd
                .clone()
                .display_name(name.replace(' ', "-"))
                .bin_name(name.as_str())
                .term_width(WIDTH);
            let mut buf = vec![];
            clap_mangen::Man::new(c)
                .render(&mut buf)
                .with_context(|| format!("rendering the man page of `{name}`"))?;
            Ok((file, String::from_utf8(buf).context("a man page in UTF-8")?))
        })
        .collect()
}

/// Runs `gpusched docs` for the command line `root`.
pub fn run(a: DocsArgs, mut root: Command) -> Result<ExitCode> {
    root.build();
    let mut all = vec![];
    commands(&root, "", &mut all);
    let mut files: Vec<(PathBuf, String)> = vec![(a.dir.join("src/cli.md"), reference(&all))];
    for (f, text) in man_pages(&all)? {
        files.push((a.dir.join("man").join(f), text));
    }
    if a.check {
        let stale: Vec<String> = files
            .iter()
            .filter(|(p, text)| std::fs::read_to_string(p).ok().as_deref() != Some(text))
            .map(|(p, _)| p.display().to_string())
            .collect();
        let expected: Vec<&Path> = files.iter().map(|(p, _)| p.as_path()).collect();
        let extra = extra_pages(&a.dir.join("man"), &expected)?;
        if !stale.is_empty() || !extra.is_empty() {
            bail!(
                "the command-line reference is stale (run `gpusched docs`): {}",
                stale
                    .iter()
                    .chain(&extra)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        outln!("{}: up to date ({} files)", a.dir.display(), files.len());
        return Ok(ExitCode::SUCCESS);
    }
    for sub in ["src", "man"] {
        let d = a.dir.join(sub);
        std::fs::create_dir_all(&d).with_context(|| format!("creating {}", d.display()))?;
    }
    for p in extra_pages(&a.dir.join("man"), &[])? {
        std::fs::remove_file(&p).with_context(|| format!("removing {p}"))?;
    }
    for (p, text) in &files {
        std::fs::write(p, text).with_context(|| format!("writing {}", p.display()))?;
    }
    outln!("wrote {} files into {}", files.len(), a.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// Man pages in `dir` not among `expected` (a removed command's page).
fn extra_pages(dir: &Path, expected: &[&Path]) -> Result<Vec<String>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(vec![]);
    };
    let mut out = vec![];
    for e in entries {
        let p = e.context("reading docs/man")?.path();
        if p.extension().is_some_and(|x| x == "1") && !expected.contains(&p.as_path()) {
            out.push(p.display().to_string());
        }
    }
    out.sort();
    Ok(out)
}
