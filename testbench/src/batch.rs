//! Lockstep with the RTL on a second thread: the golden models drive the run, the Verilated
//! models check it in batches, and a mismatch is explained from a snapshot.
//!
//! * The golden side ([`BatchedPair`], one per block instance) steps its golden model, returns
//!   its outputs at once and appends one *record* per cycle (pair id, input words, golden
//!   output words) to a chunk shared by every pair of the run ([`RtlThread`]). Records are in
//!   the order the pairs were stepped, so the RTL thread meets the mismatches in the same
//!   order as a single-threaded lockstep would, and the first one it finds is the first of the
//!   run: same pair, cycle, port and values.
//! * Full chunks go to the RTL thread through a bounded channel ([`CHUNKS_IN_FLIGHT`] chunks
//!   of [`CHUNK_WORDS`] words): when the RTL falls behind, the golden side waits, so memory
//!   stays bounded.
//! * Every `snapshot_interval` cycles of a pair ([`LockstepConfig::interval`]) the golden side
//!   sends a clone of its golden model with the record, and the RTL thread saves the Verilated
//!   model's state ([`RtlBlock::save`]) before stepping it. The RTL thread keeps the last two
//!   snapshots of each pair and the input words since the older one.
//! * On a mismatch at cycle C, the RTL thread resumes a single-threaded [`Lockstep`] from the
//!   newest snapshot at or before the window's first cycle and drives it with the recorded
//!   inputs: at most one interval plus the window, never from reset. That pair writes the
//!   waveforms and the [`Mismatch`]; the golden side returns it from its next step (or from
//!   [`RtlThread::finish`] when the run has ended).

use crate::lockstep::{Lockstep, LockstepConfig, StepError};
use crate::rtl::{RtlBlock, Snapshot};
use crate::TbError;
use gpusim::block::{word_count, Block, Inspect, PortBundle};
use std::any::Any;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Words per chunk of records sent to the RTL thread (512 KB).
pub const CHUNK_WORDS: usize = 1 << 16;
/// Chunks queued between the golden side and the RTL thread.
pub const CHUNKS_IN_FLIGHT: usize = 4;

/// A golden model's state at the start of a cycle, on its way to the RTL thread.
type GoldenSnap = Box<dyn Any + Send>;

/// Records of consecutive cycles, as sent to the RTL thread.
#[derive(Default)]
struct Chunk {
    /// Records: `[pair id, input words.., golden output words..]`.
    words: Vec<u64>,
    /// (offset of a record in `words`, golden state at the start of that record's cycle).
    snaps: Vec<(usize, GoldenSnap)>,
}

/// Builds the RTL side of a pair on the RTL thread (the Verilated model lives there).
type MakeCheck = Box<dyn FnOnce() -> Result<Box<dyn Check>, TbError> + Send>;

enum Msg {
    Add(MakeCheck, SyncSender<Result<(), TbError>>),
    Chunk(Chunk),
    /// Answered once every earlier message is handled.
    Sync(SyncSender<()>),
}

/// The RTL side of one pair.
trait Check {
    /// Words of one record after the pair id: inputs plus outputs.
    fn record_words(&self) -> usize;
    /// Checks one cycle: steps the RTL on the record's inputs, compares its outputs with the
    /// record's golden outputs; `snap` is the golden state at the start of this cycle.
    fn check(&mut self, record: &[u64], snap: Option<GoldenSnap>) -> Result<(), StepError>;
}

/// What the RTL thread reports back.
#[derive(Default)]
struct Shared {
    /// Set (after `failure` is filled) when a pair failed.
    failed: AtomicBool,
    failure: Mutex<Option<StepError>>,
}

/// The RTL thread of one run, shared by its [`BatchedPair`]s (clones are handles to the same
/// thread). The thread stops when the last handle is dropped.
#[derive(Clone)]
pub struct RtlThread(Rc<RefCell<Inner>>);

struct Inner {
    tx: Option<SyncSender<Msg>>,
    chunk: Chunk,
    shared: Arc<Shared>,
    handle: Option<JoinHandle<()>>,
    pairs: u64,
    /// The failure was handed out already.
    reported: bool,
}

impl Default for RtlThread {
    fn default() -> Self {
        Self::start()
    }
}

impl RtlThread {
    /// Starts the thread.
    pub fn start() -> Self {
        let (tx, rx) = sync_channel(CHUNKS_IN_FLIGHT);
        let shared = Arc::new(Shared::default());
        let s = shared.clone();
        let handle = std::thread::Builder::new()
            .name("gpusched-rtl".into())
            .spawn(move || serve(rx, s))
            .expect("spawn the RTL thread");
        Self(Rc::new(RefCell::new(Inner {
            tx: Some(tx),
            chunk: Chunk::default(),
            shared,
            handle: Some(handle),
            pairs: 0,
            reported: false,
        })))
    }

