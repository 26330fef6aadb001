//! Readable Verilog from rust-hdl's output: one module per distinct sub-block, names without
//! `$`, and a comment line on every module saying what it is.
//!
//! rust-hdl emits one module per sub-block *instance*, named by its path from the top joined
//! with `$` (`elf_base_fermi$pp_table$slot_pc$3`: element 3 of the array field `slot_pc` of
//! the field `pp_table`), and names the signals of a sub-block instance the same way
//! (`slot_pc$3$q`). Tcl and XDC constraints must escape `$`, and a file of 170 copies of the
//! same register module hides the design. This pass:
//!
//! 1. **Merges identical modules.** Modules whose path differs only in array indices and whose
//!    text is the same (once their own name is taken out) become one module, named by the path
//!    without the indices (`elf_base_fermi$pp_table$slot_pc`), instantiated once per element.
//!    Repeated until nothing changes, so parents that become identical merge too.
//! 2. **Renames every identifier containing `$`** by one rule: a `$` before an array index
//!    (digits) becomes `_`, any other `$` becomes `__`. So `ready$0` is `ready_0` (the port
//!    flattening rule of `gpusim::block`), `pp_table$slot_pc` is `pp_table__slot_pc` and
//!    `slot_pc$3$q` is `slot_pc_3__q`. A renamed identifier that would equal another
//!    identifier of the file is an error, never a silent merge of two signals.
//! 3. **Comments every sub-module** with the sub-block it implements and how many instances use
//!    it (the top module's header is written by the caller).
//! 4. **Adds two Verilator hints**, comments that no other tool reads:
//!    - rust-hdl writes a module's logic as one `always @(*)` block. When that block drives the
//!      inputs of a sub-block and reads its outputs, Verilator sees a false combinational loop
//!      between the two blocks (`UNOPTFLAT`) and settles it by evaluating them again until
//!      nothing changes; the hardware has no loop (Yosys's `check -assert` in the synthesis
//!      gate rejects a real one). In a module that instantiates any sub-block other than a
//!      register, the local `reg`s are declared between `// verilator lint_off UNOPTFLAT` and
//!      `lint_on`. (Verilator's `isolate_assignments` would remove the loop but breaks
//!      rust-hdl's style of reusing a local within the block: the lockstep tests caught it.)
//!    - A primitive's output that a module does not use (a round robin's one-hot when only
//!      the index is needed) is declared between `// verilator lint_off UNUSEDSIGNAL` and
//!      `lint_on`; the logic behind it is removed by synthesis. So is an input port the module
//!      never reads (the warp arbiter's `long_stall` under LRR and GTO, which keep the block's
//!      port contract), with a comment saying so.
//! 5. **Writes single-bit updates as bit selects.** rust-hdl writes `x.replace_bit(j, c)`
//!    (one bit of a vector set from a condition, no branch) as
//!    `x = (x & ~(1 << (j)) | ((c) << (j)));`, which `-Wall` rejects (a 1-bit value shifted
//!    in a wider context) and a reader has to decode; with `j` a constant (digits, `+`, `*`
//!    and parentheses: rust-hdl leaves `l * n + s` of a loop as `0 * 2 + 1`), the statement
//!    is rewritten `x[j] = c;` with `j` evaluated, which means the same.
//! 6. **Writes widenings as concatenations.** rust-hdl writes `bit_cast::<W, w>(y)` (a
//!    `w`-bit signal zero-extended to `W` bits) as `x = ((y) & W'hff..f);`, which `-Wall`
//!    rejects (a `w`-bit operand of a `W`-bit AND). When `y` is a signal declared in the module
//!    with fewer than `W` bits and the mask is `W` ones, the statement is rewritten
//!    `x = {(W - w)'d0, y};`, which means the same.

use std::collections::{BTreeMap, HashMap, HashSet};

