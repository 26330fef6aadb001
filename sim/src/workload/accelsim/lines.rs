//! The lines of a trace file as byte slices of one reused buffer: no allocation per line, the
//! newline found with `memchr`, and the byte offset and number of every line kept for error
//! messages and for seeking back to a thread block or a warp.

use crate::workload::compressed::TextFile;
use std::io::{self, Read, Seek, SeekFrom};
use std::ops::Range;

use crate::input::MAX_LINE_BYTES;

/// Bytes read from the file at a time (the buffer grows only for a longer line, up to
/// [`MAX_LINE_BYTES`]). 64 kB: a short run touches about 75 pages fewer than with 256 kB,
/// and the reader's speed is the same (speed history, 2026-12-07 night).
const READ_BYTES: usize = 64 << 10;

/// The UTF-8 byte-order mark, dropped from the start of a file.
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Where the first `\n` of `b` is: a trace line is short, so the first 64 bytes are searched
/// eight at a time before `memchr` takes the rest (it costs more to start than such a line
/// takes to search).
#[inline]
fn find_newline(b: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    for (k, chunk) in b.chunks_exact(8).take(8).enumerate() {
        let x = u64::from_le_bytes(chunk.try_into().expect("8 bytes")) ^ (ONES * b'\n' as u64);
        // The high bit of every zero byte (a borrow starts only at one, so the lowest flagged
        // byte is the first newline).
        let zero = x.wrapping_sub(ONES) & !x & HIGH;
        if zero != 0 {
            return Some(8 * k + (zero.trailing_zeros() / 8) as usize);
        }
    }
    let from = (b.len() / 8).min(8) * 8;
    memchr::memchr(b'\n', &b[from..]).map(|i| from + i)
}

/// A trace file read line by line.
pub(super) struct Lines {
    file: TextFile,
    /// `buf[pos..len]` is read from the file and not consumed yet.
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    eof: bool,
    /// File offset of `buf[pos]`: the bytes consumed so far.
    offset: u64,
    /// Number of the last line consumed (1-based; 0 before the first).
    line_no: usize,
    /// File offset of the start of the last line consumed.
    line_start: u64,
    /// Where the last line consumed starts in `buf`, and the state before it (for
    /// [`Self::unread`]).
    last: Option<(usize, u64, usize)>,
}

impl Lines {
    /// Reads `file` from its start, [`READ_BYTES`] at a time.
    pub(super) fn new(file: TextFile) -> Self {
        Self::with_buffer(file, READ_BYTES)
    }

    /// Reads `file` from its start, `bytes` (at least 1) at a time.
    pub(super) fn with_buffer(file: TextFile, bytes: usize) -> Self {
        Self {
            file,
            buf: vec![0; bytes.max(1)],
            pos: 0,
            len: 0,
            eof: false,
            offset: 0,
            line_no: 0,
            line_start: 0,
            last: None,
        }
    }

    /// Bytes consumed so far (the offset of the next line).
    pub(super) fn offset(&self) -> u64 {
        self.offset
    }

    /// Number of the last line consumed (1-based).
    pub(super) fn line_no(&self) -> usize {
        self.line_no
    }

    /// File offset of the start of the last line consumed.
    #[cfg(test)]
    pub(super) fn line_start(&self) -> u64 {
        self.line_start
    }

    /// The bytes of a range returned by [`Self::next_line`] (valid until the next call).
    pub(super) fn text(&self, r: Range<usize>) -> &[u8] {
        &self.buf[r]
    }

    /// Continues at byte `offset`, which starts line `line_no + 1`.
    pub(super) fn seek(&mut self, offset: u64, line_no: usize) -> io::Result<()> {
        let buffered = self.offset - self.pos as u64..self.offset + (self.len - self.pos) as u64;
        if buffered.contains(&offset) {
            self.pos = (offset - buffered.start) as usize;
        } else {
            self.file.seek(SeekFrom::Start(offset))?;
            (self.pos, self.len, self.eof) = (0, 0, false);
        }
        (self.offset, self.line_no, self.last) = (offset, line_no, None);
        Ok(())
    }

    /// Makes the last line consumed the next one again (once, right after [`Self::next_line`]).
    pub(super) fn unread(&mut self) {
        let (pos, offset, line_no) = self.last.take().expect("a line to unread");
        (self.pos, self.offset, self.line_no) = (pos, offset, line_no);
    }

