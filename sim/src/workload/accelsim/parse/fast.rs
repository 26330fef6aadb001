//! The common instruction line read in one pass: tokens separated by single spaces, registers
//! and numbers in their usual forms. Anything else (a tab, two spaces, a control byte, a
//! number that does not fit, a malformed token) makes [`inst`] give up, and the line is read
//! again by the careful reader ([`super::inst`]), which says what is wrong or accepts the
//! rarer forms. Where this reader succeeds it gives exactly what the careful one gives (a
//! property test compares them on generated and mutated lines).

use super::{dec, hex, hex16, hex8, other_register, signed, HEX_DIGIT};
use crate::workload::accelsim::{TraceInst, MAX_MEM_WIDTH, MAX_REG, MAX_REGS};

/// The tokens of a line whose separators are single spaces.
struct Words<'a> {
    rest: &'a [u8],
}

/// The length of the token that starts `r`: up to its first byte at or below `b' '` (white
/// space, control bytes), found eight bytes at a time.
#[inline]
fn token_len(r: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = r.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        // The high bit of every byte below 0x21 (a borrow starts only at such a byte, so the
        // lowest flagged byte is the first one).
        let low = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
        if low != 0 {
            return i + (low.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + r[i..]
        .iter()
        .position(|&c| c <= b' ')
        .unwrap_or(r.len() - i)
}

impl<'a> Words<'a> {
    /// The next token; `None` at the line's end or on anything but one space before the next
    /// token (the careful reader then takes the line).
    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let r = self.rest;
        let n = token_len(r);
        if n == 0 {
            return None;
        }
        let (word, after) = r.split_at(n);
        self.rest = match after {
            [] => after,
            [b' ', next, ..] if *next > b' ' => &after[1..],
            _ => return None,
        };
        Some(word)
    }

    /// The next token when it is `0x` and sixteen hexadecimal digits followed by one space
    /// and a token, or by the line's end (an address as Accel-Sim writes them), read without
    /// searching for its end; `None`, nothing consumed, for any other next token (then
    /// [`Words::next`] reads it). `high` holds the last high eight digits read and their value:
    /// the addresses of a warp's lanes mostly share them, and are then not converted again.
    #[inline]
    fn full_address(&mut self, high: &mut (u64, u64)) -> Option<u64> {
        let r = self.rest;
        let digits = r.strip_prefix(b"0x")?.get(..16)?;
        let rest = match &r[18..] {
            [] => &r[18..],
            [b' ', next, ..] if *next > b' ' => &r[19..],
            _ => return None,
        };
        let word = |i: usize| u64::from_le_bytes(digits[i..i + 8].try_into().expect("8 bytes"));
        let hi = word(0);
        if hi != high.0 {
            *high = (hi, hex8(hi)?);
        }
        let v = high.1 << 32 | hex8(word(8))?;
        self.rest = rest;
        Some(v)
    }

    /// The line has no token left.
    fn done(&self) -> bool {
        self.rest.is_empty()
    }
}

/// A hexadecimal token of at most 16 digits (eight and sixteen digits a word at a time).
#[inline]
fn hex_word(t: &[u8]) -> Option<u64> {
    let d = t.strip_prefix(b"0x").unwrap_or(t);
    match d.len() {
        8 => hex8(u64::from_le_bytes(d.try_into().ok()?)),
        16 => hex16(d.try_into().ok()?),
        1..=15 => d.iter().try_fold(0u64, |v, &c| {
            let x = HEX_DIGIT[c as usize];
            (x < 16).then_some(v << 4 | x as u64)
        }),
        _ => None,
    }
}

/// A base address as [`hex`] reads it ([`hex_word`] first: the same value where it reads one).
#[inline]
fn base_address(t: &[u8]) -> Option<u64> {
    hex_word(t).or_else(|| hex(t))
}

/// A decimal token of one to three digits.
#[inline]
fn small_dec(t: &[u8]) -> Option<u64> {
    if t.is_empty() || t.len() > 3 {
        return None;
    }
    t.iter().try_fold(0u64, |v, &c| {
        let d = c.wrapping_sub(b'0');
        (d < 10).then_some(v * 10 + d as u64)
    })
}

/// A register list (count, then registers) into `out`, as [`super::regs`] reads it.
#[inline]
fn regs(w: &mut Words, out: &mut Vec<u16>) -> Option<()> {
    let n = small_dec(w.next()?).filter(|n| *n <= MAX_REGS as u64)?;
    for _ in 0..n {
        let t = w.next()?;
        match t {
            [b'R', digits @ ..] if digits.first().is_some_and(u8::is_ascii_digit) => {
                let r = small_dec(digits).filter(|r| *r <= MAX_REG as u64)?;
                out.push(r as u16);
            }
            _ if other_register(t) => {}
            _ => return None,
        }
    }
    Some(())
}

/// Reads `line` into `out` as [`super::inst`] does and returns the opcode's text; `None`
/// when the line is not in the common form (or is malformed), with `out` in any state.
pub(super) fn inst<'a>(line: &'a [u8], lineinfo: bool, out: &mut TraceInst) -> Option<&'a [u8]> {
    let mut w = Words { rest: line };
    out.dsts.clear();
    out.srcs.clear();
    out.addrs.clear();
    if lineinfo {
        dec(w.next()?)?;
    }
    out.pc = hex_word(w.next()?).filter(|pc| *pc <= u32::MAX as u64)?;
    out.mask = u32::try_from(hex_word(w.next()?)?).ok()?;
    regs(&mut w, &mut out.dsts)?;
    let opcode = w.next()?;
    regs(&mut w, &mut out.srcs)?;
    out.mem_width = small_dec(w.next()?).filter(|v| *v <= MAX_MEM_WIDTH as u64)? as u32;
    if out.mem_width > 0 {
        let active = out.mask.count_ones() as usize;
        match w.next()? {
            b"0" => {
                // No eight ASCII digits read as a zero word: the first address converts.
                let mut high = (0, 0);
                for _ in 0..active {
                    let a = match w.full_address(&mut high) {
                        Some(a) => a,
                        None => hex_word(w.next()?)?,
                    };
                    out.addrs.push(a);
                }
            }
            b"1" => {
                let base = base_address(w.next()?)?;
                let stride = signed(w.next()?)?;
                out.addrs.extend(
                    (0..active as i64).map(|k| base.wrapping_add(k.wrapping_mul(stride) as u64)),
                );
            }
            b"2" => {
                let mut a = base_address(w.next()?)?;
                if active > 0 {
                    out.addrs.push(a);
                }
                for _ in 1..active {
                    a = a.wrapping_add(signed(w.next()?)? as u64);
                    out.addrs.push(a);
                }
            }
            _ => return None,
        }
    }
    w.done().then_some(opcode)
}

