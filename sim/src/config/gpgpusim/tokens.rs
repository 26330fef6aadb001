//! GPGPU-Sim option text split into options, as GPGPU-Sim's `OptionParser::ParseFile` does.

use crate::config::ConfigError;
use std::path::Path;

/// The options of GPGPU-Sim option text as GPGPU-Sim's own parser reads them
/// (`OptionParser::ParseFile`): `#` starts a comment to the end of its line; the rest is
/// whitespace-separated tokens, lines included; a token that starts with `"` runs to the
/// token that ends with `"` (on any later line), joined by single spaces, without the quotes;
/// each option is `-<name>` followed by its value (none when the next token is another option
/// or there is none). Returns (line of the option, name without `-`, value), in order, so a
/// later option overrides an earlier one.
pub(super) fn options(
    text: &str,
    path: &Path,
) -> Result<Vec<(usize, String, String)>, ConfigError> {
    let mut tokens: Vec<(usize, String)> = vec![];
    let mut open: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or_default();
        for t in line.split_whitespace() {
            match open.take() {
                Some((at, mut joined)) => {
                    joined.push(' ');
                    joined.push_str(t);
                    if t.ends_with('"') {
                        tokens.push((at, joined.trim_matches('"').to_string()));
                    } else {
                        open = Some((at, joined));
                    }
                }
                None if t.starts_with('"') && !(t.len() > 1 && t.ends_with('"')) => {
                    open = Some((i + 1, t.to_string()));
                }
                None => tokens.push((i + 1, t.trim_matches('"').to_string())),
            }
        }
    }
    if let Some((at, joined)) = open {
        return Err(ConfigError::Syntax {
            path: path.display().to_string(),
            line: at,
            expected: "a closing `\"` for the quoted value".into(),
            found: format!("`{joined}`"),
        });
    }
    let is_option = |t: &str| {
        t.strip_prefix('-')
            .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    };
    let mut out = vec![];
    let mut it = tokens.into_iter().peekable();
    while let Some((line, t)) = it.next() {
        if !is_option(&t) {
            return Err(ConfigError::Syntax {
                path: path.display().to_string(),
                line,
                expected: "an option line `-<name> <value>` or a `#` comment".into(),
                found: format!("`{t}`"),
            });
        }
        let value = match it.peek() {
            Some((_, v)) if !is_option(v) => it.next().map(|(_, v)| v).unwrap_or_default(),
            _ => String::new(),
        };
        out.push((line, t[1..].to_string(), value.trim().to_string()));
    }
    Ok(out)
}
