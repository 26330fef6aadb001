//! Compressed kernel traces: a trace's compression is read from its first bytes, never from
//! its name.
//!
//! * Plain text (`kernel-N.traceg`): read in place.
//! * xz (`kernel-N.traceg.xz`, what Accel-Sim's tracer writes since January 2025): decoded
//!   once, from when the kernel is opened, on a thread of its own into a temporary file in
//!   the system's temporary directory (`$TMPDIR`); every reader of that kernel (the reader
//!   ahead, streamed warps seeking back) reads that file as a plain trace, waiting for the
//!   decoder where it has not written yet. The file is removed when the last reader is
//!   dropped. Memory stays bounded as for a plain trace: the decoder holds at most
//!   [`XZ_MEMLIMIT`] bytes; the disk holds the decoded text.
//! * zstd (Accel-Sim 2.0's per-warp `.tracez`): refused with a clear error.
//!
//! A corrupt or truncated stream is an error naming the file and the compressed byte offset
//! where decoding stopped; a shortened kernel is never run.

use super::accelsim::TraceError;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use tempfile::TempPath;

/// The first bytes of an xz stream.
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0];
/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Most memory the xz decoder may hold, bytes (`xz -9` needs 65 MiB on one thread).
pub const XZ_MEMLIMIT: u64 = 256 << 20;

/// How a trace file is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Text.
    Plain,
    /// An xz stream (or several, concatenated).
    Xz,
    /// A zstd frame.
    Zstd,
}

/// The compression of `path`, read from its first bytes.
pub fn detect(path: &Path) -> Result<Compression, TraceError> {
    let f = open(path)?;
    let mut head = Vec::with_capacity(XZ_MAGIC.len());
    f.take(XZ_MAGIC.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| io_error(path, e))?;
    Ok(if head.starts_with(&XZ_MAGIC) {
        Compression::Xz
    } else if head.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd
    } else {
        Compression::Plain
    })
}

/// A kernel trace as plain text: the file itself, or its decoded copy. Cloning the [`Arc`]
/// that [`PlainTrace::open`] returns shares the copy; it is removed with the last clone.
#[derive(Debug)]
pub struct PlainTrace {
    /// The file the user named (what errors quote).
    name: PathBuf,
    /// The plain text to read (`name` itself, or the decoded copy).
    read: PathBuf,
    /// Bytes of plain text of a plain file.
    len: u64,
    /// The decoder filling the copy (`None`: a plain file).
    decoding: Option<Arc<Decoding>>,
    /// The decoded copy, removed on drop.
    _copy: Option<TempPath>,
}

/// The decoder thread's progress, shared with the readers of its copy.
#[derive(Debug, Default)]
struct Decoding {
    state: Mutex<Decoded>,
    /// Signalled when `state` changes.
    grew: Condvar,
    /// Set when the trace is dropped: the thread stops at its next chunk.
    cancel: AtomicBool,
}

/// How far the decoder is.
#[derive(Debug, Default)]
struct Decoded {
    /// Bytes of text in the copy.
    written: u64,
    /// `Some` once the decoder ended: `Ok` at the end of the stream, or the error.
    end: Option<Result<(), String>>,
}

impl Decoding {
    fn update(&self, f: impl FnOnce(&mut Decoded)) {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()));
        self.grew.notify_all();
    }

    /// Waits until the copy holds more than `at` bytes (true) or the decoder ended there
    /// (false: the end of the text), or returns its error.
    fn wait_past(&self, at: u64) -> std::io::Result<bool> {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if s.written > at {
                return Ok(true);
            }
            match &s.end {
                Some(Ok(())) => return Ok(false),
                Some(Err(m)) => return Err(std::io::Error::other(m.clone())),
                None => s = self.grew.wait(s).unwrap_or_else(|p| p.into_inner()),
            }
        }
    }
}

impl PlainTrace {
    /// The trace `path` as plain text. A compressed one is decoded on a thread of its own
    /// into a temporary file, which [`Self::open_text`]'s readers read as it grows.
    pub fn open(path: &Path) -> Result<Arc<Self>, TraceError> {
        match detect(path)? {
            Compression::Plain => Ok(Arc::new(Self {
                name: path.to_path_buf(),
                read: path.to_path_buf(),
                len: open(path)?.metadata().map_err(|e| io_error(path, e))?.len(),
                decoding: None,
                _copy: None,
            })),
            Compression::Xz => start_xz(path).map(Arc::new),
            Compression::Zstd => Err(TraceError::Io {
                file: path.to_path_buf(),
                message: "a zstd stream (Accel-Sim 2.0's `.tracez`?): not supported; \
                          give the tracer's text or xz output (`kernel-N.traceg[.xz]`)"
                    .into(),
            }),
        }
    }

