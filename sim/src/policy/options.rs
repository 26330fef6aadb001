//! Options of the policies and of the run: each is declared once ([`OptSpec`]) by whoever
//! takes it (a policy in its own file, or the SM's core options), and read from the values the
//! user gave ([`OptValues`]). The command line builds its flags from these declarations, and
//! [`OptValues::parse_args`] reads the same options from a string (sweep columns, tests).

use std::collections::BTreeMap;
use thiserror::Error;

/// One option: `--name VALUE`, or the flag `--name`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptSpec {
    /// Long name without dashes (`la-active`).
    pub name: &'static str,
    /// Name of the value in help text (`K`); `None`: a flag, which takes no value.
    pub value_name: Option<&'static str>,
    /// Value when the option is not given (flags: `false`).
    pub default: &'static str,
    /// Value when the option is given without one (`--iprefetch` alone means 16); `None`: a
    /// value is required.
    pub bare: Option<&'static str>,
    /// The values it accepts (empty: any the reader parses).
    pub values: &'static [&'static str],
    /// One-line help.
    pub help: &'static str,
}

impl OptSpec {
    /// A flag (`--name`).
    pub const fn flag(name: &'static str, help: &'static str) -> Self {
        Self {
            name,
            value_name: None,
            default: "false",
            bare: None,
            values: &[],
            help,
        }
    }

    /// An option with a value (`--name VALUE`, `default` when absent).
    pub const fn value(
        name: &'static str,
        value_name: &'static str,
        default: &'static str,
        help: &'static str,
    ) -> Self {
        Self {
            name,
            value_name: Some(value_name),
            default,
            bare: None,
            values: &[],
            help,
        }
    }

    /// The same option accepting only `values`.
    pub const fn one_of(mut self, values: &'static [&'static str]) -> Self {
        self.values = values;
        self
    }

    /// The same option, `bare` when given without a value.
    pub const fn bare(mut self, bare: &'static str) -> Self {
        self.bare = Some(bare);
        self
    }

    /// Whether it is a flag.
    pub fn is_flag(&self) -> bool {
        self.value_name.is_none()
    }
}

/// An option or a policy choice that cannot be used as given.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum OptError {
    /// A value the option does not take.
    #[error("invalid value `{value}` for --{name}: {why}")]
    Invalid {
        /// Option name.
        name: String,
        /// The value given.
        value: String,
        /// What was expected.
        why: String,
    },
    /// An option no policy or run setting declares.
    #[error("unknown option --{0}")]
    Unknown(String),
    /// An option given without its value.
    #[error("--{0} needs a value")]
    Missing(String),
    /// An option the chosen policies do not take.
    #[error("--{name} needs {needs}")]
    Unused {
        /// Option name.
        name: String,
        /// What would take it (`--warp-sched laws`).
        needs: String,
    },
    /// Anything else (a policy name no site knows, options that exclude each other).
    #[error("{0}")]
    Other(String),
}

/// The options a user gave, by name (site choices among them: `warp-sched` -> `elf++`); a
/// flag's value is `true`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OptValues {
    given: BTreeMap<String, String>,
}

impl OptValues {
    /// No option given.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `--name value` (a later value replaces an earlier one).
    pub fn set(&mut self, name: &str, value: &str) {
        self.given.insert(name.to_string(), value.to_string());
    }

    /// The value given for `name`, if any.
    pub fn given(&self, name: &str) -> Option<&str> {
        self.given.get(name).map(String::as_str)
    }

