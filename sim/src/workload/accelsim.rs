//! Accel-Sim traces (the format NVBit's Accel-Sim tracer writes; tracer versions 3 and 4).
//!
//! A trace directory holds `kernelslist.g`, a list of commands (`MemcpyHtoD,<addr>,<bytes>`
//! and kernel launches `kernel-N.traceg`), and one `kernel-N.traceg` per launch: a header of
//! `-key = value` lines, then thread blocks:
//!
//! ```text
//! #BEGIN_TB
//! thread block = 0,0,0
//! warp = 0
//! insts = 23
//! 0098 ffffffff 1 R4 LDG.E.CG 1 R4 4 1 0x7f2b2d500000 4
//! ...
//! #END_TB
//! ```
//!
//! An instruction line is `[line] PC mask ndst dst... opcode nsrc src... width [mode addrs]`
//! (the line number only with `-enable lineinfo = 1`). PC and mask are hexadecimal. With a
//! non-zero width, `mode` compresses the per-thread addresses of the active lanes (in lane
//! order): `0` list_all (one hex address each), `1` base_stride (hex base, decimal stride:
//! lane k of the active lanes accesses `base + k*stride`), `2` base_delta (hex base, then one
//! signed decimal delta from the previous active lane for each further active lane).
//!
//! [`KernelTrace`] reads one thread block at a time; every malformed input is an error naming
//! the file, the line and what was expected.

mod blocks;
mod lines;
mod memo;
mod parse;

pub use blocks::BlockSet;

use super::compressed::PlainTrace;
use super::kernel::BlockInsts;
use super::sass::{OpKind, OpcodeTable};
use super::{Dim3, WARP_SIZE};
use lines::Lines;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// Most destination or source registers one instruction line may list.
pub const MAX_REGS: usize = 8;
/// The highest general-purpose register number (R255 is the zero register RZ).
pub const MAX_REG: u16 = 255;
/// The highest memory access width of an instruction, bytes.
pub const MAX_MEM_WIDTH: u32 = 255;
/// Largest thread block the reader accepts (CUDA's limit).
pub const MAX_BLOCK_THREADS: u64 = 1024;

/// A malformed or unreadable trace.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TraceError {
    /// The file cannot be opened or read.
    #[error("{file}: {message}")]
    Io { file: PathBuf, message: String },
    /// The content does not follow the format.
    #[error("{file}:{line}: expected {expected}, found {}", crate::input::quote(.found))]
    Syntax {
        file: PathBuf,
        line: usize,
        expected: String,
        found: String,
    },
    /// Well-formed but not acceptable (unsupported version, absurd dimensions...).
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: PathBuf,
        line: usize,
        message: String,
    },
}

/// A command of `kernelslist.g`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Host-to-device copy of `bytes` bytes to device address `addr`.
    MemcpyHtoD {
        /// Device address.
        addr: u64,
        /// Bytes copied.
        bytes: u64,
    },
    /// Launch of the kernel whose trace is at `path`.
    Kernel {
        /// The `kernel-N.traceg` file (resolved against the list's directory).
        path: PathBuf,
    },
}

