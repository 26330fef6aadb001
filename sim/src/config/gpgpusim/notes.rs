//! What a GPGPU-Sim file said that changes nothing in this model, kept to tell the user.

use serde::Serialize;

/// An option, or one field of a structured option, that GPGPU-Sim times and this model reads
/// no further: its value changes nothing in the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unmodelled {
    /// The file that set it.
    pub path: String,
    /// Its line (1-based).
    pub line: usize,
    /// `-option`, or `-option <field>` for a field of a structured option.
    pub option: String,
    /// The value read.
    pub value: String,
    /// What the model does instead, when that can be said in GPGPU-Sim's terms.
    pub model: Option<String>,
}

impl std::fmt::Display for Unmodelled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = crate::input::quote(&self.value);
        write!(f, "{}:{}: {} {value}", self.path, self.line, self.option)?;
        match &self.model {
            Some(m) => write!(f, ": not modelled ({m})"),
            None => write!(f, ": not modelled"),
        }
    }
}

/// The notes of one or more GPGPU-Sim files read in order (a later line of the same option
/// replaces an earlier one's note, as its value replaces the earlier value).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Notes {
    /// Timing options and fields the model does not have, in order of appearance.
    pub unmodelled: Vec<Unmodelled>,
    /// Options without effect on a trace-driven timing run (power, statistics, PTX-mode
    /// options, debugging, units no trace reaches), once each, in order of appearance.
    pub inert: Vec<String>,
}

/// Names shown in [`Notes::summary`] before "and N more".
const SUMMARY_NAMES: usize = 6;

impl Notes {
    /// Records `u`, replacing an earlier note of the same option or field.
    pub(super) fn unmodelled(&mut self, u: Unmodelled) {
        self.forget(&u.option);
        self.unmodelled.push(u);
    }

    /// Drops the note of `option` (a later line set it to a value the model has).
    pub(super) fn forget(&mut self, option: &str) {
        self.unmodelled.retain(|x| x.option != option);
    }

    /// Records an option without timing effect.
    pub(super) fn inert(&mut self, name: &str) {
        if !self.inert.iter().any(|x| x == name) {
            self.inert.push(name.to_string());
        }
    }

    /// Adds the notes of a file read after these.
    pub fn extend(&mut self, later: Notes) {
        for u in later.unmodelled {
            self.unmodelled(u);
        }
        for name in later.inert {
            self.inert(&name);
        }
    }

    /// Whether there is nothing to say.
    pub fn is_empty(&self) -> bool {
        self.unmodelled.is_empty() && self.inert.is_empty()
    }

    /// One short line for the user: the unmodelled options by name (the first few) and the
    /// count of options without timing effect; `None` when there is nothing to say.
    pub fn summary(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut parts = vec![];
        if !self.unmodelled.is_empty() {
            let n = self.unmodelled.len();
            let shown: Vec<&str> = self
                .unmodelled
                .iter()
                .take(SUMMARY_NAMES)
                .map(|u| u.option.as_str())
                .collect();
            let more = match n.saturating_sub(SUMMARY_NAMES) {
                0 => String::new(),
                m => format!(" and {m} more"),
            };
            parts.push(format!(
                "{n} GPGPU-Sim timing setting{} not modelled, changing nothing here: {}{more}",
                if n == 1 { " is" } else { "s are" },
                shown.join(", ")
            ));
        }
        if !self.inert.is_empty() {
            parts.push(format!(
                "{} option{} without effect on a trace-driven run (power, statistics, PTX mode, \
                 debugging, units no trace reaches)",
                self.inert.len(),
                if self.inert.len() == 1 { "" } else { "s" }
            ));
        }
        Some(parts.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(option: &str, line: usize) -> Unmodelled {
        Unmodelled {
            path: "x.config".into(),
            line,
            option: option.into(),
            value: "1".into(),
            model: None,
        }
    }

    #[test]
    fn a_later_line_replaces_a_note_and_the_summary_stays_short() {
        let mut n = Notes::default();
        for i in 0..9 {
            n.unmodelled(u(&format!("-o{i}"), i + 1));
        }
        n.unmodelled(u("-o0", 20));
        n.inert("visualizer_enabled");
        n.inert("visualizer_enabled");
        assert_eq!(n.unmodelled.len(), 9);
        assert_eq!(n.unmodelled.last().unwrap().line, 20);
        let s = n.summary().unwrap();
        assert!(
            s.starts_with("9 GPGPU-Sim timing settings are not modelled"),
            "{s}"
        );
        assert!(
            s.contains(": -o1, -o2, -o3, -o4, -o5, -o6 and 3 more;"),
            "{s}"
        );
        assert!(
            s.ends_with(
                "1 option without effect on a trace-driven run (power, statistics, PTX mode, \
                 debugging, units no trace reaches)"
            ),
            "{s}"
        );
        n.forget("-o0");
        assert_eq!(n.unmodelled.len(), 8);
        assert_eq!(Notes::default().summary(), None);
    }
}