    /// Every option given, by name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.given.keys().map(String::as_str)
    }

    /// The value of `spec`: given, or its default; checked against its accepted values.
    pub fn raw(&self, spec: &OptSpec) -> Result<&str, OptError> {
        let v = self.given(spec.name).unwrap_or(spec.default);
        if !spec.values.is_empty() && !spec.values.contains(&v) {
            return Err(OptError::Invalid {
                name: spec.name.into(),
                value: v.into(),
                why: format!("expected one of {}", spec.values.join(", ")),
            });
        }
        Ok(v)
    }

    /// Whether flag `spec` is set.
    pub fn flag(&self, spec: &OptSpec) -> Result<bool, OptError> {
        match self.raw(spec)? {
            "true" => Ok(true),
            "false" => Ok(false),
            v => Err(OptError::Invalid {
                name: spec.name.into(),
                value: v.into(),
                why: "a flag takes no value".into(),
            }),
        }
    }

    /// The value of `spec` parsed as a `T` in `range` (inclusive).
    pub fn number<T>(
        &self,
        spec: &OptSpec,
        range: std::ops::RangeInclusive<T>,
    ) -> Result<T, OptError>
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
    {
        let v = self.raw(spec)?;
        let bad = |why: String| OptError::Invalid {
            name: spec.name.into(),
            value: v.into(),
            why,
        };
        let n: T = v
            .parse()
            .map_err(|_| bad("expected a whole number".into()))?;
        if !range.contains(&n) {
            return Err(bad(format!(
                "expected {} to {}",
                range.start(),
                range.end()
            )));
        }
        Ok(n)
    }

    /// Reads `--name value` and `--name` tokens from `args` (whitespace-separated), each name
    /// looked up with `spec` (a flag takes no value; an option with a bare value takes one
    /// only when the next token is not an option).
    pub fn parse_args(
        args: &str,
        spec: &dyn Fn(&str) -> Option<OptSpec>,
    ) -> Result<Self, OptError> {
        let mut v = Self::new();
        let tokens: Vec<&str> = args.split_whitespace().collect();
        let mut i = 0;
        while i < tokens.len() {
            let t = tokens[i];
            let Some(name) = t.strip_prefix("--") else {
                return Err(OptError::Other(format!(
                    "expected an option (--name), got `{t}`"
                )));
            };
            let s = spec(name).ok_or_else(|| OptError::Unknown(name.into()))?;
            let next = tokens.get(i + 1).filter(|n| !n.starts_with("--"));
            let value = match (s.is_flag(), next, s.bare) {
                (true, _, _) => "true",
                (false, Some(n), _) => {
                    i += 1;
                    n
                }
                (false, None, Some(b)) => b,
                (false, None, None) => return Err(OptError::Missing(name.into())),
            };
            v.set(name, value);
            i += 1;
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const K: OptSpec = OptSpec::value("k", "K", "0", "k");
    const F: OptSpec = OptSpec::flag("f", "f");
    const P: OptSpec = OptSpec::value("p", "N", "0", "p").bare("16");
    const M: OptSpec = OptSpec::value("m", "MODE", "a", "m").one_of(&["a", "b"]);

    fn spec(n: &str) -> Option<OptSpec> {
        [K, F, P, M].into_iter().find(|s| s.name == n)
    }

    #[test]
    fn options_read_back_with_defaults_ranges_and_bare_values() {
        let v = OptValues::parse_args("--k 7 --f --p", &spec).unwrap();
        assert_eq!(v.number(&K, 0u32..=8), Ok(7));
        assert!(v.flag(&F).unwrap());
        assert_eq!(v.number(&P, 0u32..=64), Ok(16));
        assert_eq!(v.raw(&M), Ok("a"));
        let e = v.number(&K, 0u32..=4).unwrap_err().to_string();
        assert_eq!(e, "invalid value `7` for --k: expected 0 to 4");
        let v = OptValues::parse_args("--m c", &spec).unwrap();
        assert!(v.raw(&M).unwrap_err().to_string().contains("one of a, b"));
        assert_eq!(
            OptValues::parse_args("--x 1", &spec),
            Err(OptError::Unknown("x".into()))
        );
        assert_eq!(
            OptValues::parse_args("--k", &spec),
            Err(OptError::Missing("k".into()))
        );
        assert!(OptValues::parse_args("k 1", &spec).is_err());
        let v = OptValues::parse_args("--k x", &spec).unwrap();
        assert!(v.number(&K, 0u32..=8).is_err());
    }
}