/// One module of a Verilog file: its name and its whole text (`module` .. `endmodule` line).
#[derive(Clone, Debug)]
struct Module {
    name: String,
    text: String,
    /// Instances merged into this module (1 when nothing was merged).
    instances: usize,
}

/// Why the pass refused a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadableError {
    /// Text outside `module` .. `endmodule`, or an unterminated module.
    Structure(String),
    /// Two identifiers would get the same name.
    Collision {
        /// The identifier as rust-hdl wrote it.
        original: String,
        /// Its renamed form, already taken.
        renamed: String,
    },
}

impl std::fmt::Display for ReadableError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Structure(why) => write!(f, "unexpected Verilog structure: {why}"),
            Self::Collision { original, renamed } => write!(
                f,
                "`{original}` cannot be renamed `{renamed}`: the name is taken"
            ),
        }
    }
}

/// The readable form of `verilog` (rust-hdl's output for top module `top`): identical
/// sub-modules merged, no `$` in any identifier, a comment line per sub-module.
pub fn readable(verilog: &str, top: &str) -> Result<String, ReadableError> {
    let mut modules = split_modules(verilog)?;
    if !modules.iter().any(|m| m.name == top) {
        return Err(ReadableError::Structure(format!("no module `{top}`")));
    }
    merge_identical(&mut modules);
    let renames = dollar_renames(&modules)?;
    let renamed: Vec<(String, String, bool)> = modules
        .iter()
        .map(|m| {
            let name = renames.get(&m.name).unwrap_or(&m.name).clone();
            (name, rename_identifiers(&m.text, &renames), is_register(m))
        })
        .collect();
    let composite: Vec<&str> = renamed
        .iter()
        .filter(|(_, _, reg)| !reg)
        .map(|(n, _, _)| n.as_str())
        .collect();
    let mut out = String::new();
    for (m, (_, text, _)) in modules.iter().zip(&renamed) {
        if m.name != top {
            out.push_str(&comment(m, top, &renames));
        }
        out.push_str(&zero_extensions(&bit_selects(&verilator_hints(
            text, &composite,
        ))));
        out.push('\n');
    }
    Ok(out)
}

/// Step 5 (module documentation): `x = (x & ~(1 << (j)) | ((c) << (j)));` becomes
/// `x[j] = c;` for a constant `j`; every other line is kept as it is.
fn bit_selects(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&bit_select(line).unwrap_or_else(|| line.to_string()));
        out.push('\n');
    }
    out
}

/// Step 6 (module documentation): `x = ((y) & W'hf..f);` with `y` declared narrower than `W`
/// bits in `text` (one module) becomes `x = {(W - w)'d0, y};`; every other line is kept.
fn zero_extensions(text: &str) -> String {
    // Widths of the signals declared as `... [h:0] name;`.
    let widths: HashMap<&str, u64> = text
        .lines()
        .filter_map(|l| {
            let (range, name) = l.trim().strip_suffix(';')?.rsplit_once(' ')?;
            let (_, range) = range.trim_end().rsplit_once('[')?;
            let high: u64 = range.strip_suffix(":0]")?.parse().ok()?;
            Some((name, high + 1))
        })
        .collect();
    let widen = |line: &str| -> Option<String> {
        let indent = &line[..line.len() - line.trim_start().len()];
        let (target, rest) = line.trim_start().split_once(" = ((")?;
        let (source, mask) = rest.strip_suffix(");")?.split_once(") & ")?;
        let (wide, ones) = mask.split_once("'h")?;
        let wide: u64 = wide.parse().ok()?;
        let narrow = *widths.get(source)?;
        let all_ones = (1..=128).contains(&wide)
            && u128::from_str_radix(ones, 16).ok()? == u128::MAX >> (128 - wide);
        (all_ones && narrow < wide)
            .then(|| format!("{indent}{target} = {{{}'d0, {source}}};", wide - narrow))
    };
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        out.push_str(&widen(line).unwrap_or_else(|| line.to_string()));
        out.push('\n');
    }
    out
}

