//! The command-line reference from the binary's own clap definition: `docs/src/cli.md` (every
//! command and subcommand with its full help, 100 columns wide) and one man page per command in
//! `docs/man/` (clap_mangen).

use anyhow::{Context, Result};
use clap::Command;

/// Help text width, columns (fixed, so the files do not depend on the terminal).
const WIDTH: usize = 100;

/// The default of `--traces` as a fresh clone shows it (the traces beside the repository),
/// whatever this machine's `GPUSCHED_SHARED` says: the reference is the same everywhere.
const TRACES_DEFAULT: &str = "../shared/traces";

/// Every command of `root` as (`gpusched sweep run`, its clap command), depth first.
pub fn commands(root: &Command) -> Vec<(String, Command)> {
    let mut out = vec![];
    walk(root, "", &mut out);
    out
}

fn walk(cmd: &Command, prefix: &str, out: &mut Vec<(String, Command)>) {
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
        walk(sub, &name, out);
    }
}

/// `docs/src/cli.md`.
pub fn reference(all: &[(String, Command)]) -> String {
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
pub fn man_pages(all: &[(String, Command)]) -> Result<Vec<(String, String)>> {
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
