//! A block on an FPGA behind its host bridge (`rtl-out/fpga/<m>_bridge.v`): the client of the
//! bridge's protocol ([`BridgeClient`], protocol and registers in `gs_bridge_ctl.v` and
//! [`gpusim::bridge`]), the byte links it runs over ([`serial`]: a serial port, or the pins of
//! a Verilated bridge driven from here), and the lockstep of the block's golden model against
//! it ([`lockstep`]), as `gpusched cosim --target uart:DEV` and `--target uart-sim` run it.

pub mod gpu;
pub mod lockstep;
pub mod serial;

pub use gpu::{run_on_board, run_on_board_with, BoardRun, BoardSite, Connect};
pub use lockstep::{board_lockstep, run_variant_on, BoardPair};
pub use serial::{Serial, SimSerial, TtySerial};

use crate::TbError;
use gpusim::bridge::{MAGIC, REG_HASH, REG_MAGIC, REG_STATUS, REG_WIDTHS};
use std::path::PathBuf;

/// Where `cosim` runs the RTL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// The Verilated module, in this process (the default).
    Verilator,
    /// The module's Verilated host bridge, driven through its serial pins (tests the bridge and
    /// the protocol end to end without a board).
    UartSim,
    /// A board running the module's bridge, on a serial port.
    Uart {
        /// The serial device.
        path: PathBuf,
        /// Baud rate.
        baud: u32,
    },
}

impl Target {
    /// Parses `verilator`, `uart-sim` or `uart:DEVICE[@BAUD]`.
    pub fn parse(s: &str) -> Result<Self, TbError> {
        let bad = || {
            TbError::Config(format!(
                "--target `{s}`: expected `verilator`, `uart-sim` or `uart:DEVICE[@BAUD]` \
                 (e.g. uart:/dev/ttyUSB0@115200)"
            ))
        };
        match s {
            "verilator" => Ok(Self::Verilator),
            "uart-sim" => Ok(Self::UartSim),
            _ => {
                let dev = s.strip_prefix("uart:").ok_or_else(bad)?;
                let (path, baud) = match dev.rsplit_once('@') {
                    Some((p, b)) => (p, b.parse::<u32>().map_err(|_| bad())?),
                    None => (dev, serial::DEFAULT_BAUD),
                };
                if path.is_empty() || baud == 0 {
                    return Err(bad());
                }
                Ok(Self::Uart {
                    path: path.into(),
                    baud,
                })
            }
        }
    }
}

/// What a bridge says about itself ([`BridgeClient::connect`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BridgeInfo {
    /// The first 32 bits of its module's Verilog SHA-256.
    pub hash: u32,
    /// Input bits per cycle.
    pub in_bits: u32,
    /// Output bits per cycle.
    pub out_bits: u32,
}

/// The host side of the bridge protocol over a [`Serial`] link.
pub struct BridgeClient<S: Serial> {
    serial: S,
    info: BridgeInfo,
}

impl<S: Serial> std::fmt::Debug for BridgeClient<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeClient")
            .field("link", &self.serial.describe())
            .field("info", &self.info)
            .finish()
    }
}

impl<S: Serial> BridgeClient<S> {
    /// Reads the bridge's magic, hash and widths; fails when the other end is no bridge.
    pub fn connect(serial: S) -> Result<Self, TbError> {
        let mut c = Self {
            serial,
            info: BridgeInfo {
                hash: 0,
                in_bits: 0,
                out_bits: 0,
            },
        };
        let magic = c.read_reg(REG_MAGIC)?;
        if magic != MAGIC {
            return Err(c.error(format!(
                "no gpusched bridge answers (magic {magic:#010x}, expected {MAGIC:#010x} \
                 `GSB1`): is the bridge bitstream loaded and the baud rate right?"
            )));
        }
        let widths = c.read_reg(REG_WIDTHS)?;
        c.info = BridgeInfo {
            hash: c.read_reg(REG_HASH)?,
            in_bits: widths & 0xffff,
            out_bits: widths >> 16,
        };
        Ok(c)
    }

    /// What the bridge said at [`BridgeClient::connect`].
    pub fn info(&self) -> BridgeInfo {
        self.info
    }

    /// The link.
    pub fn serial_mut(&mut self) -> &mut S {
        &mut self.serial
    }

    fn error(&self, reason: String) -> TbError {
        TbError::Bridge {
            target: self.serial.describe(),
            reason,
        }
    }