/// Reads `kernelslist.g` (or the `kernelslist.g` inside a directory).
pub fn read_kernelslist(path: &Path) -> Result<Vec<Command>, TraceError> {
    let path = if path.is_dir() {
        path.join("kernelslist.g")
    } else {
        path.to_path_buf()
    };
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let text = crate::input::read_text(&path).map_err(|e| TraceError::Io {
        file: path.clone(),
        message: e.to_string(),
    })?;
    let mut out = vec![];
    // Bytes copied by the lines so far (checked: a sum past 2^64-1 is an error, not wrapped).
    let mut copied = 0u64;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let syntax = |expected: &str| TraceError::Syntax {
            file: path.clone(),
            line: i + 1,
            expected: expected.into(),
            found: format!("`{line}`"),
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("MemcpyHtoD,") {
            let form = "`MemcpyHtoD,<hex address>,<bytes>` (numbers below 2^64)";
            let (addr, bytes) = parse_memcpy(rest).ok_or_else(|| syntax(form))?;
            copied = check_memcpy(addr, bytes, copied).map_err(|message| TraceError::Invalid {
                file: path.clone(),
                line: i + 1,
                message,
            })?;
            out.push(Command::MemcpyHtoD { addr, bytes });
        } else if (line.ends_with(".traceg") || line.ends_with(".traceg.xz")) && !line.contains(',')
        {
            out.push(Command::Kernel {
                path: dir.join(line),
            });
        } else {
            return Err(syntax(
                "`MemcpyHtoD,<hex address>,<bytes>` or `kernel-<N>.traceg[.xz]`",
            ));
        }
    }
    if !out.iter().any(|c| matches!(c, Command::Kernel { .. })) {
        return Err(TraceError::Invalid {
            file: path,
            line: text.lines().count().max(1),
            message: "no kernel: a trace lists at least one `kernel-<N>.traceg[.xz]`".into(),
        });
    }
    Ok(out)
}

/// `<hex address>,<bytes>` of a `MemcpyHtoD,` line.
fn parse_memcpy(rest: &str) -> Option<(u64, u64)> {
    let (a, b) = rest.split_once(',')?;
    Some((parse_hex(a.trim())?, b.trim().parse().ok()?))
}

/// The bytes copied by the list with a copy of `bytes` to `addr` after `copied` bytes; an
/// error (the message) if the copy runs past the 64-bit address space or the sum past 2^64-1.
fn check_memcpy(addr: u64, bytes: u64, copied: u64) -> Result<u64, String> {
    if bytes > 0 && addr.checked_add(bytes - 1).is_none() {
        return Err(format!(
            "a copy of {bytes} bytes to {addr:#x} runs past the end of the 64-bit address space"
        ));
    }
    copied.checked_add(bytes).ok_or_else(|| {
        format!("the copies add up to more than 2^64-1 bytes ({copied} before these {bytes})")
    })
}

/// The total of the host-to-device copies of a kernel list (as [`read_kernelslist`] checked
/// it, so it does not overflow).
pub fn memcpy_bytes(commands: &[Command]) -> u64 {
    commands
        .iter()
        .map(|c| match c {
            Command::MemcpyHtoD { bytes, .. } => *bytes,
            Command::Kernel { .. } => 0,
        })
        .fold(0u64, u64::saturating_add)
}

/// The header of a kernel trace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelHeader {
    /// Mangled kernel name.
    pub name: String,
    /// Launch id (1-based in Accel-Sim traces).
    pub id: u32,
    /// Grid dimensions (thread blocks).
    pub grid: Dim3,
    /// Block dimensions (threads).
    pub block: Dim3,
    /// Static shared memory per thread block, bytes.
    pub shmem_bytes: u32,
    /// Registers per thread.
    pub nregs: u32,
    /// SASS binary version (61 = Pascal, 70 = Volta...).
    pub binary_version: u32,
    /// CUDA stream.
    pub stream: u32,
    /// Base address of the shared-memory window.
    pub shmem_base: u64,
    /// Base address of the local-memory window.
    pub local_base: u64,
    /// Accel-Sim tracer version (3 or 4).
    pub tracer_version: u32,
    /// Instruction lines start with a source line number.
    pub lineinfo: bool,
}

impl KernelHeader {
    /// Threads per block.
    pub fn block_threads(&self) -> u64 {
        self.block.volume()
    }

    /// Warps per block (threads rounded up to whole warps).
    pub fn block_warps(&self) -> usize {
        self.block_threads().div_ceil(WARP_SIZE as u64) as usize
    }
}

/// One dynamic warp instruction of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceInst {
    /// Program counter (byte offset in the kernel).
    pub pc: u64,
    /// Active lanes (bit `i` = lane `i`).
    pub mask: u32,
    /// Index of the opcode in the reader's opcode table ([`KernelTrace::opcode_name`]).
    pub opcode: u16,
    /// Destination general-purpose registers (`R<n>`; other register kinds are not listed).
    pub dsts: Vec<u16>,
    /// Source general-purpose registers.
    pub srcs: Vec<u16>,
    /// Bytes accessed per thread (0: not a memory instruction).
    pub mem_width: u32,
    /// Addresses of the active lanes, in lane order (empty when `mem_width` is 0).
    pub addrs: Vec<u64>,
}