    /// The file the user named.
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// The plain text file (for a compressed trace, its copy as decoded so far: read it
    /// with [`Self::open_text`]).
    pub fn text_path(&self) -> &Path {
        &self.read
    }

    /// A reader of the text from its start (of a compressed trace: waits for the decoder at
    /// the end of what it has written; its error is the reader's).
    pub fn open_text(&self) -> std::io::Result<TextFile> {
        Ok(TextFile {
            file: crate::input::open_regular(&self.read)?,
            at: 0,
            decoding: self.decoding.clone(),
        })
    }

    /// Bytes of plain text (of a compressed trace: waits for the decoder to end).
    pub fn text_len(&self) -> Result<u64, TraceError> {
        match &self.decoding {
            None => Ok(self.len),
            Some(d) => {
                d.wait_past(u64::MAX).map_err(|e| io_error(&self.name, e))?;
                Ok(d.state.lock().unwrap_or_else(|p| p.into_inner()).written)
            }
        }
    }

    /// Whether the text holds at least `bytes` bytes (of a compressed trace: waits until the
    /// decoder has written that many, or ended).
    pub fn at_least(&self, bytes: u64) -> bool {
        match &self.decoding {
            None => self.len >= bytes,
            Some(d) => bytes == 0 || d.wait_past(bytes - 1).unwrap_or(false),
        }
    }

    /// Whether the text is a decoded copy of a compressed file.
    pub fn decoded(&self) -> bool {
        self.decoding.is_some()
    }
}

impl Drop for PlainTrace {
    fn drop(&mut self) {
        if let Some(d) = &self.decoding {
            d.cancel.store(true, Ordering::Relaxed);
        }
    }
}

/// The text of a trace, read as a file; a compressed trace's copy is read as its decoder
/// writes it.
pub struct TextFile {
    file: File,
    /// Offset of the next byte read.
    at: u64,
    decoding: Option<Arc<Decoding>>,
}

impl TextFile {
    /// The plain text file `file`, read from where it is.
    pub fn plain(file: File) -> Self {
        Self {
            file,
            at: 0,
            decoding: None,
        }
    }
}

impl Read for TextFile {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            self.at += n as u64;
            let Some(d) = &self.decoding else {
                return Ok(n);
            };
            if n > 0 || buf.is_empty() || !d.wait_past(self.at)? {
                return Ok(n);
            }
        }
    }
}

impl Seek for TextFile {
    fn seek(&mut self, pos: SeekFrom) -> std::io::Result<u64> {
        self.at = self.file.seek(pos)?;
        Ok(self.at)
    }
}

fn open(path: &Path) -> Result<File, TraceError> {
    crate::input::open_regular(path).map_err(|e| io_error(path, e))
}

fn io_error(path: &Path, e: std::io::Error) -> TraceError {
    TraceError::Io {
        file: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Starts decoding the xz file `path` (every concatenated stream) into a temporary file.
fn start_xz(path: &Path) -> Result<PlainTrace, TraceError> {
    let input = open(path)?;
    let tmp = tempfile::Builder::new()
        .prefix("gpusched-trace-")
        .suffix(".traceg")
        .tempfile()
        .map_err(|e| TraceError::Io {
            file: path.to_path_buf(),
            message: format!(
                "cannot create a file to decode into in {}: {e}",
                std::env::temp_dir().display()
            ),
        })?;
    let (out, copy) = tmp.into_parts();
    let decoding = Arc::new(Decoding::default());
    let d = decoding.clone();
    let name = path.to_path_buf();
    std::thread::Builder::new()
        .name("xz-decoder".into())
        .spawn(move || {
            let end = decode_xz(input, out, &d).map_err(|e| e.to_string());
            d.update(|s| s.end = Some(end));
        })
        .map_err(|e| io_error(path, e))?;
    Ok(PlainTrace {
        name,
        read: copy.to_path_buf(),
        len: 0,
        decoding: Some(decoding),
        _copy: Some(copy),
    })
}

/// Decodes `input` into `out` a chunk at a time, publishing each chunk in `d`.
fn decode_xz(input: File, mut out: File, d: &Decoding) -> std::io::Result<()> {
    let stream =
        liblzma::stream::Stream::new_stream_decoder(XZ_MEMLIMIT, liblzma::stream::CONCATENATED)?;
    let mut dec =
        liblzma::bufread::XzDecoder::new_stream(BufReader::with_capacity(1 << 20, input), stream);
    let mut buf = vec![0u8; 1 << 20];
    loop {
        if d.cancel.load(Ordering::Relaxed) {
            return Ok(());
        }
        let n = match dec.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) => return Err(xz_error(dec.total_in(), e)),
        };
        out.write_all(&buf[..n]).map_err(write_error)?;
        d.update(|s| s.written += n as u64);
    }
}

