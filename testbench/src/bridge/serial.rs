//! The byte links to a host bridge: a serial port ([`TtySerial`]) or the pins of a Verilated
//! bridge ([`SimSerial`]), both behind [`Serial`].

use crate::rtl::{BridgeFns, BRIDGES, BRIDGE_CLKS_PER_BIT};
use std::collections::VecDeque;
use std::ffi::c_void;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A byte link to a bridge.
pub trait Serial {
    /// Sends `bytes`, in order.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// Receives exactly `n` bytes; a `TimedOut` error when the bridge stops answering (the
    /// link is then out of step with the bridge: open a new one), an `InvalidData` one on a
    /// framing error where the link can see it (the simulated one; a tty drops such bytes).
    fn recv(&mut self, n: usize) -> io::Result<Vec<u8>>;
    /// What the link is, for messages (`/dev/ttyUSB0`, `uart-sim:<module>`).
    fn describe(&self) -> String;
}

/// A serial port (Linux: configured with `stty`; no flow control, 8N1).
pub struct TtySerial {
    path: PathBuf,
    file: File,
}

/// Default baud rate of [`TtySerial`] (the board tops' rate).
pub const DEFAULT_BAUD: u32 = 115_200;

impl TtySerial {
    /// Opens `path` at `baud`, raw, with reads that give up after 2 s of silence.
    pub fn open(path: &Path, baud: u32) -> io::Result<Self> {
        let status = Command::new("stty")
            .arg("-F")
            .arg(path)
            .arg(baud.to_string())
            .args([
                "raw", "-echo", "cs8", "-cstopb", "-parenb", "-ixon", "-ixoff",
            ])
            .args(["-crtscts", "min", "0", "time", "20"])
            .status()
            .map_err(|e| io::Error::new(e.kind(), format!("stty: {e}")))?;
        if !status.success() {
            return Err(io::Error::other(format!(
                "stty could not configure it at {baud} baud"
            )));
        }
        let file = File::options().read(true).write(true).open(path)?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
        })
    }
}

impl Serial for TtySerial {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.file.flush()
    }

    fn recv(&mut self, n: usize) -> io::Result<Vec<u8>> {
        let mut v = vec![0; n];
        let mut got = 0;
        while got < n {
            match self.file.read(&mut v[got..])? {
                0 => {
                    return Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("no answer for 2 s ({got} of {n} bytes; or the device went away)"),
                    ))
                }
                k => got += k,
            }
        }
        Ok(v)
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

/// The module names whose Verilated bridge is in this build (`GPUSCHED_BRIDGE_SIM` at build
/// time chooses them).
pub fn simulated_bridges() -> Vec<&'static str> {
    BRIDGES.iter().map(|b| b.module).collect()
}

/// Bit periods without an answer after which [`SimSerial::recv`] gives up.
const SILENT_BITS: u64 = 4096;

/// The serial pins of a Verilated bridge, driven as a host's UART would drive them:
/// [`BRIDGE_CLKS_PER_BIT`] bridge clocks per bit, bytes sent back to back, `uart_tx` sampled
/// in the middle of each bit. Two hooks damage the line for tests: [`SimSerial::corrupt`]
/// flips bits of a byte, [`SimSerial::break_stop_bit`] sends one with a low stop bit.
pub struct SimSerial {
    fns: &'static BridgeFns,
    handle: *mut c_void,
    to_send: VecDeque<u8>,
    /// Bytes put on the line so far.
    sent: u64,
    /// (byte number, XOR mask) of bytes to damage.
    corrupt: Vec<(u64, u8)>,
    /// Byte numbers to send with a low stop bit.
    bad_stop: Vec<u64>,
    received: VecDeque<u8>,
    decoder: Decoder,
    samples: Vec<u8>,
    /// Bridge clocks run.
    clocks: u64,
}