impl TraceInst {
    /// Number of active lanes.
    pub fn active_threads(&self) -> u32 {
        self.mask.count_ones()
    }
}

/// The instructions of one thread block, per warp of the block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadBlockTrace {
    /// Block index in the grid.
    pub id: Dim3,
    /// Line of its `#BEGIN_TB`.
    pub line: usize,
    /// `warps[w]` = the dynamic instructions of warp `w` of the block, in order.
    pub warps: Vec<Vec<TraceInst>>,
}

/// Where one warp's instructions are in a trace file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WarpExtent {
    /// Position of its first instruction line, for [`KernelTrace::read_insts`].
    pub at: (u64, usize),
    /// Its instructions.
    pub insts: usize,
}

/// A thread block read without keeping its instructions: where each warp's are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockIndex {
    /// Block index in the grid.
    pub id: Dim3,
    /// Line of its `#BEGIN_TB`.
    pub line: usize,
    /// Per warp of the block (absent warps: no instructions).
    pub warps: Vec<WarpExtent>,
}

/// A thread block as [`KernelTrace::next_block_bounded`] read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BlockRead {
    /// Kept whole: its decoded instructions took at most the limit.
    Whole(TraceBlock),
    /// Too large to keep: every instruction was checked and visited, and the index says where
    /// each warp's instructions are, to be read again a part at a time.
    Indexed(BlockIndex),
}

impl BlockRead {
    /// Block index in the grid.
    pub fn id(&self) -> Dim3 {
        match self {
            BlockRead::Whole(b) => b.insts.id,
            BlockRead::Indexed(b) => b.id,
        }
    }

    /// Line of its `#BEGIN_TB`.
    pub fn line(&self) -> usize {
        match self {
            BlockRead::Whole(b) => b.line,
            BlockRead::Indexed(b) => b.line,
        }
    }
}

/// A thread block read whole, decoded compactly (the form the GPU model runs), with the
/// reader's opcode id of every instruction beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBlock {
    /// Line of its `#BEGIN_TB`.
    pub line: usize,
    /// The instructions (`insts.id` is the block's index in the grid).
    pub insts: BlockInsts,
    /// `opcodes[w][k]` = opcode id of instruction `k` of warp `w` ([`KernelTrace::opcode_name`]).
    pub opcodes: Vec<Vec<u16>>,
}

impl TraceBlock {
    /// The block with one [`TraceInst`] per instruction (tests and analyses; the GPU model
    /// runs [`Self::insts`]).
    pub fn expand(&self) -> ThreadBlockTrace {
        let b = &self.insts;
        let warps = b
            .warps
            .iter()
            .zip(&self.opcodes)
            .map(|(insts, ops)| {
                insts
                    .iter()
                    .zip(ops)
                    .map(|(i, &opcode)| TraceInst {
                        pc: i.pc as u64,
                        mask: i.mask,
                        opcode,
                        dsts: b.dsts(i).to_vec(),
                        srcs: b.srcs(i).to_vec(),
                        mem_width: i.width as u32,
                        addrs: b.addrs(i).to_vec(),
                    })
                    .collect()
            })
            .collect();
        ThreadBlockTrace {
            id: b.id,
            line: self.line,
            warps,
        }
    }
}

/// Opcode names interned to ids, classified as they are first seen.
#[derive(Default)]
struct Opcodes {
    names: Vec<String>,
    /// The names as read (bytes), by id.
    raw: Vec<Box<[u8]>>,
    /// [`opcode_key`] of each name, by id.
    keys: Vec<(u64, usize)>,
    ids: HashMap<Box<[u8]>, u16>,
    table: OpcodeTable,
}

