//! Lockstep with the RTL on other threads: the golden models drive the run, the Verilated
//! models check it in batches, and a mismatch is explained from a snapshot.
//!
//! * The golden side ([`BatchedPair`], one per block instance) steps its golden model, returns
//!   its outputs at once and appends one *record* per cycle (pair id, sequence number, input
//!   words, golden output words) to the chunk of the RTL thread its pair lives on
//!   ([`RtlThreads`]: instances of one module are spread evenly over the threads). The sequence
//!   number counts every step of every pair of the run, in the order the pairs were stepped.
//! * Full chunks go to their thread through a bounded channel ([`CHUNKS_IN_FLIGHT`] chunks of
//!   [`CHUNK_WORDS`] words per thread): when the RTL falls behind, the golden side waits, so
//!   memory stays bounded.
//! * A thread steps its Verilated models on the recorded inputs and compares their outputs
//!   word for word. At its first mismatch it stops and raises a flag. The golden side then
//!   lets every thread check everything sent so far, takes the mismatch with the lowest
//!   sequence number, which is the one a single-threaded lockstep would stop at (same pair,
//!   cycle, port and values), and has its thread explain it.
//! * Every `snapshot_interval` cycles of a pair ([`LockstepConfig::interval`]) the golden side
//!   sends a clone of its golden model with the record, and the RTL thread saves the Verilated
//!   model's state ([`RtlBlock::save`]) before stepping it; it keeps the last two snapshots of
//!   each pair and the input words since the older one.
//! * To explain a mismatch at cycle C, the thread resumes a single-threaded [`Lockstep`] from
//!   the newest snapshot at or before the window's first cycle and drives it with the recorded
//!   inputs: at most one interval plus the window, never from reset. That pair writes the
//!   waveforms and the [`crate::lockstep::Mismatch`]; the golden side returns it from its next
//!   step (or from [`RtlThreads::finish`] when the run has ended).

use crate::lockstep::{Lockstep, LockstepConfig, StepError};
use crate::rtl::{RtlBlock, Snapshot};
use crate::TbError;
use gpusim::block::{word_count, Block, Inspect, PortBundle};
use std::any::Any;
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// Words per chunk of records sent to an RTL thread (512 KB).
pub const CHUNK_WORDS: usize = 1 << 16;
/// Chunks queued between the golden side and each RTL thread.
pub const CHUNKS_IN_FLIGHT: usize = 4;
/// Words of a record before the port words: pair id (on its thread), sequence number.
const RECORD_HEAD: usize = 2;

/// A golden model's state at the start of a cycle, on its way to an RTL thread.
type GoldenSnap = Box<dyn Any + Send>;

/// Records sent to one RTL thread.
#[derive(Default)]
struct Chunk {
    /// Records: `[pair id, sequence number, input words.., golden output words..]`.
    words: Vec<u64>,
    /// (offset of a record in `words`, golden state at the start of that record's cycle).
    snaps: Vec<(usize, GoldenSnap)>,
}

/// Builds the RTL side of a pair on its RTL thread (the Verilated model lives there).
type MakeCheck = Box<dyn FnOnce() -> Result<Box<dyn Check>, TbError> + Send>;

enum Msg {
    Add(MakeCheck, SyncSender<Result<(), TbError>>),
    Chunk(Chunk),
    /// Answered once every earlier message is handled.
    Sync(SyncSender<()>),
    /// Explain the mismatch this thread stopped at.
    Explain(SyncSender<StepError>),
}

/// The RTL side of one pair.
trait Check {
    /// Words of one record after its head: inputs plus outputs.
    fn record_words(&self) -> usize;
    /// Steps the RTL on the record's inputs; whether its outputs equal the record's golden
    /// outputs. `snap` is the golden state at the start of this cycle.
    fn check(&mut self, record: &[u64], snap: Option<GoldenSnap>) -> bool;
    /// Describes the mismatch of the last checked cycle (and writes its waveforms).
    fn explain(&self) -> StepError;
}

/// The RTL threads of one run, shared by its [`BatchedPair`]s (clones are handles to the same
/// threads). The threads stop when the last handle is dropped.
#[derive(Clone)]
pub struct RtlThreads(Rc<RefCell<Pool>>);

struct Pool {
    /// Threads to start.
    threads: usize,
    /// The started threads (none before the first pair).
    workers: Vec<Worker>,
    /// Raised by a thread at its first mismatch.
    failed: Arc<AtomicBool>,
    /// Next record's sequence number.
    seq: u64,
    /// Instances per module so far (spreads each module over the threads).
    per_module: HashMap<String, usize>,
    /// The failure was handed out already.
    reported: bool,
}

/// The golden side's end of one RTL thread.
struct Worker {
    tx: Option<SyncSender<Msg>>,
    chunk: Chunk,
    /// Sequence number of the record this thread stopped at.
    stopped_at: Arc<Mutex<Option<u64>>>,
    handle: Option<JoinHandle<()>>,
    pairs: u64,
}