/// One line of step 5, or `None` when it is not a single-bit update with a literal index.
fn bit_select(line: &str) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let (target, rest) = line.trim_start().split_once(" = (")?;
    let rest = rest.strip_prefix(target)?.strip_prefix(" & ~(1 << (")?;
    let (index, rest) = rest.split_once(")) | ((")?;
    let value = rest.strip_suffix(&format!(") << ({index})));"))?;
    let ident = target.bytes().all(|b| is_ident_char(b) || b == b'$');
    let bit = constant_index(index)?;
    ident.then(|| format!("{indent}{target}[{bit}] = {value};"))
}

/// The value of a constant index expression: decimal numbers, `+`, `*`, parentheses and
/// spaces (`None` for anything else, or on overflow).
fn constant_index(text: &str) -> Option<u64> {
    fn sum(t: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = product(t, at)?;
        while t.get(*at) == Some(&b'+') {
            *at += 1;
            v = v.checked_add(product(t, at)?)?;
        }
        Some(v)
    }
    fn product(t: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = atom(t, at)?;
        while t.get(*at) == Some(&b'*') {
            *at += 1;
            v = v.checked_mul(atom(t, at)?)?;
        }
        Some(v)
    }
    fn atom(t: &[u8], at: &mut usize) -> Option<u64> {
        if t.get(*at) == Some(&b'(') {
            *at += 1;
            let v = sum(t, at)?;
            (t.get(*at) == Some(&b')')).then_some(())?;
            *at += 1;
            return Some(v);
        }
        let start = *at;
        while t.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        std::str::from_utf8(&t[start..*at]).ok()?.parse().ok()
    }
    let t: Vec<u8> = text.bytes().filter(|b| *b != b' ').collect();
    let mut at = 0;
    let v = sum(&t, &mut at)?;
    (at == t.len()).then_some(v)
}

/// A rust-hdl `DFF` module: ports `d`, `q`, `clock`.
fn is_register(m: &Module) -> bool {
    m.text
        .lines()
        .next()
        .is_some_and(|l| l.ends_with("(d,q,clock);"))
}