/// An opcode name's first eight bytes (zero-padded) and its length: equal for equal names,
/// and for names of at most eight bytes only for equal names.
#[inline]
fn opcode_key(name: &[u8]) -> (u64, usize) {
    let mut head = [0u8; 8];
    let n = name.len().min(8);
    head[..n].copy_from_slice(&name[..n]);
    (u64::from_le_bytes(head), name.len())
}

impl Opcodes {
    /// The id of opcode `name`; `None` when it is new and 65,536 opcodes are known already.
    fn intern(&mut self, name: &[u8]) -> Option<u16> {
        // A kernel uses few opcodes: comparing them beats hashing.
        if self.names.len() <= 32 {
            let key = opcode_key(name);
            let same = |(id, k): (usize, &(u64, usize))| {
                (*k == key && (key.1 <= 8 || *self.raw[id] == *name)).then_some(id)
            };
            if let Some(id) = self.keys.iter().enumerate().find_map(same) {
                return Some(id as u16);
            }
        } else if let Some(&id) = self.ids.get(name) {
            return Some(id);
        }
        let id = u16::try_from(self.names.len()).ok()?;
        self.names.push(String::from_utf8_lossy(name).into_owned());
        self.raw.push(name.into());
        self.keys.push(opcode_key(name));
        self.ids.insert(name.into(), id);
        self.table.update(&self.names);
        Some(id)
    }
}

/// A kernel trace being read, one thread block at a time.
pub struct KernelTrace {
    /// The header.
    pub header: KernelHeader,
    file: PathBuf,
    /// The text read (the file, or its decoded copy, kept while this reader lives).
    plain: Arc<PlainTrace>,
    lines: Lines,
    opcodes: Opcodes,
    /// The instruction being parsed (its lists are reused from line to line).
    scratch: TraceInst,
    /// Lines decoded before, by their bytes.
    memo: memo::LineMemo,
    blocks_read: u64,
    /// The register and address pools' sizes of the last block kept: the next block's pools
    /// start with that room (blocks of a kernel mostly have the same sizes).
    last_pools: (usize, usize),
}

fn parse_hex(s: &str) -> Option<u64> {
    parse::hex(s.as_bytes())
}

fn parse_dim3(s: &str) -> Option<Dim3> {
    let s = s.trim().trim_start_matches('(').trim_end_matches(')');
    let mut it = s.split(',').map(|t| t.trim().parse::<u32>());
    let d = Dim3 {
        x: it.next()?.ok()?,
        y: it.next()?.ok()?,
        z: it.next()?.ok()?,
    };
    it.next().is_none().then_some(d)
}

/// The syntax error at `line` of `file`: `expected`, and `found` (empty: the line ended).
fn syntax_error(file: &Path, line: usize, expected: String, found: &[u8]) -> TraceError {
    TraceError::Syntax {
        file: file.to_path_buf(),
        line,
        expected,
        found: if found.is_empty() {
            "end of line".into()
        } else {
            format!("`{}`", String::from_utf8_lossy(found))
        },
    }
}

impl KernelTrace {
    /// Opens a kernel trace (plain or xz, see [`super::compressed`]) and reads its header.
    pub fn open(path: &Path) -> Result<Self, TraceError> {
        Self::open_with_buffer(path, 0)
    }

    /// [`Self::open`], reading `buffer` bytes at a time (0: the default, 256 KiB; a reader
    /// that seeks to read a little, as a streamed warp's refill, wants less).
    pub fn open_with_buffer(path: &Path, buffer: usize) -> Result<Self, TraceError> {
        Self::open_plain(&PlainTrace::open(path)?, buffer)
    }

    /// The header of the kernel trace `path` (a compressed one is decoded only a little way
    /// past it: its decoder stops when the reader is dropped).
    pub fn read_header_only(path: &Path) -> Result<KernelHeader, TraceError> {
        Ok(Self::open_with_buffer(path, 16 << 10)?.header)
    }