#[cfg(test)]
mod tests {
    use super::super::careful_inst;
    use super::*;
    use proptest::prelude::*;

    fn empty() -> TraceInst {
        TraceInst {
            pc: 0,
            mask: 0,
            opcode: 0,
            dsts: vec![7],
            srcs: vec![7],
            mem_width: 0,
            addrs: vec![7],
        }
    }

    /// One token of a register list: general-purpose registers in and out of range, the other
    /// kinds, and malformed ones.
    fn reg() -> impl Strategy<Value = String> {
        prop_oneof![
            60 => (0u32..256).prop_map(|n| format!("R{n}")),
            1 => (256u32..1000).prop_map(|n| format!("R{n}")),
            1 => Just("RZ".to_string()),
            1 => Just("P0".to_string()),
            1 => Just("UR63".to_string()),
            1 => Just("SR_TID.X".to_string()),
            1 => Just("R0007".to_string()),
            1 => Just("Q3".to_string()),
        ]
    }

    /// A number below 2^32 mostly, as traces and hand-written files spell hexadecimal ones.
    fn hex_text() -> impl Strategy<Value = (u64, String)> {
        let v = prop_oneof![15 => any::<u32>().prop_map(u64::from), 1 => any::<u64>()];
        (v, 0..20).prop_map(|(v, form)| {
            let t = match form {
                0..=7 => format!("{v:04x}"),
                8..=14 => format!("{v:08x}"),
                15 => format!("0x{v:016x}"),
                16 => format!("{v:X}"),
                17 => format!("{v:x}"),
                18 => format!("0X{v:x}"),
                _ => format!("000000000000000000{v:x}"),
            };
            (v, t)
        })
    }