/// Parses an `--rtl-threads` value: 0 (one per core) up to 4 per core.
pub fn parse_rtl_threads(s: &str) -> Result<usize, String> {
    let cores = thread_count(0);
    let most = 4 * cores;
    match s.parse::<usize>() {
        Ok(n) if n <= most => Ok(n),
        _ => Err(format!(
            "expected 0 (one per core) to {most} (4 per core on this machine's {cores} cores)"
        )),
    }
}

/// The number of RTL threads `requested` (0) means: one per core.
pub fn thread_count(requested: usize) -> usize {
    match requested {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

impl RtlThreads {
    /// A pool of `threads` RTL threads (0: one per core), started with the first pair.
    pub fn new(threads: usize) -> Self {
        Self(Rc::new(RefCell::new(Pool {
            threads: thread_count(threads),
            workers: vec![],
            failed: Arc::new(AtomicBool::new(false)),
            seq: 0,
            per_module: HashMap::new(),
            reported: false,
        })))
    }

    /// Number of threads (started or to be started).
    pub fn threads(&self) -> usize {
        self.0.borrow().threads
    }

    /// Checks every record sent so far and returns the first failure of the run, if there is
    /// one not returned yet (by a pair's step or an earlier call).
    pub fn finish(&self) -> Result<(), StepError> {
        let mut pool = self.0.borrow_mut();
        pool.sync_all()?;
        match pool.failure()? {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

fn stopped() -> TbError {
    TbError::Config("an RTL thread stopped unexpectedly".into())
}

impl Worker {
    fn start(k: usize, failed: &Arc<AtomicBool>) -> Self {
        let (tx, rx) = sync_channel(CHUNKS_IN_FLIGHT);
        let stopped_at = Arc::new(Mutex::new(None));
        let (f, s) = (failed.clone(), stopped_at.clone());
        let handle = std::thread::Builder::new()
            .name(format!("gpusched-rtl{k}"))
            .spawn(move || serve(rx, f, s))
            .expect("spawn an RTL thread");
        Worker {
            tx: Some(tx),
            chunk: Chunk::default(),
            stopped_at,
            handle: Some(handle),
            pairs: 0,
        }
    }

    fn send(&self, msg: Msg) -> Result<(), TbError> {
        let tx = self.tx.as_ref().ok_or_else(stopped)?;
        tx.send(msg).map_err(|_| stopped())
    }

    fn flush(&mut self) -> Result<(), TbError> {
        if self.chunk.words.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.chunk);
        self.chunk.words.reserve(CHUNK_WORDS);
        self.send(Msg::Chunk(chunk))
    }

    /// Asks and waits for an answer.
    fn ask<T>(&self, msg: impl FnOnce(SyncSender<T>) -> Msg) -> Result<T, TbError> {
        let (reply, answer) = sync_channel(1);
        self.send(msg(reply))?;
        answer.recv().map_err(|_| stopped())
    }
}

impl Pool {
    /// Sends every pending record and waits until every thread has handled it.
    fn sync_all(&mut self) -> Result<(), TbError> {
        for w in &mut self.workers {
            w.flush()?;
        }
        for w in &self.workers {
            w.ask(Msg::Sync)?;
        }
        Ok(())
    }

    /// The first failure of the run, once: when a thread has raised the flag, every thread
    /// checks what it was sent, and the one that stopped at the lowest sequence number
    /// explains its mismatch.
    fn failure(&mut self) -> Result<Option<StepError>, TbError> {
        if self.reported || !self.failed.load(Ordering::Acquire) {
            return Ok(None);
        }
        self.reported = true;
        self.sync_all()?;
        let first = self
            .workers
            .iter()
            .filter_map(|w| w.stopped_at.lock().expect("stop slot").map(|seq| (seq, w)))
            .min_by_key(|(seq, _)| *seq);
        match first {
            Some((_, w)) => Ok(Some(w.ask(Msg::Explain)?)),
            None => Err(stopped()),
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        for w in &mut self.workers {
            w.tx = None;
        }
        for w in &mut self.workers {
            if let Some(h) = w.handle.take() {
                let _ = h.join();
            }
        }
    }
}

fn serve(rx: Receiver<Msg>, failed: Arc<AtomicBool>, stopped_at: Arc<Mutex<Option<u64>>>) {
    let mut checks: Vec<Box<dyn Check>> = vec![];
    // The pair this thread stopped at.
    let mut stopped: Option<usize> = None;
    for msg in rx {
        match msg {
            Msg::Add(make, reply) => {
                let _ = reply.send(make().map(|c| checks.push(c)));
            }
            Msg::Chunk(chunk) => {
                if stopped.is_some() {
                    continue;
                }
                if let Some((pair, seq)) = check_chunk(&mut checks, chunk) {
                    stopped = Some(pair);
                    *stopped_at.lock().expect("stop slot") = Some(seq);
                    failed.store(true, Ordering::Release);
                }
            }
            Msg::Sync(reply) => {
                let _ = reply.send(());
            }
            Msg::Explain(reply) => {
                let e = match stopped {
                    Some(pair) => checks[pair].explain(),
                    None => StepError::Tb(TbError::Config("no mismatch to explain".into())),
                };
                let _ = reply.send(e);
            }
        }
    }
}

/// Checks a chunk's records in order; the (pair, sequence number) of the first mismatch.
fn check_chunk(checks: &mut [Box<dyn Check>], chunk: Chunk) -> Option<(usize, u64)> {
    let Chunk { words, snaps } = chunk;
    let mut snaps = snaps.into_iter().peekable();
    let mut at = 0;
    while at < words.len() {
        let (pair, seq) = (words[at] as usize, words[at + 1]);
        let check = &mut checks[pair];
        let n = check.record_words();
        let snap = match snaps.peek() {
            Some((offset, _)) if *offset == at => snaps.next().map(|(_, g)| g),
            _ => None,
        };
        let body = at + RECORD_HEAD;
        if !check.check(&words[body..body + n], snap) {
            return Some((pair, seq));
        }
        at = body + n;
    }
    None
}

/// The golden side of a pair whose RTL runs on one of the [`RtlThreads`]: steps the golden
/// model and returns its outputs at once; the comparison happens on the RTL thread.
pub struct BatchedPair<G: Block> {
    golden: G,
    threads: RtlThreads,
    /// The RTL thread of this pair, and the pair's id there.
    worker: usize,
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
    /// Pairs `golden` (reset here) with a fresh instance of Verilated module `module` on one
    /// of `threads`. `name` names the pair in its mismatch and prefixes its waveform files.
    /// Errors (Verilator missing, unknown module, ports that differ) come back at once.
    pub fn new(
        threads: &RtlThreads,
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
                let rtl = RtlBlock::<G::In, G::Out>::with_x_seed(&module, &params, cfg.x_seed)?;
                Ok(Box::new(RtlCheck::<G> {
                    name,
                    rtl,
                    params,
                    cfg,
                    inputs,
                    outputs,
                    snaps: VecDeque::new(),
                    log: VecDeque::new(),
                }) as Box<dyn Check>)
            })
        };
        let (worker, id) = {
            let mut pool = threads.0.borrow_mut();
            if pool.workers.is_empty() {
                pool.workers = (0..pool.threads)
                    .map(|k| Worker::start(k, &pool.failed))
                    .collect();
            }
            let n = pool.workers.len();
            let count = pool.per_module.entry(module.to_string()).or_insert(0);
            let k = *count % n;
            *count += 1;
            let w = &mut pool.workers[k];
            w.flush()?;
            w.ask(|reply| Msg::Add(make, reply))??;
            w.pairs += 1;
            (k, w.pairs - 1)
        };
        Ok(Self {
            golden,
            threads: threads.clone(),
            worker,
            id,
            params: params.clone(),
            inputs,
            outputs,
            interval: cfg.interval(),
            cycle: 0,
        })
    }

    /// One cycle of the golden model; its outputs, or the first failure the RTL threads have
    /// found so far in any pair of the run (it may be at an earlier cycle than this one).
    pub fn step(&mut self, inp: &G::In) -> Result<G::Out, StepError> {
        let mut pool = self.threads.0.borrow_mut();
        if let Some(e) = pool.failure()? {
            return Err(e);
        }
        let snap = self
            .cycle
            .is_multiple_of(self.interval)
            .then(|| Box::new(self.golden.clone()) as GoldenSnap);
        let out = self.golden.step(inp);
        let seq = pool.seq;
        pool.seq += 1;
        let w = &mut pool.workers[self.worker];
        let chunk = &mut w.chunk;
        let at = chunk.words.len();
        let body = at + RECORD_HEAD;
        chunk.words.resize(body + self.inputs + self.outputs, 0);
        chunk.words[at] = self.id;
        chunk.words[at + 1] = seq;
        let (iw, ow) = chunk.words[body..].split_at_mut(self.inputs);
        inp.to_words(&self.params, iw);
        out.to_words(&self.params, ow);
        if let Some(g) = snap {
            chunk.snaps.push((at, g));
        }
        // Sent before the next record would outgrow the chunk's capacity (a reallocation
        // would copy the whole chunk).
        if chunk.words.len() + RECORD_HEAD + self.inputs + self.outputs > CHUNK_WORDS {
            w.flush()?;
        }
        self.cycle += 1;
        Ok(out)
    }

    /// Cycles stepped.
    pub fn cycle(&self) -> u64 {
        self.cycle
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
    /// Input words of every cycle since the older snapshot (a ring: dropping the oldest
    /// interval moves nothing).
    log: VecDeque<u64>,
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

    fn check(&mut self, record: &[u64], snap: Option<GoldenSnap>) -> bool {
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
        self.log.extend(inp);
        self.rtl.step_words(inp) == expected
    }

    fn explain(&self) -> StepError {
        self.explain_cycle(self.rtl.cycle() - 1)
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
    fn explain_cycle(&self, cycle: u64) -> StepError {
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
                let words: Vec<u64> = self.log.range(at..at + self.inputs).copied().collect();
                let inp = G::In::from_words(&self.params, &words);
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
