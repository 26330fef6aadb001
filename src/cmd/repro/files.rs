//! Writing an experiment's three files (`<stem>.md`, `.json`, `.svg`) and printing its
//! Markdown or its JSON, for the experiments that write one page.

use anyhow::{anyhow, Context, Result};
use std::path::Path;
use std::process::ExitCode;

/// Writes `md`, `json` and `svg` as `<stem>.md`, `.json`, `.svg` into `out` (created), and each
/// of `figures` (suffix, SVG) as `<stem>-<suffix>.svg`, then prints the JSON (`print_json`) or
/// the Markdown and where the files are.
pub fn write(
    out: &Path,
    stem: &str,
    (md, json, svg): (&str, &str, &str),
    figures: &[(&str, String)],
    print_json: bool,
) -> Result<ExitCode> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    super::write_files(out, stem, (md, json, svg))?;
    for (suffix, svg) in figures {
        let p = out.join(format!("{stem}-{suffix}.svg"));
        std::fs::write(&p, svg).map_err(|e| anyhow!("writing {}: {e}", p.display()))?;
    }
    match print_json {
        true => outln!("{json}"),
        false => {
            out!("{md}");
            let more: String = figures
                .iter()
                .map(|(suffix, _)| format!(", {stem}-{suffix}.svg"))
                .collect();
            outln!(
                "\nwrote {}/{stem}.md, {stem}.json, {stem}.svg{more}",
                out.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
