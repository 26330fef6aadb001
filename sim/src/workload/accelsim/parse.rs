//! One instruction line parsed in place from its bytes: tokens are slices of the line,
//! hexadecimal and decimal numbers are read digit by digit with overflow checks, and nothing
//! is allocated unless the line is malformed (the message is written only then).

use super::{TraceInst, MAX_MEM_WIDTH, MAX_REG, MAX_REGS};

mod fast;

/// Register list of an instruction line.
#[derive(Clone, Copy, Debug)]
pub(super) enum RegKind {
    Destination,
    Source,
}

impl RegKind {
    fn name(self) -> &'static str {
        match self {
            RegKind::Destination => "destination",
            RegKind::Source => "source",
        }
    }
}

/// What an instruction line should have had where it failed.
#[derive(Clone, Copy, Debug)]
pub(super) enum Want {
    LineNumber,
    PcBelow4G,
    Mask32,
    RegCount(RegKind),
    Reg(RegKind),
    RegInRange(RegKind),
    Opcode,
    Width,
    Mode,
    /// Address `k` (1-based) of `active`.
    Address {
        k: usize,
        active: usize,
    },
    Base,
    Stride,
    /// Delta `k` (1-based) of `n`.
    Delta {
        k: usize,
        n: usize,
    },
    /// Nothing more after the addresses of `active` lanes of `mask`.
    End {
        active: usize,
        mask: u32,
    },
}

impl Want {
    /// The expectation as the error message states it.
    pub(super) fn expected(self) -> String {
        match self {
            Want::LineNumber => "a source line number".into(),
            Want::PcBelow4G => "a hexadecimal PC below 2^32".into(),
            Want::Mask32 => "a 32-bit hexadecimal active mask".into(),
            Want::RegCount(k) => {
                format!("the number of {} registers (0..={MAX_REGS})", k.name())
            }
            Want::Reg(k) => format!(
                "a {} register (R<n>, RZ, UR0..UR63, URZ, P0..P7, PT, UP0..UP7, UPT or SR_<name>)",
                k.name()
            ),
            Want::RegInRange(k) => {
                format!("a {} register R0..R{MAX_REG} (R{MAX_REG} is RZ)", k.name())
            }
            Want::Opcode => "an opcode".into(),
            Want::Width => format!("the memory width in bytes (0..={MAX_MEM_WIDTH})"),
            Want::Mode => "an address mode (0 list_all, 1 base_stride, 2 base_delta)".into(),
            Want::Address { k, active } => {
                format!("address {k} of {active} (one per active lane)")
            }
            Want::Base => "a hexadecimal base address".into(),
            Want::Stride => "a decimal stride".into(),
            Want::Delta { k, n } => format!("delta {k} of {n} (one per further active lane)"),
            Want::End { active, mask } => {
                format!("the end of the line ({active} active lanes in mask {mask:08x})")
            }
        }
    }
}

/// A malformed instruction line: what was expected, and the token found instead (empty: the
/// line ended).
#[derive(Debug)]
pub(super) struct Bad<'a> {
    pub(super) want: Want,
    pub(super) found: &'a [u8],
}

/// Value of each byte as a hexadecimal digit; 255: not a digit.
const HEX_DIGIT: [u8; 256] = {
    let mut t = [255u8; 256];
    let mut c = 0;
    while c < 10 {
        t[b'0' as usize + c] = c as u8;
        c += 1;
    }
    let mut c = 0;
    while c < 6 {
        t[b'a' as usize + c] = 10 + c as u8;
        t[b'A' as usize + c] = 10 + c as u8;
        c += 1;
    }
    t
};

/// The whitespace-separated tokens of one line.
struct Tokens<'a> {
    line: &'a [u8],
    /// Where the last token read starts, and where reading goes on.
    start: usize,
    at: usize,
}

