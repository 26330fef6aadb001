//! `gpusched blocks [--json]`.

use anyhow::Result;
use clap::Args;
use gpusim::blocks::catalog;
use std::process::ExitCode;

/// Arguments of `gpusched blocks`.
#[derive(Args)]
pub struct BlocksArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
}

/// Runs `blocks`.
pub fn run(a: BlocksArgs) -> Result<ExitCode> {
    if a.json {
        let v: Vec<_> = catalog()
            .iter()
            .map(|b| {
                serde_json::json!({
                    "name": b.name, "summary": b.summary,
                    "policies": b.policies, "presets": b.presets,
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        for b in catalog() {
            outln!("{}: {}", b.name, b.summary);
            outln!("  policies: {}", b.policies.join(", "));
            outln!("  presets:  {}", b.presets.join(", "));
        }
    }
    Ok(ExitCode::SUCCESS)
}