impl SimSerial {
    /// A fresh Verilated bridge of `module` (out of reset).
    pub fn new(module: &str) -> io::Result<Self> {
        let fns = BRIDGES.iter().find(|b| b.module == module).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "no Verilated bridge of `{module}` in this build (built: {}; rebuild with \
                     GPUSCHED_BRIDGE_SIM={module} or =all, Verilator installed)",
                    if BRIDGES.is_empty() {
                        "none".to_string()
                    } else {
                        simulated_bridges().join(", ")
                    }
                ),
            )
        })?;
        // SAFETY: `new` allocates a model owned by this value and freed in `Drop`.
        let handle = unsafe { (fns.new)() };
        Ok(Self {
            fns,
            handle,
            to_send: VecDeque::new(),
            sent: 0,
            corrupt: vec![],
            bad_stop: vec![],
            received: VecDeque::new(),
            decoder: Decoder::default(),
            samples: vec![0; BRIDGE_CLKS_PER_BIT as usize],
            clocks: 0,
        })
    }

    /// XORs `mask` into the `k`-th byte sent from now on (0: the next one).
    pub fn corrupt(&mut self, k: u64, mask: u8) {
        self.corrupt
            .push((self.sent + self.to_send.len() as u64 + k, mask));
    }

    /// Sends the `k`-th byte from now on with its stop bit low.
    pub fn break_stop_bit(&mut self, k: u64) {
        self.bad_stop
            .push(self.sent + self.to_send.len() as u64 + k);
    }

    /// Bridge clocks run so far.
    pub fn clocks(&self) -> u64 {
        self.clocks
    }

    /// One bit period with `rx` on the bridge's input, its output decoded.
    fn bit(&mut self, rx: bool) -> io::Result<()> {
        let n = self.samples.len();
        // SAFETY: valid handle; `samples` has `n` bytes.
        unsafe { (self.fns.run)(self.handle, rx as i32, n, self.samples.as_mut_ptr()) };
        self.clocks += n as u64;
        for &s in &self.samples {
            match self.decoder.feed(s != 0) {
                Some(Ok(b)) => self.received.push_back(b),
                Some(Err(())) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "framing error on the bridge's uart_tx",
                    ))
                }
                None => {}
            }
        }
        Ok(())
    }

    /// Puts the next queued byte on the line (start, 8 data bits, stop).
    fn send_next(&mut self, byte: u8) -> io::Result<()> {
        let k = self.sent;
        self.sent += 1;
        let mask = self
            .corrupt
            .iter()
            .filter(|(n, _)| *n == k)
            .fold(0, |m, (_, x)| m ^ x);
        let byte = byte ^ mask;
        self.bit(false)?;
        for i in 0..8 {
            self.bit(byte >> i & 1 == 1)?;
        }
        if self.bad_stop.contains(&k) {
            self.bit(false)?;
            self.bit(true)?;
            self.bit(true)
        } else {
            self.bit(true)
        }
    }
}

impl Serial for SimSerial {
    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.to_send.extend(bytes);
        Ok(())
    }

    fn recv(&mut self, n: usize) -> io::Result<Vec<u8>> {
        let mut silent = 0u64;
        while self.received.len() < n {
            let before = self.received.len();
            match self.to_send.pop_front() {
                Some(b) => self.send_next(b)?,
                None => {
                    self.bit(true)?;
                    silent += 1;
                }
            }
            if self.received.len() > before {
                silent = 0;
            }
            if silent > SILENT_BITS {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "no answer for {SILENT_BITS} bit periods ({} of {n} bytes)",
                        self.received.len()
                    ),
                ));
            }
        }
        Ok(self.received.drain(..n).collect())
    }

    fn describe(&self) -> String {
        format!("uart-sim:{}", self.fns.module)
    }
}

impl Drop for SimSerial {
    fn drop(&mut self) {
        // SAFETY: the handle came from `new` and is freed once.
        unsafe { (self.fns.free)(self.handle) }
    }
}

/// An 8N1 receiver over one sample per bridge clock: a falling edge starts a frame, each bit
/// is read in its middle.
#[derive(Default)]
struct Decoder {
    /// In a frame: bits read so far (0: the start bit not yet checked).
    bit: Option<u8>,
    /// Clocks until the next sample.
    wait: u32,
    data: u8,
}

impl Decoder {
    /// Takes one sample; a byte, or `Err` on a low stop bit, when a frame ends.
    fn feed(&mut self, line: bool) -> Option<Result<u8, ()>> {
        let Some(bit) = self.bit else {
            if !line {
                self.bit = Some(0);
                self.wait = BRIDGE_CLKS_PER_BIT / 2;
            }
            return None;
        };
        if self.wait > 1 {
            self.wait -= 1;
            return None;
        }
        self.wait = BRIDGE_CLKS_PER_BIT;
        match bit {
            0 if line => self.bit = None, // a glitch, not a start bit
            0 => self.bit = Some(1),
            1..=8 => {
                self.data = self.data >> 1 | (line as u8) << 7;
                self.bit = Some(bit + 1);
            }
            _ => {
                self.bit = None;
                return Some(if line { Ok(self.data) } else { Err(()) });
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line levels of `bytes` sent back to back, one sample per clock.
    fn line(bytes: &[u8]) -> Vec<bool> {
        let mut v = vec![true; 5];
        for &b in bytes {
            let bits = std::iter::once(false)
                .chain((0..8).map(|i| b >> i & 1 == 1))
                .chain(std::iter::once(true));
            for x in bits {
                v.extend(std::iter::repeat_n(x, BRIDGE_CLKS_PER_BIT as usize));
            }
        }
        v.extend([true; 3]);
        v
    }

    #[test]
    fn the_decoder_reads_bytes_back_to_back_and_flags_a_low_stop_bit() {
        let mut d = Decoder::default();
        let got: Vec<_> = line(&[0x47, 0x00, 0xff, 0xa5])
            .into_iter()
            .filter_map(|s| d.feed(s))
            .collect();
        assert_eq!(got, [Ok(0x47), Ok(0x00), Ok(0xff), Ok(0xa5)]);
        let mut bad = line(&[0x12]);
        let stop = 5 + 9 * BRIDGE_CLKS_PER_BIT as usize;
        for s in &mut bad[stop..stop + BRIDGE_CLKS_PER_BIT as usize] {
            *s = false;
        }
        let mut d = Decoder::default();
        let got: Vec<_> = bad.into_iter().filter_map(|s| d.feed(s)).collect();
        assert_eq!(got, [Err(())]);
    }
}