impl<'a> Tokens<'a> {
    fn skip_space(&mut self) {
        let l = self.line;
        while self.at < l.len() && l[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn next(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        let l = self.line;
        if self.at == l.len() {
            return None;
        }
        self.start = self.at;
        while self.at < l.len() && !l[self.at].is_ascii_whitespace() {
            self.at += 1;
        }
        Some(&l[self.start..self.at])
    }

    /// The last token read.
    fn last(&self) -> &'a [u8] {
        &self.line[self.start..self.at]
    }

    /// The next token, or the line's end reported as `want`.
    fn want(&mut self, want: Want) -> Result<&'a [u8], Bad<'a>> {
        self.next().ok_or(Bad { want, found: b"" })
    }

    /// The next token read as a hexadecimal number (as [`hex`]) in one pass over its bytes;
    /// a malformed token or the line's end is reported as `want`.
    fn hex(&mut self, want: Want) -> Result<u64, Bad<'a>> {
        self.skip_space();
        let (l, start) = (self.line, self.at);
        let mut at = start;
        if l.len() > at + 1 && l[at] == b'0' && (l[at + 1] | 0x20) == b'x' {
            at += 2;
        }
        let digits = at;
        // Full 64-bit addresses (16 digits) are the common token: converted without a chain
        // of dependent steps.
        let end16 = at + 16;
        if end16 <= l.len() && (end16 == l.len() || l[end16].is_ascii_whitespace()) {
            if let Some(v) = hex16(l[at..end16].try_into().expect("16 bytes")) {
                (self.start, self.at) = (start, end16);
                return Ok(v);
            }
        }
        let mut v: u64 = 0;
        while at < l.len() {
            let d = HEX_DIGIT[l[at] as usize];
            if d > 15 || v >> 60 != 0 {
                break;
            }
            v = v << 4 | d as u64;
            at += 1;
        }
        if at > digits && (at == l.len() || l[at].is_ascii_whitespace()) {
            (self.start, self.at) = (start, at);
            return Ok(v);
        }
        self.at = start;
        let found = self.next().unwrap_or(b"");
        Err(Bad { want, found })
    }
}

/// Sixteen hexadecimal digits; `None` if one is not a digit.
#[inline]
fn hex16(b: &[u8; 16]) -> Option<u64> {
    let hi = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
    let lo = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
    Some(hex8(hi)? << 32 | hex8(lo)?)
}

/// Eight ASCII hexadecimal digits loaded little-endian (the first digit in the low byte),
/// converted eight at a time in one word; `None` if a byte is not a digit.
#[inline]
fn hex8(x: u64) -> Option<u64> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    if x & HIGH != 0 {
        return None;
    }
    // Per byte, the high bit set when the byte is at least `lo` / above `hi` (every byte is
    // below 0x80 here, so no sum carries into the next byte or out of the word).
    let at_least = |v: u64, lo: u8| v + ONES * (0x80 - lo as u64);
    let above = |v: u64, hi: u8| v + ONES * (0x7f - hi as u64);
    let digit = at_least(x, b'0') & !above(x, b'9');
    // Letters of either case: `| 0x20` folds `A-F` onto `a-f` and nothing else onto them.
    let folded = x | (ONES * 0x20);
    let letter = at_least(folded, b'a') & !above(folded, b'f');
    if (digit | letter) & HIGH != HIGH {
        return None;
    }
    // Digit values: the low nibble, plus 9 for letters (bit 6 set).
    let nib = (x & (ONES * 0x0f)) + (x >> 6 & ONES) * 9;
    // Pairs of nibbles into bytes, pairs of bytes into 16-bit values, then into 32 bits.
    let bytes = (nib & 0x000f_000f_000f_000f) << 4 | (nib >> 8 & 0x000f_000f_000f_000f);
    let words = (bytes & 0x0000_00ff_0000_00ff) << 8 | (bytes >> 16 & 0x0000_00ff_0000_00ff);
    Some((words & 0xffff) << 16 | (words >> 32 & 0xffff))
}

/// A hexadecimal number, with or without `0x`; `None` if empty, malformed or above 2^64-1.
pub(super) fn hex(t: &[u8]) -> Option<u64> {
    let d = t
        .strip_prefix(b"0x")
        .or_else(|| t.strip_prefix(b"0X"))
        .unwrap_or(t);
    if d.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in d {
        let x = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        if v >> 60 != 0 {
            return None;
        }
        v = v << 4 | x as u64;
    }
    Some(v)
}

/// A decimal number without sign; `None` if empty, malformed or above 2^64-1.
pub(super) fn dec(t: &[u8]) -> Option<u64> {
    if t.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &c in t {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add((c - b'0') as u64)?;
    }
    Some(v)
}

/// A decimal number with an optional sign; `None` if malformed or outside `i64`.
pub(super) fn signed(t: &[u8]) -> Option<i64> {
    match t.split_first() {
        Some((b'-', m)) => {
            let m = dec(m)?;
            (m <= 1 << 63).then(|| (m as i64).wrapping_neg())
        }
        Some((b'+', m)) => i64::try_from(dec(m)?).ok(),
        _ => i64::try_from(dec(t)?).ok(),
    }
}

/// `digits` is a decimal number of at most `max`.
fn number_at_most(digits: &[u8], max: u64) -> bool {
    digits.iter().all(u8::is_ascii_digit) && dec(digits).is_some_and(|n| n <= max)
}

