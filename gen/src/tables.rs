//! The storage a module's tables hold as its Verilog declares them: every memory
//! (`reg [W-1:0] mem [D-1:0];`, what `prim::Ram` emits) counted as `W x D` bits, times the
//! instances of the module that declares it under the top module. This is the figure a
//! paper's SRAM budget compares with; what the memories occupy once mapped (whole block RAMs,
//! 64 bits per LUT RAM) is Yosys's *RAM bits*.

use std::collections::BTreeMap;

/// What one module of the file declares: its memories' bits and the modules it instantiates
/// (name, instances).
#[derive(Default)]
struct ModuleText {
    memory_bits: u64,
    children: BTreeMap<String, u64>,
}

/// Bits of the memories of `top` and of every module under it in `verilog` (0 when `top` is
/// not defined there). Widths and depths are `[hi:lo]` ranges of decimal numbers, as rust-hdl
/// writes them.
pub fn table_bits(verilog: &str, top: &str) -> u64 {
    let modules = parse(verilog);
    let mut memo = BTreeMap::new();
    bits_under(top, &modules, &mut memo, 0)
}

/// Each module's declared memories and instances, by module name.
fn parse(verilog: &str) -> BTreeMap<String, ModuleText> {
    let names: Vec<&str> = verilog
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("module "))
        .map(|rest| identifier(rest).0)
        .collect();
    let mut modules: BTreeMap<String, ModuleText> = BTreeMap::new();
    let mut current: Option<&str> = None;
    for line in verilog.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("module ") {
            current = Some(identifier(rest).0);
            modules
                .entry(current.unwrap_or_default().into())
                .or_default();
            continue;
        }
        if line.starts_with("endmodule") {
            current = None;
            continue;
        }
        let Some(m) = current.and_then(|c| modules.get_mut(c)) else {
            continue;
        };
        if let Some(bits) = memory_declaration(line) {
            m.memory_bits += bits;
        } else if let Some(child) = instance_of(line, &names) {
            *m.children.entry(child.into()).or_default() += 1;
        }
    }
    modules
}

/// Memory bits of `name` and everything under it (`depth` guards against a cyclic text).
fn bits_under(
    name: &str,
    modules: &BTreeMap<String, ModuleText>,
    memo: &mut BTreeMap<String, u64>,
    depth: usize,
) -> u64 {
    if let Some(&b) = memo.get(name) {
        return b;
    }
    let Some(m) = modules.get(name).filter(|_| depth < 64) else {
        return 0;
    };
    let below: u64 = m
        .children
        .iter()
        .map(|(child, n)| n * bits_under(child, modules, memo, depth + 1))
        .sum();
    let total = m.memory_bits + below;
    memo.insert(name.into(), total);
    total
}

/// The leading Verilog identifier of `s` and what follows it.
fn identifier(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `hi - lo + 1` of a leading `[hi:lo]` in `s`, and what follows it.
fn range(s: &str) -> Option<(u64, &str)> {
    let inner = s.trim_start().strip_prefix('[')?;
    let (body, rest) = inner.split_once(']')?;
    let (hi, lo) = body.split_once(':')?;
    let (hi, lo): (u64, u64) = (hi.trim().parse().ok()?, lo.trim().parse().ok()?);
    Some((hi.abs_diff(lo) + 1, rest))
}

/// Bits of a memory declared on `line` (`reg [W-1:0] name [D-1:0];`, the width optional).
fn memory_declaration(line: &str) -> Option<u64> {
    let rest = line.strip_prefix("reg")?;
    let (width, rest) = range(rest).unwrap_or((1, rest));
    let (name, rest) = identifier(rest);
    if name.is_empty() {
        return None;
    }
    let (depth, rest) = range(rest)?;
    rest.trim().starts_with(';').then_some(width * depth)
}

/// The module `line` instantiates (`name instance(`), when `name` is one of `modules`.
fn instance_of<'a>(line: &str, modules: &[&'a str]) -> Option<&'a str> {
    let (name, rest) = identifier(line);
    let module = modules.iter().find(|m| **m == name)?;
    let (instance, rest) = identifier(rest);
    (!instance.is_empty() && rest.trim_start().starts_with('(')).then_some(*module)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
module top(clock, a);
    input wire clock;
    reg[3:0] regs;
    top__lane lane_0(
        .clock(clock)
    );
    top__lane lane_1(
        .clock(clock)
    );
    top__wide wide(
        .clock(clock)
    );
endmodule // top

module top__lane(clock);
    top__lane__words words(
        .clock(clock)
    );
endmodule

module top__lane__words(clock);
    reg[113:0] mem[7:0];
    reg flags[0:3];
endmodule

module top__wide(clock);
    reg[15:0] mem[1023:0];
endmodule
";

    #[test]
    fn memories_count_once_per_instance_under_the_top() {
        // Two lanes of 8 x 114 + 4 x 1 bits, one 1024 x 16 table; `regs` is no memory.
        assert_eq!(table_bits(TEXT, "top"), 2 * (8 * 114 + 4) + 1024 * 16);
        assert_eq!(table_bits(TEXT, "top__lane"), 8 * 114 + 4);
        assert_eq!(table_bits(TEXT, "missing"), 0);
    }

    #[test]
    fn the_emitted_modules_count_their_ram_tables() {
        let text = |m: &str| {
            std::fs::read_to_string(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../rtl-out/{m}.v")),
            )
            .unwrap()
        };
        // `fermi`: 8 lanes of window rectangles (4 x 285), ids (4 x 32), scores (64 x 24),
        // totals (4 x 28) and running slots' rectangles (16 x 285).
        let lanes = 8 * (4 * 285 + 4 * 32 + 64 * 24 + 4 * 28 + 16 * 285);
        let m = "la_tb_dispatch_serial_fermi";
        assert_eq!(table_bits(&text(m), m), lanes);
        // PAWS's distance table: 1024 instructions x 16 bits; ELF keeps none.
        assert_eq!(
            table_bits(&text("paws_base_fermi"), "paws_base_fermi"),
            16384
        );
        assert_eq!(table_bits(&text("elf_base_fermi"), "elf_base_fermi"), 0);
    }
}