    /// Fills the buffer after `buf[pos..len]`, moving the unconsumed bytes to its start and
    /// growing it when they fill it; false at end of file.
    fn fill(&mut self) -> io::Result<bool> {
        if self.eof {
            return Ok(false);
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.len, 0);
            (self.len, self.pos) = (self.len - self.pos, 0);
            self.last = None;
        }
        if self.len == self.buf.len() {
            // `buf[..len]` is one line without its end (`next_raw` found none in it).
            if self.len >= MAX_LINE_BYTES {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "line {}: longer than {MAX_LINE_BYTES} bytes without a line end (a \
                         trace line holds one instruction)",
                        self.line_no + 1
                    ),
                ));
            }
            self.buf.resize((self.buf.len() * 2).min(MAX_LINE_BYTES), 0);
        }
        let n = loop {
            match self.file.read(&mut self.buf[self.len..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                r => break r?,
            }
        };
        self.len += n;
        self.eof = n == 0;
        Ok(n > 0)
    }

    /// The next line (without its line end), as a range of the buffer; `None` at end of file.
    fn next_raw(&mut self) -> io::Result<Option<Range<usize>>> {
        let mut searched = 0;
        loop {
            let from = self.pos + searched;
            if let Some(i) = find_newline(&self.buf[from..self.len]) {
                return Ok(Some(self.consume(from + i, 1)));
            }
            searched = self.len - self.pos;
            if !self.fill()? {
                if self.pos == self.len {
                    return Ok(None);
                }
                return Ok(Some(self.consume(self.len, 0)));
            }
        }
    }

    /// Consumes the line `buf[pos..end]` and `ending` bytes after it.
    fn consume(&mut self, end: usize, ending: usize) -> Range<usize> {
        let start = self.pos;
        self.last = Some((start, self.offset, self.line_no));
        self.line_start = self.offset;
        self.line_no += 1;
        self.pos = end + ending;
        self.offset += (end + ending - start) as u64;
        start..end
    }

    /// The next line that is not blank, trimmed of ASCII white space (and the first line of
    /// a UTF-8 byte-order mark); `None` at end of file.
    pub(super) fn next_line(&mut self) -> io::Result<Option<Range<usize>>> {
        while let Some(mut r) = self.next_raw()? {
            if self.line_start == 0 && self.buf[r.clone()].starts_with(UTF8_BOM) {
                r.start += UTF8_BOM.len();
            }
            let t = self.buf[r.clone()].trim_ascii();
            if !t.is_empty() {
                let start = r.start + (t.as_ptr() as usize - self.buf[r.start..].as_ptr() as usize);
                return Ok(Some(start..start + t.len()));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(text: &[u8]) -> (tempfile::TempDir, Lines) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        std::fs::write(&p, text).unwrap();
        let f = std::fs::File::open(&p).unwrap();
        (dir, Lines::new(TextFile::plain(f)))
    }

    fn all(l: &mut Lines) -> Vec<(String, usize, u64)> {
        let mut v = vec![];
        while let Some(r) = l.next_line().unwrap() {
            let t = String::from_utf8(l.text(r).to_vec()).unwrap();
            v.push((t, l.line_no(), l.line_start()));
        }
        v
    }

    #[test]
    fn the_first_newline_is_found_wherever_it_is() {
        for len in 0..80 {
            for at in 0..=len {
                let mut b: Vec<u8> = (0..len).map(|k| [b'a', 0x8a, 0x0b, 0x09][k % 4]).collect();
                if at < len {
                    b[at] = b'\n';
                    if at + 3 < len {
                        b[at + 3] = b'\n';
                    }
                }
                assert_eq!(find_newline(&b), (at < len).then_some(at), "{len} {at}");
            }
        }
    }

    #[test]
    fn a_byte_order_mark_at_the_start_is_dropped() {
        let (_d, mut l) = lines_of(b"\xef\xbb\xbf-kernel name = k\n\xef\xbb\xbfx\n");
        let v = all(&mut l);
        assert_eq!(v[0].0, "-kernel name = k");
        assert_eq!(
            v[1].0.as_bytes(),
            b"\xef\xbb\xbfx",
            "only at the file's start"
        );
    }

    #[test]
    fn lines_are_trimmed_numbered_and_blank_ones_skipped() {
        let (_d, mut l) = lines_of(b"a b\n\n  \t\r\n  c\r\nlast");
        assert_eq!(
            all(&mut l),
            vec![
                ("a b".into(), 1, 0),
                ("c".into(), 4, 10),
                ("last".into(), 5, 15)
            ]
        );
        assert_eq!(l.offset(), 19);
    }

    #[test]
    fn a_line_longer_than_the_buffer_grows_it_and_seek_returns_to_a_line() {
        let long = "x".repeat(READ_BYTES * 2 + 17);
        let text = format!("first\n{long}\nthird\n");
        let (_d, mut l) = lines_of(text.as_bytes());
        let v = all(&mut l);
        assert_eq!(v.len(), 3);
        assert_eq!(v[1].0.len(), long.len());
        assert_eq!((v[2].1, v[2].2), (3, 6 + long.len() as u64 + 1));
        l.seek(6, 1).unwrap();
        let r = l.next_line().unwrap().unwrap();
        assert_eq!((l.text(r).len(), l.line_no()), (long.len(), 2));
        // Back within the buffer, then unread.
        l.seek(0, 0).unwrap();
        let r = l.next_line().unwrap().unwrap();
        assert_eq!(l.text(r), b"first");
        l.unread();
        let r = l.next_line().unwrap().unwrap();
        assert_eq!((l.text(r), l.line_no(), l.offset()), (&b"first"[..], 1, 6));
    }

    #[test]
    fn a_line_that_never_ends_is_an_error_naming_it_not_an_allocation() {
        // A line of exactly the limit is read; one byte more without a line end is refused
        // (a link to a device that never sends a newline would grow the buffer without end).
        let most = "y".repeat(MAX_LINE_BYTES - 1);
        let (_d, mut l) = lines_of(format!("a\n{most}\nb\n").as_bytes());
        assert_eq!(all(&mut l).len(), 3);
        let endless = "z".repeat(MAX_LINE_BYTES + 1);
        let (_d, mut l) = lines_of(format!("a\nb\n{endless}").as_bytes());
        assert!(l.next_line().unwrap().is_some());
        assert!(l.next_line().unwrap().is_some());
        let e = l.next_line().unwrap_err().to_string();
        assert!(e.contains("line 3: longer than 1048576 bytes"), "{e}");
    }
}