/// `t` names a register that is not a general-purpose one: the zero registers `RZ` and
/// `URZ`, a uniform register `UR0`..`UR63`, a predicate `P0`..`P7`, `PT`, `UP0`..`UP7`,
/// `UPT`, or a special register `SR_<name>` (letters, digits, `_` and `.`).
fn other_register(t: &[u8]) -> bool {
    match t {
        b"RZ" | b"URZ" | b"PT" | b"UPT" => true,
        _ if t.starts_with(b"SR_") => {
            t.len() > 3
                && t[3..]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
        }
        _ if t.starts_with(b"UR") => t.len() > 2 && number_at_most(&t[2..], 63),
        _ if t.starts_with(b"UP") => t.len() > 2 && number_at_most(&t[2..], 7),
        _ if t.starts_with(b"P") => t.len() > 1 && number_at_most(&t[1..], 7),
        _ => false,
    }
}

/// Reads a register list (count, then registers) into `out`; general-purpose registers are
/// kept, the other kinds ([`other_register`]: P0, UR4, SR_TID.X...) consumed but not listed,
/// and anything else (`R9999x`, `Q3`) is an error.
fn regs<'a>(tok: &mut Tokens<'a>, kind: RegKind, out: &mut Vec<u16>) -> Result<(), Bad<'a>> {
    let t = tok.want(Want::RegCount(kind))?;
    let n = dec(t).filter(|n| *n <= MAX_REGS as u64).ok_or(Bad {
        want: Want::RegCount(kind),
        found: t,
    })?;
    for _ in 0..n {
        let t = tok.want(Want::Reg(kind))?;
        match t.strip_prefix(b"R") {
            Some(digits) if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) => {
                let r = dec(digits).filter(|r| *r <= MAX_REG as u64).ok_or(Bad {
                    want: Want::RegInRange(kind),
                    found: t,
                })?;
                out.push(r as u16);
            }
            _ if other_register(t) => {}
            _ => {
                return Err(Bad {
                    want: Want::Reg(kind),
                    found: t,
                })
            }
        }
    }
    Ok(())
}

/// Parses the instruction line `line` into `out` (its lists cleared first; `out.opcode` is
/// left to the caller) and returns the opcode's text. `lineinfo`: the line starts with a
/// source line number. The common form is read in one pass ([`fast::inst`]); any other line
/// by the careful reader, which names what is wrong.
pub(super) fn inst<'a>(
    line: &'a [u8],
    lineinfo: bool,
    out: &mut TraceInst,
) -> Result<&'a [u8], Bad<'a>> {
    match fast::inst(line, lineinfo, out) {
        Some(opcode) => Ok(opcode),
        None => careful_inst(line, lineinfo, out),
    }
}

