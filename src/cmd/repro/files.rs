//! Writing an experiment's three files (`<stem>.md`, `.json`, `.svg`) and printing its
//! Markdown or its JSON, for the experiments that write one page.

use anyhow::{anyhow, Context, Result};
use std::path::Path;
use std::process::ExitCode;

/// Writes `md`, `json` and `svg` as `<stem>.md`, `.json`, `.svg` into `out` (created), then
/// prints the JSON (`print_json`) or the Markdown and where the files are.
pub fn write(
    out: &Path,
    stem: &str,
    (md, json, svg): (&str, &str, &str),
    print_json: bool,
) -> Result<ExitCode> {
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    for (ext, text) in [("md", md), ("json", json), ("svg", svg)] {
        let p = out.join(format!("{stem}.{ext}"));
        std::fs::write(&p, text).map_err(|e| anyhow!("writing {}: {e}", p.display()))?;
    }
    match print_json {
        true => outln!("{json}"),
        false => {
            out!("{md}");
            outln!(
                "\nwrote {}/{stem}.md, {stem}.json, {stem}.svg",
                out.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
