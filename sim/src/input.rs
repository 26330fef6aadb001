//! Opening what users give the tools (traces, kernel lists, mixes, configurations): one path
//! for every reader, so that each refuses alike what would hang or exhaust memory.
//!
//! Only regular files are read (a FIFO or a device can block forever or never end), and a text
//! file is read whole only up to [`MAX_TEXT_BYTES`]; traces are read line by line, each line
//! at most [`MAX_LINE_BYTES`].

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Largest text file read whole (a kernel list, a mix, a configuration): 64 MiB.
pub const MAX_TEXT_BYTES: u64 = 64 << 20;

/// Longest trace line: 1 MiB (an instruction line with 32 addresses is under 1 KiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Opens `path` for reading if it is a regular file (after links), or says what it is.
pub fn open_regular(path: &Path) -> io::Result<File> {
    // Asked before opening: opening a FIFO for reading waits for a writer.
    let t = std::fs::metadata(path)?.file_type();
    if t.is_file() {
        return File::open(path);
    }
    let what = if t.is_dir() {
        "a directory"
    } else {
        "not a regular file (a FIFO, a socket or a device: it may never end)"
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, what))
}

/// The text of the regular file `path`, at most [`MAX_TEXT_BYTES`], as UTF-8; a UTF-8
/// byte-order mark at its start (as some Windows editors write) is dropped.
pub fn read_text(path: &Path) -> io::Result<String> {
    let f = open_regular(path)?;
    let mut text = String::new();
    f.take(MAX_TEXT_BYTES + 1).read_to_string(&mut text)?;
    if text.len() as u64 > MAX_TEXT_BYTES {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB: not a text input", MAX_TEXT_BYTES >> 20),
        ));
    }
    if let Some(rest) = text.strip_prefix(BOM) {
        text = rest.to_string();
    }
    Ok(text)
}

/// The UTF-8 byte-order mark.
pub const BOM: char = '\u{feff}';

/// Longest piece of user text an error message quotes, in characters.
pub const MAX_QUOTE_CHARS: usize = 80;

/// `text` as an error message quotes it: control characters escaped (`\u{1}`, `\n`), at
/// most [`MAX_QUOTE_CHARS`] characters, a longer one cut with its length in bytes.
pub fn quote(text: &str) -> String {
    let mut out = String::new();
    for (n, c) in text.chars().enumerate() {
        if n == MAX_QUOTE_CHARS {
            out.push_str(&format!("... ({} bytes in all)", text.len()));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_short_and_printable() {
        assert_eq!(quote("(1,1,1)"), "(1,1,1)");
        assert_eq!(quote("a\u{1}b\n"), "a\\u{1}b\\n");
        let long = quote(&"9".repeat(300_000));
        assert_eq!(long, format!("{}... (300000 bytes in all)", "9".repeat(80)));
    }

    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path()).unwrap_err().to_string();
        assert!(e.contains("directory"), "{e}");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            assert!(made.is_ok_and(|s| s.success()), "mkfifo (coreutils)");
            // No writer ever comes: opening it would wait for ever.
            let e = read_text(&fifo).unwrap_err().to_string();
            assert!(e.contains("not a regular file"), "{e}");
        }
        let big = dir.path().join("big");
        let f = File::create(&big).unwrap();
        f.set_len(MAX_TEXT_BYTES + 1).unwrap();
        let e = read_text(&big).unwrap_err().to_string();
        assert!(e.contains("larger than 64 MiB"), "{e}");
        let small = dir.path().join("small");
        std::fs::write(&small, "kernel-1.traceg\n").unwrap();
        assert_eq!(read_text(&small).unwrap(), "kernel-1.traceg\n");
        // A byte-order mark is dropped, so a TOML, a mix or a GPGPU-Sim file with one reads.
        std::fs::write(&small, "\u{feff}-gpgpu_n_mem 6\n").unwrap();
        assert_eq!(read_text(&small).unwrap(), "-gpgpu_n_mem 6\n");
    }
}