    /// Instruction lines of every form the careful reader accepts, and near misses.
    fn line() -> impl Strategy<Value = String> {
        let regs = || prop::collection::vec(reg(), 0..4);
        (
            any::<bool>(),
            hex_text(),
            hex_text(),
            (regs(), prop_oneof![8 => Just(0usize), 1 => Just(1)]),
            prop_oneof![3 => Just("FFMA"), 3 => Just("LDG.E"), 3 => Just("BRA"), 1 => Just("0x1")],
            regs(),
            prop_oneof![3 => Just(0u32), 3 => Just(4), 1 => Just(8), 1 => Just(256)],
            (
                prop_oneof![3 => 0u8..3, 1 => Just(3u8)],
                any::<u64>(),
                -9i64..9,
            ),
        )
            .prop_map(
                |(li, (_, pc), (m, mask), (d, extra), op, s, width, (mode, a, st))| {
                    let mut t: Vec<String> = vec![];
                    if li {
                        t.push("17".into());
                    }
                    t.extend([pc, mask, (d.len() + extra).to_string()]);
                    t.extend(d);
                    t.extend([op.to_string(), s.len().to_string()]);
                    t.extend(s);
                    t.push(width.to_string());
                    if width > 0 {
                        let n = (m as u32).count_ones() as u64;
                        t.push(mode.to_string());
                        match mode {
                            0 => t.extend(
                                (0..n).map(|k| format!("0x{:016x}", a.wrapping_add(k * 4))),
                            ),
                            1 => t.extend([format!("0x{a:x}"), st.to_string()]),
                            2 => t.extend((0..n).map(|k| match k {
                                0 => format!("0x{a:x}"),
                                _ => st.to_string(),
                            })),
                            _ => {}
                        }
                    }
                    t.join(" ")
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2048))]
        /// Where the one-pass reader reads a line, it reads what the careful reader reads
        /// (lines generated in every form, then one byte changed, inserted or the line cut).
        #[test]
        fn the_one_pass_reader_agrees_with_the_careful_reader(
            l in line(),
            at in any::<prop::sample::Index>(),
            edit in 0u8..8,
            byte in prop_oneof![Just(b' '), Just(b'\t'), Just(0x0b), Just(b'x'), Just(b'0'), Just(b'-'), Just(b'Z'), Just(0x80), any::<u8>()],
            odd_lineinfo in prop::bool::weighted(0.1),
        ) {
            let lineinfo = l.starts_with("17 ") != odd_lineinfo;
            let mut b = l.into_bytes();
            let i = at.index(b.len() + 1);
            match edit {
                0 => {}
                1 if i < b.len() => b[i] = byte,
                2 => b.insert(i, byte),
                3 => b.truncate(i),
                _ => {}
            }
            let (mut f, mut c) = (empty(), empty());
            if let Some(op) = inst(&b, lineinfo, &mut f) {
                let careful = careful_inst(&b, lineinfo, &mut c);
                prop_assert_eq!(careful.ok(), Some(op), "line {:?}", String::from_utf8_lossy(&b));
                prop_assert_eq!(f, c);
            }
        }
    }

    #[test]
    fn the_common_lines_are_read_in_one_pass() {
        let wide = format!(
            "01a0 ffffffff 1 R3 IMAD.WIDE 3 R2 RZ P0 8 2 0x7f0000000000 4 -4{}",
            " 8".repeat(29)
        )
        .into_bytes();
        let lines: [&[u8]; 6] = [
            b"0028 ffffffff 1 R5 FFMA 2 R4 R5 0",
            b"0078 ffffffff 0 BRA 0 0",
            b"0028 00010001 1 R10 LDG.E 1 R3 4 1 0x0000000010000000 4",
            b"0030 0000000f 0 STG.E 2 R2 R4 4 0 0x0000000010000000 0x0000000010000004 0x0000000010000008 0x000000001000000c",
            &wide,
            b"0040 80000000 2 R1 R255 S2R 1 SR_TID.X 0",
        ];
        for l in lines {
            let mut i = empty();
            assert!(
                inst(l, false, &mut i).is_some(),
                "{}",
                String::from_utf8_lossy(l)
            );
        }
        let mut i = empty();
        let op = inst(lines[2], false, &mut i).unwrap();
        assert_eq!(op, b"LDG.E");
        assert_eq!((i.pc, i.mask, i.mem_width), (0x28, 0x0001_0001, 4));
        assert_eq!((i.dsts, i.srcs), (vec![10], vec![3]));
        assert_eq!(i.addrs, vec![0x1000_0000, 0x1000_0004]);
        for odd in [
            &b"0028  ffffffff 0 BRA 0 0"[..],
            b"0028\tffffffff 0 BRA 0 0",
            b"0028 ffffffff 0 BRA 0 0 ",
        ] {
            assert!(
                inst(odd, false, &mut empty()).is_none(),
                "{}",
                String::from_utf8_lossy(odd)
            );
        }
    }
}
