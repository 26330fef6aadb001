//! The command line's policy options, built from the policy registry
//! ([`gpusim::policy::registry`]): one option per site (`--warp-sched`, `--lsu-queue`,
//! `--tb-sched`, `--sm-alloc`), every option a policy declares (`--la-active`, `--elf-recalc`...)
//! and every selecting flag (`--newcar`), each with the help its declaration gives. Values are
//! kept as given and read by the policies ([`gpusim::gpu::SimOptions::from_values`]), so a
//! policy's options are declared once, in its own file.

use clap::builder::PossibleValuesParser;
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use gpusim::policy::{self, OptSpec, OptValues, SiteKind};

/// The policy options given on a command line.
#[derive(Clone, Debug, Default)]
pub struct PolicyArgs {
    /// Each option given, by name.
    pub values: OptValues,
}

/// Every option this struct reads: the sites' and the registry's.
fn specs() -> Vec<(OptSpec, String)> {
    let mut v: Vec<(OptSpec, String)> = SiteKind::ALL
        .into_iter()
        .map(|site| {
            let default = match site {
                SiteKind::WarpIssue => "the configuration's".to_string(),
                _ => site.default_policy().to_string(),
            };
            let help = format!(
                "{}: {} (`gpusched policies` describes them) [default: {default}]",
                capitalize(site.title()),
                policy::names_at(site).join(", ")
            );
            (
                OptSpec::value(site.flag(), "POLICY", site.default_policy(), "site"),
                help,
            )
        })
        .collect();
    for (spec, takers) in policy::all_options() {
        // A core option or a selecting flag needs nothing; a policy's option names its site.
        let selects = takers
            .iter()
            .any(|e| e.flag.is_some_and(|f| f.name == spec.name));
        let by = if takers.is_empty() || selects {
            String::new()
        } else {
            format!(" [with {}]", policy::needs(spec.name))
        };
        v.push((spec, format!("{}{by}", spec.help)));
    }
    v
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl Args for PolicyArgs {
    fn augment_args(mut cmd: Command) -> Command {
        for (spec, help) in specs() {
            let mut arg = Arg::new(spec.name).long(spec.name).help(help);
            arg = match spec.value_name {
                None => arg.action(ArgAction::SetTrue),
                Some(v) => {
                    let mut a = arg.value_name(v).action(ArgAction::Set);
                    if !spec.values.is_empty() {
                        a = a.value_parser(PossibleValuesParser::new(spec.values));
                    }
                    if let Some(b) = spec.bare {
                        a = a.num_args(0..=1).default_missing_value(b);
                    }
                    a
                }
            };
            cmd = cmd.arg(arg);
        }
        cmd
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

impl FromArgMatches for PolicyArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut s = Self::default();
        s.update_from_arg_matches(m)?;
        Ok(s)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        for (spec, _) in specs() {
            if m.value_source(spec.name) != Some(ValueSource::CommandLine) {
                continue;
            }
            if spec.is_flag() {
                if m.get_flag(spec.name) {
                    self.values.set(spec.name, "true");
                }
            } else if let Some(v) = m.get_one::<String>(spec.name) {
                self.values.set(spec.name, v);
            }
        }
        Ok(())
    }
}