    /// A reader of the trace text `plain` (as [`Self::plain`] of another reader gives it: a
    /// compressed trace is not decoded again), reading `buffer` bytes at a time (0: 256 KiB).
    pub fn open_plain(plain: &Arc<PlainTrace>, buffer: usize) -> Result<Self, TraceError> {
        let file = plain.name().to_path_buf();
        let f = plain.open_text().map_err(|e| TraceError::Io {
            file: file.clone(),
            message: e.to_string(),
        })?;
        let mut k = Self {
            header: KernelHeader::default(),
            file,
            plain: plain.clone(),
            lines: if buffer == 0 {
                Lines::new(f)
            } else {
                Lines::with_buffer(f, buffer)
            },
            opcodes: Opcodes::default(),
            scratch: TraceInst {
                pc: 0,
                mask: 0,
                opcode: 0,
                dsts: Vec::with_capacity(MAX_REGS),
                srcs: Vec::with_capacity(MAX_REGS),
                mem_width: 0,
                addrs: Vec::with_capacity(WARP_SIZE),
            },
            memo: memo::LineMemo::default(),
            blocks_read: 0,
            last_pools: (0, 0),
        };
        k.read_header()?;
        Ok(k)
    }

    /// The text this reader reads, to open more readers of it with [`Self::open_plain`].
    pub fn plain(&self) -> &Arc<PlainTrace> {
        &self.plain
    }

    /// Name of opcode `id` (as written in the trace, e.g. `LDG.E.CG`).
    pub fn opcode_name(&self, id: u16) -> &str {
        &self.opcodes.names[id as usize]
    }

    /// Every opcode seen so far, indexed by id.
    pub fn opcodes(&self) -> &[String] {
        &self.opcodes.names
    }

    /// The class of every opcode seen so far, and those not recognized.
    pub fn opcode_table(&self) -> &OpcodeTable {
        &self.opcodes.table
    }

    fn syntax(&self, expected: &str, found: &str) -> TraceError {
        syntax_error(
            &self.file,
            self.lines.line_no(),
            expected.into(),
            found.as_bytes(),
        )
    }

    fn invalid(&self, message: String) -> TraceError {
        TraceError::Invalid {
            file: self.file.clone(),
            line: self.lines.line_no(),
            message,
        }
    }

    fn io_error(&self, e: std::io::Error) -> TraceError {
        TraceError::Io {
            file: self.file.clone(),
            message: format!("line {}: {e}", self.lines.line_no() + 1),
        }
    }

    /// The next non-blank line, trimmed, as a range of [`Lines::text`]; `None` at end of file.
    fn next_range(&mut self) -> Result<Option<std::ops::Range<usize>>, TraceError> {
        self.lines.next_line().map_err(|e| self.io_error(e))
    }

    /// The next non-blank line, trimmed, as text (header and block structure lines; the
    /// instruction lines are parsed from their bytes); empty at end of file.
    fn next_text(&mut self) -> Result<String, TraceError> {
        Ok(match self.next_range()? {
            Some(r) => String::from_utf8_lossy(self.lines.text(r)).into_owned(),
            None => String::new(),
        })
    }

    /// Where the next thread block starts: (byte offset, lines before it), for [`Self::seek`].
    pub fn position(&self) -> (u64, usize) {
        (self.lines.offset(), self.lines.line_no())
    }

    /// Continues reading at a position given by [`Self::position`] (thread-block boundaries
    /// only).
    pub fn seek(&mut self, (offset, line): (u64, usize)) -> Result<(), TraceError> {
        self.lines.seek(offset, line).map_err(|e| TraceError::Io {
            file: self.file.clone(),
            message: format!("seek to byte {offset}: {e}"),
        })
    }