/// The Verilator hints of step 4 (module documentation) on one module's text; `composite` are
/// the names of the modules of the file that are not registers.
fn verilator_hints(text: &str, composite: &[&str]) -> String {
    let instantiates_composite = text.lines().any(|l| {
        let mut w = l.split_whitespace();
        matches!((w.next(), w.next()), (Some(m), Some(i)) if composite.contains(&m) && i.ends_with('('))
    });
    let mut uses: HashMap<&str, usize> = HashMap::new();
    for (a, b) in identifier_spans(text) {
        *uses.entry(&text[a..b]).or_default() += 1;
    }
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        let decl = line.trim_start();
        let name = decl
            .trim_end_matches(';')
            .rsplit(' ')
            .next()
            .unwrap_or_default();
        if decl.starts_with("reg ") && instantiates_composite {
            out.push_str("    // verilator lint_off UNOPTFLAT\n");
            out.push_str(line);
            out.push_str("\n    // verilator lint_on UNOPTFLAT\n");
        } else if decl.starts_with("input ") && uses.get(name) == Some(&2) {
            // In the port list and declared, never read: a contract port this policy ignores.
            out.push_str("    // not used by this module (kept for the block's port contract)\n");
            out.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
            out.push_str(line);
            out.push_str("\n    // verilator lint_on UNUSEDSIGNAL\n");
        } else if decl.starts_with("wire ") && uses.get(name) == Some(&2) {
            // Declared and bound to the sub-block's port, never read.
            out.push_str("    // verilator lint_off UNUSEDSIGNAL\n");
            out.push_str(line);
            out.push_str("\n    // verilator lint_on UNUSEDSIGNAL\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Splits a file into its modules, in order.
fn split_modules(verilog: &str) -> Result<Vec<Module>, ReadableError> {
    let mut modules = vec![];
    let mut current: Option<Module> = None;
    for (n, line) in verilog.lines().enumerate() {
        match current.as_mut() {
            None => {
                if let Some(rest) = line.strip_prefix("module ") {
                    let name = rest.split('(').next().unwrap_or("").trim().to_string();
                    if name.is_empty() {
                        return Err(ReadableError::Structure(format!(
                            "line {}: a module without a name",
                            n + 1
                        )));
                    }
                    current = Some(Module {
                        name,
                        text: format!("{line}\n"),
                        instances: 1,
                    });
                } else if !line.trim().is_empty() {
                    return Err(ReadableError::Structure(format!(
                        "line {}: text outside a module: `{line}`",
                        n + 1
                    )));
                }
            }
            Some(m) => {
                m.text.push_str(line);
                m.text.push('\n');
                if line.starts_with("endmodule") {
                    modules.extend(current.take());
                }
            }
        }
    }
    match current {
        Some(m) => Err(ReadableError::Structure(format!(
            "module `{}` has no endmodule",
            m.name
        ))),
        None => Ok(modules),
    }
}

/// `name` without its array indices: `a$b$3$c$0` -> `a$b$c`.
fn without_indices(name: &str) -> String {
    name.split('$')
        .filter(|s| s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join("$")
}

/// Merges modules that differ only in array indices of their path, until nothing changes.
fn merge_identical(modules: &mut Vec<Module>) {
    loop {
        // (path without indices, text with the module's own name taken out) -> members.
        let mut groups: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
        for (i, m) in modules.iter().enumerate() {
            let own: HashMap<String, String> = [(m.name.clone(), "\u{1}".to_string())].into();
            let body = rename_identifiers(&m.text, &own);
            groups
                .entry((without_indices(&m.name), body))
                .or_default()
                .push(i);
        }
        let taken: HashSet<String> = modules.iter().map(|m| m.name.clone()).collect();
        let mut renames: HashMap<String, String> = HashMap::new();
        let mut drop: HashSet<usize> = HashSet::new();
        let mut used: HashSet<String> = HashSet::new();
        for ((path, _), members) in &groups {
            if members.len() < 2 {
                continue;
            }
            let first = &modules[members[0]].name;
            // The index-free name, unless another module (or group) has it already.
            let name = if (!taken.contains(path)
                || members.iter().any(|&i| modules[i].name == *path))
                && used.insert(path.clone())
            {
                path.clone()
            } else {
                first.clone()
            };
            for &i in members {
                renames.insert(modules[i].name.clone(), name.clone());
            }
            for &i in &members[1..] {
                drop.insert(i);
            }
            let count: usize = members.iter().map(|&i| modules[i].instances).sum();
            modules[members[0]].instances = count;
        }
        if drop.is_empty() {
            return;
        }
        let mut i = 0;
        modules.retain(|_| {
            i += 1;
            !drop.contains(&(i - 1))
        });
        for m in modules.iter_mut() {
            m.text = rename_identifiers(&m.text, &renames);
            if let Some(n) = renames.get(&m.name) {
                m.name = n.clone();
            }
        }
    }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// Byte ranges of the identifiers of `text`: Verilog simple identifiers (a letter or `_`,
/// then letters, digits, `_` and `$`). System names (`$signed`) and the digits and base
/// letters of numbers (`4'h1f`) are not identifiers.
fn identifier_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut spans = vec![];
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if b[i] == b'$' || b[i].is_ascii_digit() || b[i] == b'\'' {
            i += 1;
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
        } else if is_ident_start(b[i]) {
            while i < b.len() && is_ident_char(b[i]) {
                i += 1;
            }
            spans.push((start, i));
        } else {
            i += 1;
        }
    }
    spans
}

/// Calls `f` on every identifier of `text`.
fn for_each_identifier(text: &str, mut f: impl FnMut(&str)) {
    for (a, b) in identifier_spans(text) {
        f(&text[a..b]);
    }
}

/// `text` with every identifier found in `renames` replaced (one pass).
fn rename_identifiers(text: &str, renames: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (a, b) in identifier_spans(text) {
        if let Some(r) = renames.get(&text[a..b]) {
            out.push_str(&text[at..a]);
            out.push_str(r);
            at = b;
        }
    }
    out.push_str(&text[at..]);
    out
}

/// The `$`-free form of one identifier (the rule of the module documentation).
pub fn without_dollars(ident: &str) -> String {
    let mut parts = ident.split('$');
    let mut out = parts.next().unwrap_or_default().to_string();
    for p in parts {
        let index = !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        out.push_str(if index { "_" } else { "__" });
        out.push_str(p);
    }
    out
}

/// The renaming of every identifier containing `$`, checked for collisions.
fn dollar_renames(modules: &[Module]) -> Result<HashMap<String, String>, ReadableError> {
    let mut plain: HashSet<String> = HashSet::new();
    let mut dollar: BTreeMap<String, String> = BTreeMap::new();
    for m in modules {
        for_each_identifier(&m.text, |id| {
            if id.contains('$') {
                dollar
                    .entry(id.to_string())
                    .or_insert_with(|| without_dollars(id));
            } else {
                plain.insert(id.to_string());
            }
        });
    }
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for (original, renamed) in &dollar {
        if plain.contains(renamed) || seen.insert(renamed, original).is_some() {
            return Err(ReadableError::Collision {
                original: original.clone(),
                renamed: renamed.clone(),
            });
        }
    }
    Ok(dollar.into_iter().collect())
}

/// The comment line above a sub-module: the sub-block it implements and its instance count.
fn comment(m: &Module, top: &str, renames: &HashMap<String, String>) -> String {
    let path = m
        .name
        .strip_prefix(top)
        .unwrap_or(&m.name)
        .trim_start_matches('$')
        .replace('$', ".");
    let what = if is_register(m) {
        "a register (rust-hdl DFF)"
    } else {
        "a sub-block"
    };
    let name = renames.get(&m.name).unwrap_or(&m.name);
    let uses = if m.instances == 1 {
        "1 instance".to_string()
    } else {
        format!("{} instances (one per array element)", m.instances)
    };
    format!("// {name}: {what}, field `{path}` of `{top}`; {uses}.\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "module top(clock,ready$0,ready$1,grant);\n    input wire clock;\n    \
        input wire [3:0] ready$0;\n    input wire [3:0] ready$1;\n    output reg grant;\n    \
        reg [3:0] r$0$d;\n    wire [3:0] r$0$q;\n    reg [3:0] r$1$d;\n    wire [3:0] r$1$q;\n    \
        top$r$0 r$0(.d(r$0$d), .q(r$0$q), .clock(clock));\n    \
        top$r$1 r$1(.d(r$1$d), .q(r$1$q), .clock(clock));\n    \
        always @(*) begin r$0$d = ready$0; r$1$d = ready$1; grant = |(r$0$q & 4'h1) | \
        $signed(r$1$q) > 0; end\nendmodule // top\n\
        module top$r$0(d,q,clock);\n    input wire [3:0] d;\n    output reg [3:0] q;\n    \
        input wire clock;\n    always @(posedge clock) q <= d;\nendmodule // top$r$0\n\
        module top$r$1(d,q,clock);\n    input wire [3:0] d;\n    output reg [3:0] q;\n    \
        input wire clock;\n    always @(posedge clock) q <= d;\nendmodule // top$r$1\n";

    #[test]
    fn a_widening_becomes_a_concatenation() {
        let text =
            "    reg  [23:0] lane;\n    reg  [47:0] x;\n    x = ((lane) & 48'hffffffffffff);\n    \
            x = ((x) & 48'hffffffffffff);\n    x = ((lane) & 48'h7fffffffffff);\n    \
            y = ((lane) & 6'h3f);\n";
        let out = zero_extensions(text);
        assert!(out.contains("    x = {24'd0, lane};\n"), "{out}");
        // Not narrower than the mask, or the mask not all ones: kept.
        assert!(out.contains("x = ((x) & 48'hffffffffffff);"), "{out}");
        assert!(out.contains("x = ((lane) & 48'h7fffffffffff);"), "{out}");
        assert!(out.contains("y = ((lane) & 6'h3f);"), "{out}");
    }

    #[test]
    fn identical_array_modules_merge_and_no_dollar_is_left() {
        let out = readable(SAMPLE, "top").unwrap();
        assert_eq!(out.matches("\nmodule ").count() + 1, 2, "{out}");
        assert!(out.contains("module top__r(d,q,clock);"), "{out}");
        assert!(out.contains("top__r r_0(.d(r_0__d)"), "{out}");
        assert!(out.contains("top__r r_1(.d(r_1__d)"), "{out}");
        assert!(
            out.contains("module top(clock,ready_0,ready_1,grant);"),
            "{out}"
        );
        assert!(out.contains("field `r` of `top`; 2 instances"), "{out}");
        // System functions and sized literals are not identifiers.
        assert!(
            out.contains("$signed(r_1__q)") && out.contains("4'h1"),
            "{out}"
        );
        let dollars = out
            .lines()
            .filter(|l| !l.starts_with("//"))
            .any(|l| l.replace("$signed", "").contains('$'));
        assert!(!dollars, "{out}");
    }

    #[test]
    fn different_elements_stay_apart() {
        let planted = SAMPLE.replacen("q <= d;", "q <= ~d;", 1);
        let out = readable(&planted, "top").unwrap();
        assert!(out.contains("module top__r_0(d,q,clock);"), "{out}");
        assert!(out.contains("module top__r_1(d,q,clock);"), "{out}");
    }

    #[test]
    fn a_name_collision_is_an_error() {
        let clash = SAMPLE.replace("output reg grant;", "output reg grant;\n    wire r_0__d;");
        assert_eq!(
            readable(&clash, "top").unwrap_err(),
            ReadableError::Collision {
                original: "r$0$d".into(),
                renamed: "r_0__d".into()
            }
        );
    }

    #[test]
    fn single_bit_updates_become_bit_selects() {
        let line =
            "        beats$0 = (beats$0 & ~(1 << (12)) | (((w$0 < w$2) | (a & b)) << (12)));";
        assert_eq!(
            bit_select(line).unwrap(),
            "        beats$0[12] = (w$0 < w$2) | (a & b);"
        );
        // Another target, a variable index, or another shape stay as they are.
        assert!(bit_select("x = (y & ~(1 << (1)) | ((c) << (1)));").is_none());
        assert!(bit_select("x = (x & ~(1 << (i)) | ((c) << (i)));").is_none());
        assert_eq!(
            bit_select("x = (x & ~(1 << (3 * 2 + (1))) | ((c) << (3 * 2 + (1))));").unwrap(),
            "x[7] = c;"
        );
        assert!(bit_select("x = (x & ~(1 << (3 - 1)) | ((c) << (3 - 1)));").is_none());
        assert!(bit_select("x = (x & ~(1 << (1)) | ((c) << (2)));").is_none());
        assert!(bit_select("x = x | y;").is_none());
    }

    #[test]
    fn the_renaming_rule() {
        assert_eq!(without_dollars("ready$0"), "ready_0");
        assert_eq!(
            without_dollars("elf$pp_table$slot_pc$3$q"),
            "elf__pp_table__slot_pc_3__q"
        );
        assert_eq!(without_dollars("plain"), "plain");
        assert!(split_modules("wire x;\nmodule a();\nendmodule\n").is_err());
        assert!(split_modules("module a();\n").is_err());
    }
}