fn xz_error(offset: u64, e: std::io::Error) -> std::io::Error {
    let what = if e.kind() == std::io::ErrorKind::UnexpectedEof {
        "the xz stream ends early (a truncated file?)".to_string()
    } else {
        format!("corrupt xz data ({e})")
    };
    std::io::Error::other(format!(
        "{what}, at compressed byte {offset}; reading stops here"
    ))
}

fn write_error(e: std::io::Error) -> std::io::Error {
    std::io::Error::other(format!(
        "cannot write its decoded text to {}: {e}",
        std::env::temp_dir().display()
    ))
}

/// A trace file being written: plain text, or xz.
pub struct TraceWriter {
    inner: Sink,
}

enum Sink {
    Plain(BufWriter<File>),
    Xz(BufWriter<liblzma::write::XzEncoder<File>>),
}

impl TraceWriter {
    /// Creates `path`, written as plain text (`xz_level` `None`) or as an xz stream of that
    /// preset (0-9), compressed on every core.
    pub fn create(path: &Path, xz_level: Option<u32>) -> std::io::Result<Self> {
        let f = File::create(path)?;
        let inner = match xz_level {
            None => Sink::Plain(BufWriter::with_capacity(1 << 20, f)),
            Some(level) => {
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u32;
                let stream = liblzma::stream::MtStreamBuilder::new()
                    .threads(threads)
                    .preset(level)
                    .check(liblzma::stream::Check::Crc64)
                    .encoder()?;
                Sink::Xz(BufWriter::with_capacity(
                    1 << 20,
                    liblzma::write::XzEncoder::new_stream(f, stream),
                ))
            }
        };
        Ok(Self { inner })
    }

    /// Writes what is buffered and ends the xz stream.
    pub fn finish(self) -> std::io::Result<()> {
        match self.inner {
            Sink::Plain(w) => w.into_inner().map_err(|e| e.into_error())?.sync_all(),
            Sink::Xz(w) => w
                .into_inner()
                .map_err(|e| e.into_error())?
                .finish()?
                .sync_all(),
        }
    }
}