    fn read_header(&mut self) -> Result<(), TraceError> {
        let mut seen = HashMap::new();
        let mut header_line = 0;
        while let Some(r) = self.next_range()? {
            let line = String::from_utf8_lossy(self.lines.text(r)).into_owned();
            header_line = self.lines.line_no();
            if line == "#BEGIN_TB" {
                self.lines.unread();
                break;
            }
            if line.starts_with('#') {
                continue;
            }
            let Some(kv) = line.strip_prefix('-') else {
                return Err(self.syntax("a header line `-<key> = <value>` or `#BEGIN_TB`", &line));
            };
            let (key, value) = kv
                .split_once('=')
                .ok_or_else(|| self.syntax("`-<key> = <value>`", &line))?;
            seen.insert(
                key.trim().to_string(),
                (value.trim().to_string(), self.lines.line_no()),
            );
        }
        let get = |k: &str| seen.get(k).cloned();
        let require = |k: &str| {
            get(k).ok_or_else(|| TraceError::Invalid {
                file: self.file.clone(),
                line: header_line,
                message: format!("the header has no `-{k} = ...` line"),
            })
        };
        let num = |k: &str, form: &str| -> Result<u64, TraceError> {
            let (v, line) = require(k)?;
            let parsed = if form == "hex" {
                parse_hex(&v)
            } else {
                v.parse().ok()
            };
            parsed.ok_or_else(|| TraceError::Syntax {
                file: self.file.clone(),
                line,
                expected: format!("`-{k} = <{form} number>`"),
                found: format!("`{v}`"),
            })
        };
        // A header number the model keeps in 32 bits: a larger one is an error, not truncated.
        let num32 = |k: &str| -> Result<u32, TraceError> {
            let v = num(k, "decimal")?;
            u32::try_from(v).map_err(|_| TraceError::Invalid {
                file: self.file.clone(),
                line: require(k).map(|(_, l)| l).unwrap_or(header_line),
                message: format!("-{k} = {v} does not fit in 32 bits"),
            })
        };
        let dim = |k: &str| -> Result<Dim3, TraceError> {
            let (v, line) = require(k)?;
            parse_dim3(&v).ok_or_else(|| TraceError::Syntax {
                file: self.file.clone(),
                line,
                expected: format!("`-{k} = (<x>,<y>,<z>)`"),
                found: format!("`{v}`"),
            })
        };
        let h = KernelHeader {
            name: require("kernel name")?.0,
            id: num32("kernel id")?,
            grid: dim("grid dim")?,
            block: dim("block dim")?,
            shmem_bytes: num32("shmem")?,
            nregs: num32("nregs")?,
            binary_version: num32("binary version")?,
            stream: get("cuda stream id")
                .and_then(|(v, _)| v.parse().ok())
                .unwrap_or(0),
            shmem_base: get("shmem base_addr")
                .and_then(|(v, _)| parse_hex(&v))
                .unwrap_or(0),
            local_base: get("local mem base_addr")
                .and_then(|(v, _)| parse_hex(&v))
                .unwrap_or(0),
            tracer_version: num32("accelsim tracer version")?,
            lineinfo: get("enable lineinfo").is_some_and(|(v, _)| v == "1"),
        };
        let at = |k: &str| seen.get(k).map_or(header_line, |(_, l)| *l);
        let bad = |k: &str, message: String| TraceError::Invalid {
            file: self.file.clone(),
            line: at(k),
            message,
        };
        if !(3..=4).contains(&h.tracer_version) {
            return Err(bad(
                "accelsim tracer version",
                format!(
                    "tracer version {} is not supported (supported: 3, 4)",
                    h.tracer_version
                ),
            ));
        }
        if h.grid.volume() == 0 || h.grid.volume() > u32::MAX as u64 {
            return Err(bad(
                "grid dim",
                format!("grid {} must have 1 to 2^32-1 blocks", h.grid),
            ));
        }
        if h.block_threads() == 0 || h.block_threads() > MAX_BLOCK_THREADS {
            return Err(bad(
                "block dim",
                format!(
                    "block {} must have 1 to {MAX_BLOCK_THREADS} threads",
                    h.block
                ),
            ));
        }
        if h.nregs > 255 {
            return Err(bad(
                "nregs",
                format!("{} registers per thread (at most 255)", h.nregs),
            ));
        }
        self.header = h;
        Ok(())
    }

    /// Thread blocks read so far.
    pub fn blocks_read(&self) -> u64 {
        self.blocks_read
    }

