//! `gpusched policies [--json]`: the policy registry ([`gpusim::policy::registry`]), site by
//! site: each policy's name, summary, blocks and options.

use anyhow::Result;
use clap::Args;
use gpusim::policy::{self, OptSpec, SiteKind};
use std::process::ExitCode;

/// Arguments of `gpusched policies`.
#[derive(Args)]
pub struct PoliciesArgs {
    /// Print a JSON array instead of a list.
    #[arg(long)]
    json: bool,
}

fn option_json(o: &OptSpec) -> serde_json::Value {
    serde_json::json!({
        "name": o.name,
        "value": o.value_name,
        "default": o.default,
        "values": o.values,
        "help": o.help,
    })
}

fn option_text(o: &OptSpec) -> String {
    let mut s = format!("--{}", o.name);
    if let Some(v) = o.value_name {
        s.push_str(&format!(" {v}"));
    }
    if !o.values.is_empty() {
        s.push_str(&format!(" ({})", o.values.join("|")));
    }
    if !o.is_flag() {
        s.push_str(&format!(" [default: {}]", o.default));
    }
    s
}

/// Runs `policies`.
pub fn run(a: PoliciesArgs) -> Result<ExitCode> {
    if a.json {
        let v: Vec<_> = policy::registry()
            .into_iter()
            .map(|e| {
                serde_json::json!({
                    "site": e.site.key(),
                    "option": format!("--{}", e.site.flag()),
                    "name": e.name,
                    "summary": e.summary,
                    "default": e.name == e.site.default_policy(),
                    "blocks": e.blocks,
                    "options": e.options.iter().map(option_json).collect::<Vec<_>>(),
                    "flag": e.flag.map(|f| format!("--{}", f.name)),
                    "implies": e.implies.iter().map(|(k, v)| format!("--{k} {v}")).collect::<Vec<_>>(),
                })
            })
            .collect();
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(ExitCode::SUCCESS);
    }
    for site in SiteKind::ALL {
        outln!("{} (--{}):", site.title(), site.flag());
        for e in policy::registry().into_iter().filter(|e| e.site == site) {
            let default = if e.name == site.default_policy() {
                " [default]"
            } else {
                ""
            };
            outln!("  {}{default}: {}", e.name, e.summary);
            if !e.blocks.is_empty() {
                outln!("    blocks: {}", e.blocks.join(", "));
            }
            for o in e.options {
                outln!("    {}", option_text(o));
            }
            if let Some(f) = e.flag {
                outln!("    --{} selects it", f.name);
            }
            for (k, v) in e.implies {
                outln!("    implies --{k} {v} unless given");
            }
        }
    }
    outln!("every run:");
    for o in policy::CORE_OPTIONS {
        outln!("  {}: {}", option_text(o), o.help);
    }
    Ok(ExitCode::SUCCESS)
}