impl Write for TraceWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.inner {
            Sink::Plain(w) => w.write(buf),
            Sink::Xz(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.inner {
            Sink::Plain(w) => w.flush(),
            Sink::Xz(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::accelsim::KernelTrace;
    use crate::workload::export::export_with;
    use crate::workload::kernel::{TraceWorkload, WorkloadSource};

    /// `workload` (small) exported into `dir`, plain or as xz.
    fn exported(workload: &str, dir: &Path, xz: Option<u32>) {
        let mut w = crate::workload::open_named(workload, "small").unwrap();
        export_with(w.as_mut(), dir, None, xz, &mut |_| {}).unwrap();
    }

    /// The statistics of a run of the trace `dir` on gtx480 (blocks over 4 KB streamed, 16
    /// instructions at a time, when `streamed`).
    fn stats(dir: &Path, streamed: bool) -> serde_json::Value {
        let w = TraceWorkload::open(dir).unwrap();
        let mut w = if streamed {
            w.with_streaming(4096, 16)
        } else {
            w
        };
        let cfg = crate::config::GpuConfig::preset("gtx480").unwrap();
        let mut gpu = crate::gpu::Gpu::golden(&cfg, Default::default()).unwrap();
        let r = gpu
            .run(&mut w as &mut dyn WorkloadSource, &mut |_| {})
            .unwrap();
        let mut v = serde_json::to_value(r).unwrap();
        v["workload"] = serde_json::Value::Null;
        v
    }

    /// Every block of `path` read; the first error.
    fn read_all(path: &Path) -> Result<u64, TraceError> {
        let mut k = KernelTrace::open(path)?;
        let mut n = 0;
        while k.next_block()?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    #[test]
    fn an_xz_trace_runs_as_the_plain_one() {
        let (plain, xz) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        exported("lud", plain.path(), None);
        exported("lud", xz.path(), Some(6));
        let list = std::fs::read_to_string(xz.path().join("kernelslist.g")).unwrap();
        assert!(list.lines().all(|l| l.ends_with(".traceg.xz")), "{list}");
        let k = xz.path().join("kernel-1.traceg.xz");
        assert_eq!(detect(&k).unwrap(), Compression::Xz);
        // Whole blocks, and streamed warps that seek back into the decoded copy.
        for streamed in [false, true] {
            assert_eq!(
                stats(plain.path(), streamed),
                stats(xz.path(), streamed),
                "streamed: {streamed}"
            );
        }
    }

    #[test]
    fn compression_is_read_from_the_bytes_not_the_name() {
        let dir = tempfile::tempdir().unwrap();
        exported("stream", dir.path(), None);
        let text = dir.path().join("kernel-1.traceg");
        let blocks = read_all(&text).unwrap();
        // Plain text named as xz, and xz named as plain text.
        let named_xz = dir.path().join("plain.traceg.xz");
        std::fs::copy(&text, &named_xz).unwrap();
        assert_eq!(read_all(&named_xz).unwrap(), blocks);
        let xz = dir.path().join("xz.traceg");
        let mut w = TraceWriter::create(&xz, Some(0)).unwrap();
        w.write_all(&std::fs::read(&text).unwrap()).unwrap();
        w.finish().unwrap();
        assert_eq!(detect(&xz).unwrap(), Compression::Xz);
        assert_eq!(read_all(&xz).unwrap(), blocks);
        // zstd's magic number: refused by name of the format.
        let zst = dir.path().join("kernel-1.tracez");
        std::fs::write(&zst, [0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]).unwrap();
        let e = read_all(&zst).unwrap_err().to_string();
        assert!(e.contains("kernel-1.tracez: a zstd stream"), "{e}");
    }

    /// The xz form of the `stream` kernel, as bytes, and its blocks.
    fn xz_bytes(dir: &Path) -> (Vec<u8>, u64) {
        exported("stream", dir, Some(0));
        let xz = dir.join("kernel-1.traceg.xz");
        (std::fs::read(&xz).unwrap(), read_all(&xz).unwrap())
    }

    #[test]
    fn a_truncated_xz_trace_is_an_error_with_its_byte_offset_not_a_shorter_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let (bytes, blocks) = xz_bytes(dir.path());
        assert!(blocks > 1);
        let cut = dir.path().join("cut.traceg.xz");
        for keep in [bytes.len() - 1, bytes.len() / 2, 12] {
            std::fs::write(&cut, &bytes[..keep]).unwrap();
            let e = read_all(&cut).unwrap_err().to_string();
            assert!(
                e.contains("cut.traceg.xz")
                    && e.contains("the xz stream ends early")
                    && e.contains(&format!("at compressed byte {keep}")),
                "{keep}: {e}"
            );
        }
        // Planted: the whole stream reads every block.
        std::fs::write(&cut, &bytes).unwrap();
        assert_eq!(read_all(&cut).unwrap(), blocks);
    }

    #[test]
    fn a_corrupt_xz_trace_is_an_error_with_its_byte_offset() {
        let dir = tempfile::tempdir().unwrap();
        let (mut bytes, _) = xz_bytes(dir.path());
        let at = bytes.len() / 2;
        bytes[at] ^= 0x55;
        let bad = dir.path().join("bad.traceg.xz");
        std::fs::write(&bad, &bytes).unwrap();
        let e = read_all(&bad).unwrap_err().to_string();
        assert!(
            e.contains("bad.traceg.xz")
                && e.contains("corrupt xz data")
                && e.contains("at compressed byte"),
            "{e}"
        );
        let offset: u64 = e
            .split("at compressed byte ")
            .nth(1)
            .unwrap()
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(offset <= bytes.len() as u64, "{e}");
    }

    #[test]
    fn the_decoded_copy_is_removed_with_its_last_reader() {
        let dir = tempfile::tempdir().unwrap();
        xz_bytes(dir.path());
        let k = KernelTrace::open(&dir.path().join("kernel-1.traceg.xz")).unwrap();
        let plain = k.plain().clone();
        let copy = plain.text_path().to_path_buf();
        assert!(plain.decoded() && copy.exists());
        drop(k);
        assert!(copy.exists(), "a reader still holds it");
        drop(plain);
        assert!(!copy.exists());
    }
}