    /// Reads the next thread block with one [`TraceInst`] per instruction (tests and
    /// analyses); `None` after the last one.
    pub fn next_block(&mut self) -> Result<Option<ThreadBlockTrace>, TraceError> {
        Ok(
            match self.next_block_bounded(u64::MAX, &mut |_, _, _, _| {})? {
                Some(BlockRead::Whole(b)) => Some(b.expand()),
                Some(BlockRead::Indexed(_)) => unreachable!("no limit"),
                None => None,
            },
        )
    }

    /// Reads the next thread block, checking every instruction and passing each to `visit`
    /// (block index in the grid, warp, index in the warp, instruction), in file order; keeps
    /// the instructions only while their decoded size ([`BlockInsts::bytes`]) is at most
    /// `keep_bytes` (else returns where each warp's are, and memory stays bounded whatever the
    /// block's size). `None` after the last block.
    pub fn next_block_bounded(
        &mut self,
        keep_bytes: u64,
        visit: &mut dyn FnMut(Dim3, usize, usize, &TraceInst),
    ) -> Result<Option<BlockRead>, TraceError> {
        let Some(r) = self.next_range()? else {
            return Ok(None);
        };
        if self.lines.text(r.clone()) != b"#BEGIN_TB" {
            let line = String::from_utf8_lossy(self.lines.text(r)).into_owned();
            return Err(self.syntax("`#BEGIN_TB`", &line));
        }
        let begin = self.lines.line_no();
        let line = self.next_text()?;
        let id = line
            .strip_prefix("thread block")
            .and_then(|r| r.trim_start().strip_prefix('='))
            .and_then(parse_dim3)
            .ok_or_else(|| self.syntax("`thread block = <x>,<y>,<z>`", &line))?;
        let g = self.header.grid;
        if id.x >= g.x || id.y >= g.y || id.z >= g.z {
            return Err(self.invalid(format!("thread block {id} is outside the grid {g}")));
        }
        let nwarps = self.header.block_warps();
        let (regs, addrs) = if keep_bytes > 0 {
            self.last_pools
        } else {
            (0, 0)
        };
        let mut block = BlockInsts::with_room(id, nwarps, regs, addrs);
        let mut opcodes = vec![Vec::new(); nwarps];
        let mut extents = vec![
            WarpExtent {
                at: (0, 0),
                insts: 0
            };
            nwarps
        ];
        let mut seen = vec![false; nwarps];
        let mut keep = keep_bytes > 0;
        // Instructions kept, for the decoded size ([`BlockInsts::bytes`]).
        let mut kept = 0usize;
        loop {
            let line = self.next_text()?;
            if line == "#END_TB" {
                break;
            }
            let w = line
                .strip_prefix("warp")
                .and_then(|r| r.trim_start().strip_prefix('='))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .ok_or_else(|| self.syntax("`warp = <n>` or `#END_TB`", &line))?;
            if w >= nwarps {
                return Err(self.invalid(format!(
                    "warp {w} does not exist in a block of {} threads ({nwarps} warps)",
                    self.header.block_threads()
                )));
            }
            if seen[w] {
                return Err(self.invalid(format!("warp {w} appears twice in thread block {id}")));
            }
            seen[w] = true;
            let line = self.next_text()?;
            let n = line
                .strip_prefix("insts")
                .and_then(|r| r.trim_start().strip_prefix('='))
                .and_then(|v| v.trim().parse::<usize>().ok())
                .ok_or_else(|| self.syntax("`insts = <n>`", &line))?;
            extents[w] = WarpExtent {
                at: self.position(),
                insts: n,
            };
            if keep {
                block.warps[w].reserve(n.min(1 << 16));
                opcodes[w].reserve(n.min(1 << 16));
            }
            for k in 0..n {
                self.next_inst(w, k, n)?;
                let i = &self.scratch;
                visit(id, w, k, i);
                if keep {
                    block.push(
                        w,
                        i.pc as u32,
                        i.mask,
                        self.opcodes.table.kind(i.opcode),
                        &i.dsts,
                        &i.srcs,
                        i.mem_width as u8,
                        &i.addrs,
                    );
                    opcodes[w].push(i.opcode);
                    kept += 1;
                    if BlockInsts::bytes_of(kept, block.regs.len(), block.addrs.len()) > keep_bytes
                    {
                        keep = false;
                        block = BlockInsts::default();
                        opcodes = vec![];
                    }
                }
            }
        }
        self.blocks_read += 1;
        if keep {
            self.last_pools = (block.regs.len(), block.addrs.len());
            // A block far smaller than the one before gives back the room it did not use.
            if block.regs.capacity() > 2 * block.regs.len() {
                block.regs.shrink_to_fit();
            }
            if block.addrs.capacity() > 2 * block.addrs.len() {
                block.addrs.shrink_to_fit();
            }
        }
        Ok(Some(if keep {
            BlockRead::Whole(TraceBlock {
                line: begin,
                insts: block,
                opcodes,
            })
        } else {
            BlockRead::Indexed(BlockIndex {
                id,
                line: begin,
                warps: extents,
            })
        }))
    }