    /// Checks every record sent so far and returns the first failure of the run, if there is
    /// one not returned yet (by a pair's step or an earlier call).
    pub fn finish(&self) -> Result<(), StepError> {
        let mut t = self.0.borrow_mut();
        t.flush()?;
        let (reply, done) = sync_channel(1);
        t.send(Msg::Sync(reply))?;
        done.recv().map_err(|_| stopped())?;
        match t.failure() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn stopped() -> TbError {
    TbError::Config("the RTL thread stopped unexpectedly".into())
}

impl Inner {
    fn send(&self, msg: Msg) -> Result<(), TbError> {
        let tx = self.tx.as_ref().ok_or_else(stopped)?;
        tx.send(msg).map_err(|_| stopped())
    }

    fn flush(&mut self) -> Result<(), TbError> {
        if self.chunk.words.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.chunk);
        self.chunk.words.reserve(CHUNK_WORDS + 64);
        self.send(Msg::Chunk(chunk))
    }

    /// The failure found by the RTL thread, once.
    fn failure(&mut self) -> Option<StepError> {
        if self.reported || !self.shared.failed.load(Ordering::Acquire) {
            return None;
        }
        self.reported = true;
        self.shared.failure.lock().expect("failure slot").take()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.tx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn serve(rx: Receiver<Msg>, shared: Arc<Shared>) {
    let mut checks: Vec<Box<dyn Check>> = vec![];
    for msg in rx {
        match msg {
            Msg::Add(make, reply) => {
                let _ = reply.send(make().map(|c| checks.push(c)));
            }
            Msg::Chunk(chunk) => {
                if shared.failed.load(Ordering::Acquire) {
                    continue;
                }
                if let Err(e) = check_chunk(&mut checks, chunk) {
                    *shared.failure.lock().expect("failure slot") = Some(e);
                    shared.failed.store(true, Ordering::Release);
                }
            }
            Msg::Sync(reply) => {
                let _ = reply.send(());
            }
        }
    }
}

fn check_chunk(checks: &mut [Box<dyn Check>], chunk: Chunk) -> Result<(), StepError> {
    let Chunk { words, snaps } = chunk;
    let mut snaps = snaps.into_iter().peekable();
    let mut at = 0;
    while at < words.len() {
        let check = &mut checks[words[at] as usize];
        let n = check.record_words();
        let snap = match snaps.peek() {
            Some((offset, _)) if *offset == at => snaps.next().map(|(_, g)| g),
            _ => None,
        };
        check.check(&words[at + 1..at + 1 + n], snap)?;
        at += 1 + n;
    }
    Ok(())
}

/// The golden side of a pair whose RTL runs on an [`RtlThread`]: steps the golden model and
/// returns its outputs at once; the comparison happens on the RTL thread.
pub struct BatchedPair<G: Block> {
    golden: G,
    thread: RtlThread,
    id: u64,
    params: <G::In as PortBundle>::Params,
    inputs: usize,
    outputs: usize,
    interval: u64,
    cycle: u64,
}

impl<G> BatchedPair<G>
where
    G: Block + Inspect + Clone + Send + 'static,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone + Send + 'static,
{
    /// Pairs `golden` (reset here) with a fresh instance of Verilated module `module` on
    /// `thread`. `name` names the pair in its mismatch and prefixes its waveform files.
    /// Errors (Verilator missing, unknown module, ports that differ) come back at once.
    pub fn new(
        thread: &RtlThread,
        name: &str,
        mut golden: G,
        module: &str,
        params: &<G::In as PortBundle>::Params,
        cfg: &LockstepConfig,
    ) -> Result<Self, TbError> {
        golden.reset();
        let inputs = word_count(&<G::In as PortBundle>::specs(params));
        let outputs = word_count(&<G::Out as PortBundle>::specs(params));
        let make: MakeCheck = {
            let (name, module) = (name.to_string(), module.to_string());
            let (params, cfg) = (params.clone(), cfg.clone());
            Box::new(move || {
                let rtl = RtlBlock::<G::In, G::Out>::new(&module, &params)?;
                Ok(Box::new(RtlCheck::<G> {
                    name,
                    rtl,
                    params,
                    cfg,
                    inputs,
                    outputs,
                    snaps: VecDeque::new(),
                    log: vec![],
                }) as Box<dyn Check>)
            })
        };
        let id = {
            let mut t = thread.0.borrow_mut();
            t.flush()?;
            let (reply, added) = sync_channel(1);
            t.send(Msg::Add(make, reply))?;
            added.recv().map_err(|_| stopped())??;
            t.pairs += 1;
            t.pairs - 1
        };
        Ok(Self {
            golden,
            thread: thread.clone(),
            id,
            params: params.clone(),
            inputs,
            outputs,
            interval: cfg.interval(),
            cycle: 0,
        })
    }

    /// One cycle of the golden model; its outputs, or the first failure the RTL thread has
    /// found so far in any pair of the run (it may be at an earlier cycle than this one).
    pub fn step(&mut self, inp: &G::In) -> Result<G::Out, StepError> {
        let mut t = self.thread.0.borrow_mut();
        if let Some(e) = t.failure() {
            return Err(e);
        }
        let snap = self
            .cycle
            .is_multiple_of(self.interval)
            .then(|| Box::new(self.golden.clone()) as GoldenSnap);
        let out = self.golden.step(inp);
        let chunk = &mut t.chunk;
        let at = chunk.words.len();
        chunk.words.resize(at + 1 + self.inputs + self.outputs, 0);
        chunk.words[at] = self.id;
        let (iw, ow) = chunk.words[at + 1..].split_at_mut(self.inputs);
        inp.to_words(&self.params, iw);
        out.to_words(&self.params, ow);
        if let Some(g) = snap {
            chunk.snaps.push((at, g));
        }
        if chunk.words.len() >= CHUNK_WORDS {
            t.flush()?;
        }
        self.cycle += 1;
        Ok(out)
    }

    /// Cycles stepped.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// The RTL thread this pair runs on.
    pub fn thread(&self) -> &RtlThread {
        &self.thread
    }
}

/// The RTL side of a [`BatchedPair`], on the RTL thread.
struct RtlCheck<G: Block> {
    name: String,
    rtl: RtlBlock<G::In, G::Out>,
    params: <G::In as PortBundle>::Params,
    cfg: LockstepConfig,
    inputs: usize,
    outputs: usize,
    /// The last two snapshots: golden state and RTL state at the same cycle's start.
    snaps: VecDeque<(G, Snapshot)>,
    /// Input words of every cycle since the older snapshot.
    log: Vec<u64>,
}

impl<G> Check for RtlCheck<G>
where
    G: Block + Inspect + Clone + 'static,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
{
    fn record_words(&self) -> usize {
        self.inputs + self.outputs
    }

    fn check(&mut self, record: &[u64], snap: Option<GoldenSnap>) -> Result<(), StepError> {
        let (inp, expected) = record.split_at(self.inputs);
        if let Some(g) = snap {
            let g = *g
                .downcast::<G>()
                .expect("a golden snapshot of this pair's type");
            self.snaps.push_back((g, self.rtl.save()));
            if self.snaps.len() > 2 {
                let (_, old) = self.snaps.pop_front().expect("three snapshots");
                let dropped = (self.snaps[0].1.cycle - old.cycle) as usize * self.inputs;
                self.log.drain(..dropped);
            }
        }
        self.log.extend_from_slice(inp);
        if self.rtl.step_words(inp) == expected {
            return Ok(());
        }
        Err(self.explain(self.rtl.cycle() - 1))
    }
}

impl<G> RtlCheck<G>
where
    G: Block + Inspect + Clone,
    G::Out: PortBundle<Params = <G::In as PortBundle>::Params>,
    <G::In as PortBundle>::Params: Clone,
{
    /// Describes the mismatch at `cycle` (and writes its waveforms) by resuming a lockstep
    /// pair from the newest snapshot at or before the waveform window's first cycle.
    fn explain(&self, cycle: u64) -> StepError {
        let first = (cycle + 1)
            .saturating_sub(self.cfg.window as u64)
            .min(cycle);
        let (golden, rtl) = self
            .snaps
            .iter()
            .rev()
            .find(|(_, s)| s.cycle <= first)
            .unwrap_or(&self.snaps[0]);
        let start = self.snaps[0].1.cycle;
        let replay = || -> Result<StepError, TbError> {
            let mut pair = Lockstep::resume(
                &self.name,
                golden.clone(),
                rtl,
                &self.params,
                &self.cfg,
                cycle,
            )?;
            for c in rtl.cycle..=cycle {
                let at = (c - start) as usize * self.inputs;
                let inp = G::In::from_words(&self.params, &self.log[at..at + self.inputs]);
                match pair.step(&inp) {
                    Ok(_) => {}
                    Err(StepError::Mismatch(m)) if m.cycle == cycle => {
                        return Ok(StepError::Mismatch(m))
                    }
                    Err(StepError::Mismatch(m)) => {
                        return Err(not_reproduced(&self.name, cycle, &m.to_string()))
                    }
                    Err(StepError::Tb(e)) => return Err(e),
                }
            }
            Err(not_reproduced(&self.name, cycle, "no mismatch"))
        };
        replay().unwrap_or_else(StepError::Tb)
    }
}

fn not_reproduced(name: &str, cycle: u64, replay: &str) -> TbError {
    TbError::NotReproduced {
        module: name.into(),
        cycle,
        replay: replay.lines().next().unwrap_or("").into(),
    }
}