/// [`inst`] token by token: any ASCII white space between tokens, every register and number
/// form, and the expectation that failed for a malformed line.
fn careful_inst<'a>(
    line: &'a [u8],
    lineinfo: bool,
    out: &mut TraceInst,
) -> Result<&'a [u8], Bad<'a>> {
    let bad = |want, found| Bad { want, found };
    let mut tok = Tokens {
        line,
        start: 0,
        at: 0,
    };
    out.dsts.clear();
    out.srcs.clear();
    out.addrs.clear();
    if lineinfo {
        let t = tok.want(Want::LineNumber)?;
        dec(t).ok_or(bad(Want::LineNumber, t))?;
    }
    let pc = tok.hex(Want::PcBelow4G)?;
    out.pc = pc;
    if pc > u32::MAX as u64 {
        return Err(bad(Want::PcBelow4G, tok.last()));
    }
    let mask = tok.hex(Want::Mask32)?;
    if mask > u32::MAX as u64 {
        return Err(bad(Want::Mask32, tok.last()));
    }
    out.mask = mask as u32;
    regs(&mut tok, RegKind::Destination, &mut out.dsts)?;
    let opcode = tok.want(Want::Opcode)?;
    regs(&mut tok, RegKind::Source, &mut out.srcs)?;
    let t = tok.want(Want::Width)?;
    out.mem_width = dec(t)
        .filter(|w| *w <= MAX_MEM_WIDTH as u64)
        .ok_or(bad(Want::Width, t))? as u32;
    let active = out.mask.count_ones() as usize;
    if out.mem_width > 0 {
        let t = tok.want(Want::Mode)?;
        match t {
            b"0" => {
                for k in 0..active {
                    out.addrs.push(tok.hex(Want::Address { k: k + 1, active })?);
                }
            }
            b"1" => {
                let t = tok.want(Want::Base)?;
                let base = hex(t).ok_or(bad(Want::Base, t))?;
                let t = tok.want(Want::Stride)?;
                let stride = signed(t).ok_or(bad(Want::Stride, t))?;
                out.addrs.extend(
                    (0..active as i64).map(|k| base.wrapping_add(k.wrapping_mul(stride) as u64)),
                );
            }
            b"2" => {
                let t = tok.want(Want::Base)?;
                let mut a = hex(t).ok_or(bad(Want::Base, t))?;
                if active > 0 {
                    out.addrs.push(a);
                }
                for k in 1..active {
                    let want = Want::Delta { k, n: active - 1 };
                    let t = tok.want(want)?;
                    a = a.wrapping_add(signed(t).ok_or(bad(want, t))? as u64);
                    out.addrs.push(a);
                }
            }
            other => return Err(bad(Want::Mode, other)),
        }
    }
    if let Some(extra) = tok.next() {
        let mask = out.mask;
        return Err(bad(Want::End { active, mask }, extra));
    }
    Ok(opcode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The byte-level number readers agree with the standard library's (signs aside:
        /// `dec` and `hex` take none).
        #[test]
        fn numbers_read_as_the_standard_library_reads_them(v in any::<u64>(), s in any::<i64>(), junk in "[0-9a-fA-Fx+-]{0,20}") {
            prop_assert_eq!(hex(format!("{v:x}").as_bytes()), Some(v));
            prop_assert_eq!(hex(format!("0x{v:016X}").as_bytes()), Some(v));
            prop_assert_eq!(dec(v.to_string().as_bytes()), Some(v));
            prop_assert_eq!(signed(s.to_string().as_bytes()), Some(s));
            let unsigned = !junk.starts_with('+');
            if unsigned {
                prop_assert_eq!(dec(junk.as_bytes()), junk.parse::<u64>().ok());
                let digits = junk.strip_prefix("0x").or_else(|| junk.strip_prefix("0X")).unwrap_or(&junk);
                prop_assert_eq!(hex(junk.as_bytes()), u64::from_str_radix(digits, 16).ok().filter(|_| !digits.starts_with('+')));
            }
            prop_assert_eq!(signed(junk.as_bytes()), junk.parse::<i64>().ok());
        }

        /// Sixteen digits read a word at a time agree with the digit-by-digit reader, for
        /// any bytes (digits of both cases, their neighbours in ASCII, any byte at all).
        #[test]
        fn sixteen_digits_read_as_the_scalar_reader_reads_them(
            v in any::<u64>(),
            upper in any::<bool>(),
            noise in proptest::collection::vec((0usize..16, prop_oneof![
                Just(b'/'), Just(b':'), Just(b'@'), Just(b'G'), Just(b'`'), Just(b'g'),
                Just(0x10u8), Just(0x19u8), Just(b'F' | 0x80), any::<u8>()
            ]), 0..3),
        ) {
            let text = if upper { format!("{v:016X}") } else { format!("{v:016x}") };
            let mut b: [u8; 16] = text.as_bytes().try_into().unwrap();
            prop_assert_eq!(hex16(&b), Some(v));
            for (at, byte) in noise {
                b[at] = byte;
            }
            let strict = std::str::from_utf8(&b)
                .ok()
                .filter(|t| t.bytes().all(|c| c.is_ascii_hexdigit()))
                .and_then(|t| u64::from_str_radix(t, 16).ok());
            prop_assert_eq!(hex16(&b), strict);
        }
    }

    #[test]
    fn an_instruction_line_fills_the_reused_lists() {
        let mut i = TraceInst {
            pc: 0,
            mask: 0,
            opcode: 0,
            dsts: vec![9, 9],
            srcs: vec![],
            mem_width: 0,
            addrs: vec![1],
        };
        let op = inst(
            b"0010 0000000f 1 R2 LDG.E 2 R4 P0 4 1 0x100 -4",
            false,
            &mut i,
        )
        .unwrap();
        assert_eq!(op, b"LDG.E");
        assert_eq!((i.pc, i.mask, i.mem_width), (0x10, 0xf, 4));
        assert_eq!(
            (i.dsts.as_slice(), i.srcs.as_slice()),
            (&[2u16][..], &[4u16][..])
        );
        assert_eq!(i.addrs, vec![0x100, 0xfc, 0xf8, 0xf4]);
        let e = inst(
            b"0010 0000000f 1 R2 LDG.E 1 R4 4 0 0x100 0x104 0x1z8 0",
            false,
            &mut i,
        )
        .unwrap_err();
        assert_eq!(e.want.expected(), "address 3 of 4 (one per active lane)");
        assert_eq!(e.found, b"0x1z8");
    }
}