    /// Reads every thread block of a trace just opened, to the end of the file, as
    /// [`Self::next_block_bounded`] with `keep_bytes` and `visit`, passing each block to
    /// `block`; checks with a [`BlockSet`] that every block of the grid is listed exactly once. The one pass of every reader that goes through a whole kernel (`trace
    /// info`, the analyses, `bench --parse`); returns the blocks read.
    pub fn read_every_block(
        &mut self,
        keep_bytes: u64,
        visit: &mut dyn FnMut(Dim3, usize, usize, &TraceInst),
        block: &mut dyn FnMut(&BlockRead),
    ) -> Result<u64, TraceError> {
        let mut blocks = BlockSet::new(&self.file, self.header.grid);
        while let Some(b) = self.next_block_bounded(keep_bytes, visit)? {
            blocks.add(b.id(), b.line())?;
            block(&b);
        }
        blocks.finish(self.lines.line_no())?;
        Ok(blocks.len())
    }

    /// Parses instruction `k` (0-based) of the `n` of warp `w` from the next line into
    /// `self.scratch`.
    fn next_inst(&mut self, w: usize, k: usize, n: usize) -> Result<(), TraceError> {
        let what = || format!("instruction {} of {n} of warp {w}", k + 1);
        let Some(r) = self.next_range()? else {
            return Err(self.syntax(&what(), ""));
        };
        let line = self.lines.text(r);
        if self.memo.get(line, &mut self.scratch) {
            return Ok(());
        }
        let at = self.lines.line_no();
        match parse::inst(line, self.header.lineinfo, &mut self.scratch) {
            Ok(op) => match self.opcodes.intern(op) {
                Some(id) => {
                    self.scratch.opcode = id;
                    self.memo.put(line, &self.scratch);
                    Ok(())
                }
                None => Err(TraceError::Invalid {
                    file: self.file.clone(),
                    line: at,
                    message: "more than 65536 distinct opcodes".into(),
                }),
            },
            Err(_) if line.starts_with(b"#") || line.starts_with(b"warp") => {
                Err(syntax_error(&self.file, at, what(), line))
            }
            Err(bad) => Err(syntax_error(&self.file, at, bad.want.expected(), bad.found)),
        }
    }

    /// Reads `count` instructions of warp `w` (of `n`, the first being instruction `first`)
    /// starting at `at` (a [`WarpExtent`] position, or what the previous call returned),
    /// passing each with its opcode's class and cache operator to `visit`; returns the position
    /// after them.
    pub fn read_insts(
        &mut self,
        at: (u64, usize),
        (w, first, n): (usize, usize, usize),
        count: usize,
        visit: &mut dyn FnMut(&TraceInst, OpKind),
    ) -> Result<(u64, usize), TraceError> {
        self.seek(at)?;
        for k in first..first + count {
            self.next_inst(w, k, n)?;
            visit(&self.scratch, self.opcodes.table.kind(self.scratch.opcode));
        }
        Ok(self.position())
    }
}

#[cfg(test)]
mod tests;
