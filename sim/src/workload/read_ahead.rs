//! A kernel trace read ahead of the simulation on its own thread: thread blocks are parsed and
//! decoded in file order and handed over through a bounded queue, so a run costs about the
//! larger of reading and simulating, not their sum.
//!
//! Memory: at most [`DEPTH`] blocks wait in the queue and one more is being read, each at most
//! the reader's keep limit decoded ([`super::trace_kernel::KEEP_BLOCK_BYTES`]; a larger block
//! is handed over as an index of a few bytes per warp). Results do not depend on the thread's
//! timing: the blocks and their order are the file's, and the consumer takes them in that
//! order.

use super::accelsim::{BlockRead, KernelTrace};
use super::sass::OpcodeTable;
use std::sync::mpsc::{sync_channel, Receiver, TryRecvError};
use std::time::Duration;

/// Blocks that may wait in the queue.
pub const DEPTH: usize = 4;

/// How long the consumer polls for the next block before it sleeps.
pub const SPIN: Duration = Duration::from_millis(5);

/// What the reading thread hands over, in file order.
pub(super) enum Ahead {
    /// The block that starts at `at`; the next one starts at `next`. `opcodes`: the reader's
    /// opcode classes when this block brought new opcodes.
    Block {
        at: (u64, usize),
        next: (u64, usize),
        read: BlockRead,
        opcodes: Option<Box<OpcodeTable>>,
    },
    /// The file ended, or the next block is malformed: the thread stops, and the consumer
    /// reads on without it (meeting the end or the error itself).
    Stopped,
}

/// The reading thread of one kernel trace. Dropping it closes the queue: the thread ends at
/// its next hand-over (it is not waited for; it owns everything it uses).
pub(super) struct ReadAhead {
    rx: Receiver<Ahead>,
}

impl ReadAhead {
    /// Reads `trace` from its position on, keeping blocks of at most `keep_bytes` decoded;
    /// `None` when no thread can be started (the caller reads on its own).
    pub(super) fn start(mut trace: KernelTrace, keep_bytes: u64) -> Option<Self> {
        let (tx, rx) = sync_channel(DEPTH);
        std::thread::Builder::new()
            .name("trace-read-ahead".into())
            .spawn(move || {
                let mut known = trace.opcodes().len();
                loop {
                    let at = trace.position();
                    let msg = match trace.next_block_bounded(keep_bytes, &mut |_, _, _, _| {}) {
                        Ok(Some(read)) => {
                            let new = trace.opcodes().len() != known;
                            known = trace.opcodes().len();
                            Ahead::Block {
                                at,
                                next: trace.position(),
                                read,
                                opcodes: new.then(|| Box::new(trace.opcode_table().clone())),
                            }
                        }
                        Ok(None) | Err(_) => Ahead::Stopped,
                    };
                    let more = matches!(msg, Ahead::Block { .. });
                    if tx.send(msg).is_err() || !more {
                        return;
                    }
                }
            })
            .ok()?;
        Some(Self { rx })
    }

    /// The next block in file order (waits for the thread); `None` once the thread has ended.
    /// Waits by polling for up to [`SPIN`] before sleeping: waking a sleeping thread costs
    /// far more than a block takes to hand over (on virtual machines, hundreds of
    /// microseconds), and the simulation has nothing else to do meanwhile.
    pub(super) fn next(&mut self) -> Option<Ahead> {
        let rx = &self.rx;
        let start = std::time::Instant::now();
        loop {
            match rx.try_recv() {
                Ok(m) => return Some(m),
                Err(TryRecvError::Disconnected) => return None,
                Err(TryRecvError::Empty) if start.elapsed() < SPIN => std::hint::spin_loop(),
                Err(TryRecvError::Empty) => return rx.recv().ok(),
            }
        }
    }
}