    fn exchange(&mut self, command: &[u8], answer: usize) -> Result<Vec<u8>, TbError> {
        let what = command[0] as char;
        self.serial
            .send(command)
            .and_then(|()| self.serial.recv(answer))
            .map_err(|e| self.error(format!("command `{what}`: {e}")))
    }

    fn expect_ack(&mut self, command: &[u8]) -> Result<(), TbError> {
        let got = self.exchange(command, 1)?[0];
        let want = command[0] | 0x20;
        if got != want {
            return Err(self.error(format!(
                "command `{}` answered {got:#04x}, expected `{}`",
                command[0] as char, want as char
            )));
        }
        Ok(())
    }

    /// Writes register `addr`.
    pub fn write_reg(&mut self, addr: u16, data: u32) -> Result<(), TbError> {
        let mut cmd = vec![b'W'];
        cmd.extend(addr.to_le_bytes());
        cmd.extend(data.to_le_bytes());
        self.expect_ack(&cmd)
    }

    /// Reads register `addr`.
    pub fn read_reg(&mut self, addr: u16) -> Result<u32, TbError> {
        let mut cmd = vec![b'R'];
        cmd.extend(addr.to_le_bytes());
        let b = self.exchange(&cmd, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Steps the module one cycle with the inputs held in its registers.
    pub fn step(&mut self) -> Result<(), TbError> {
        self.expect_ack(b"S")
    }

    /// One cycle with reset high and the inputs cleared; the cycle counter restarts.
    pub fn reset_cycle(&mut self) -> Result<(), TbError> {
        self.expect_ack(b"X")
    }

    /// The bridge's error bits (`gs_bridge_ctl.v`), then clears them.
    pub fn take_status(&mut self) -> Result<u32, TbError> {
        let s = self.read_reg(REG_STATUS)?;
        self.write_reg(REG_STATUS, 0)?;
        Ok(s)
    }

    /// One cycle: `inputs` (the packed input vector, `ceil(in_bits / 8)` bytes) applied, the
    /// outputs of that cycle returned (packed, `ceil(out_bits / 8)` bytes), then the edge.
    pub fn cycle(&mut self, inputs: &[u8]) -> Result<Vec<u8>, TbError> {
        let (ib, ob) = (
            gpusim::bridge::payload_bytes(self.info.in_bits),
            gpusim::bridge::payload_bytes(self.info.out_bits),
        );
        assert_eq!(inputs.len(), ib, "input payload bytes");
        let mut cmd = Vec::with_capacity(1 + ib);
        cmd.push(b'C');
        cmd.extend_from_slice(inputs);
        self.exchange(&cmd, ob)
    }
}

/// Little-endian bytes of packed 32-bit chunks, cut to `bytes`.
pub fn chunks_to_bytes(chunks: &[u32], bytes: usize) -> Vec<u8> {
    let mut v: Vec<u8> = chunks.iter().flat_map(|c| c.to_le_bytes()).collect();
    v.resize(bytes, 0);
    v
}

/// Packed 32-bit chunks from little-endian bytes.
pub fn bytes_to_chunks(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks(4)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..c.len()].copy_from_slice(c);
            u32::from_le_bytes(w)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_bad_ones_say_what_is_expected() {
        assert_eq!(Target::parse("verilator").unwrap(), Target::Verilator);
        assert_eq!(Target::parse("uart-sim").unwrap(), Target::UartSim);
        assert_eq!(
            Target::parse("uart:/dev/ttyUSB1@9600").unwrap(),
            Target::Uart {
                path: "/dev/ttyUSB1".into(),
                baud: 9600
            }
        );
        assert_eq!(
            Target::parse("uart:/dev/ttyUSB0").unwrap(),
            Target::Uart {
                path: "/dev/ttyUSB0".into(),
                baud: 115_200
            }
        );
        for bad in ["uart:", "uart:/dev/x@fast", "uart:/dev/x@0", "tty", ""] {
            let e = Target::parse(bad).unwrap_err().to_string();
            assert!(e.contains("uart:DEVICE[@BAUD]"), "{bad}: {e}");
        }
    }

    #[test]
    fn payload_bytes_round_trip() {
        let c = [0x1234_5678, 0x9a];
        let b = chunks_to_bytes(&c, 5);
        assert_eq!(b, [0x78, 0x56, 0x34, 0x12, 0x9a]);
        assert_eq!(bytes_to_chunks(&b), c);
    }
}
