//! The crossbar between SMs and memory sub-partitions (one direction; the model uses two).
//!
//! Packets are split into flits of `flit_bytes`. Every cycle each input port sends at most one
//! flit and each output port accepts at most one; a packet holds its input and output until its
//! last flit has crossed (no interleaving), and is delivered `latency` cycles after that.
//! Outputs pick among inputs whose head packet targets them in round robin, starting after the
//! input they served last; outputs are visited in a rotating order so none is favoured. Each
//! input has a FIFO of `queue` packets.

use std::collections::VecDeque;

/// A packet in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Packet<P> {
    dst: usize,
    flits: u32,
    payload: P,
}

/// Counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CrossbarStats {
    /// Flits moved.
    pub flits: u64,
    /// Packets delivered.
    pub packets: u64,
    /// Input-port cycles with a packet waiting that moved no flit (output contention).
    pub stalls: u64,
}

/// A crossbar carrying payloads of type `P`.
#[derive(Clone, Debug)]
pub struct Crossbar<P> {
    latency: u64,
    flit_bytes: u32,
    queue: usize,
    inputs: Vec<VecDeque<Packet<P>>>,
    /// Input currently streaming a packet into each output, with flits left.
    busy: Vec<Option<(usize, u32)>>,
    /// Output each input is streaming into.
    input_busy: Vec<Option<usize>>,
    /// Last input served by each output (round-robin pointer).
    last: Vec<usize>,
    /// Delivered packets per output: (ready cycle, flits, payload), in order.
    out: Vec<VecDeque<(u64, u32, P)>>,
    now: u64,
    /// Per-cycle scratch: for each output, the idle inputs (bit = input) whose head packet
    /// targets it at the start of the cycle.
    want: Vec<u128>,
    /// Counters.
    pub stats: CrossbarStats,
    /// Flits at each output: crossed, delivered or not, and not yet taken.
    out_flits: Vec<u32>,
    /// Flits an output holds at most ([`Crossbar::with_output_capacity`]).
    out_capacity: u32,
}

impl<P> Crossbar<P> {
    /// A crossbar of `inputs` x `outputs` ports.
    pub fn new(inputs: usize, outputs: usize, latency: u32, flit_bytes: u32, queue: usize) -> Self {
        assert!(inputs > 0 && outputs > 0 && flit_bytes > 0 && queue > 0);
        assert!(inputs <= 128, "at most 128 inputs");
        Self {
            latency: latency as u64,
            flit_bytes,
            queue,
            inputs: (0..inputs).map(|_| VecDeque::new()).collect(),
            busy: vec![None; outputs],
            input_busy: vec![None; inputs],
            last: vec![inputs - 1; outputs],
            out: (0..outputs).map(|_| VecDeque::new()).collect(),
            now: 0,
            want: vec![0; outputs],
            stats: CrossbarStats::default(),
            out_flits: vec![0; outputs],
            out_capacity: u32::MAX,
        }
    }

    /// This crossbar with outputs that hold at most `flits` flits delivered and not yet taken
    /// (GPGPU-Sim's ejection and boundary buffers): a flit crosses to an output only while it
    /// holds fewer, so a busy consumer holds the inputs back and the outputs' round robin
    /// shares it among them. Unbounded (`u32::MAX`) unless set.
    pub fn with_output_capacity(mut self, flits: u32) -> Self {
        assert!(flits > 0);
        self.out_capacity = flits;
        self
    }

    /// Whether input `src` can take another packet.
    pub fn can_push(&self, src: usize) -> bool {
        self.inputs[src].len() < self.queue
    }

    /// Queues a packet of `bytes` bytes from `src` to `dst`; false if the input FIFO is full.
    pub fn push(&mut self, src: usize, dst: usize, bytes: u32, payload: P) -> bool {
        assert!(dst < self.out.len(), "output {dst} out of range");
        if !self.can_push(src) {
            return false;
        }
        let flits = bytes.div_ceil(self.flit_bytes).max(1);
        self.inputs[src].push_back(Packet {
            dst,
            flits,
            payload,
        });
        true
    }

    /// Takes the next packet delivered to output `dst`, if one has arrived.
    pub fn pop(&mut self, dst: usize) -> Option<P> {
        if !self.has_ready(dst) {
            return None;
        }
        let (_, flits, p) = self.out[dst].pop_front()?;
        self.out_flits[dst] -= flits;
        Some(p)
    }

    /// Whether [`Crossbar::pop`] would take a payload (or a piece of one) at output `dst` now.
    pub fn has_ready(&self, dst: usize) -> bool {
        self.out[dst]
            .front()
            .is_some_and(|&(ready, _, _)| ready <= self.now)
    }

    /// Every payload inside the crossbar: waiting or streaming at an input, or delivered to an
    /// output and not yet taken.
    pub fn payloads(&self) -> impl Iterator<Item = &P> {
        let queued = self.inputs.iter().flatten().map(|p| &p.payload);
        queued.chain(self.out.iter().flatten().map(|(_, _, p)| p))
    }

    /// Current cycle.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// One cycle: every output moves one flit of its packet or starts a new one.
    pub fn cycle(&mut self) {
        if self.inputs.iter().all(VecDeque::is_empty) {
            // Nothing waits or streams (a streaming packet stays at its input's head).
            self.now += 1;
            return;
        }
        let (n_in, n_out) = (self.inputs.len(), self.out.len());
        let first_out = (self.now % n_out as u64) as usize;
        // Inputs with a packet at the start of the cycle, and the idle ones by head target.
        let mut waiting = 0u128;
        self.want.fill(0);
        for (src, q) in self.inputs.iter().enumerate() {
            if let Some(p) = q.front() {
                waiting |= 1 << src;
                if self.input_busy[src].is_none() {
                    self.want[p.dst] |= 1 << src;
                }
            }
        }
        let all = if n_in == 128 {
            u128::MAX
        } else {
            (1u128 << n_in) - 1
        };
        // Inputs that moved a flit this cycle (one flit per input per cycle).
        let mut sent = 0u128;
        for k in 0..n_out {
            let dst = (first_out + k) % n_out;
            let room = self.out_flits[dst] < self.out_capacity;
            if self.busy[dst].is_none() && room {
                // Round robin over the inputs that want this output, after the last served.
                let cand = self.want[dst] & !sent;
                if cand != 0 {
                    let after = cand & all.checked_shl(self.last[dst] as u32 + 1).unwrap_or(0);
                    let src = if after != 0 { after } else { cand }.trailing_zeros() as usize;
                    let flits = self.inputs[src].front().expect("a head").flits;
                    self.busy[dst] = Some((src, flits));
                    self.input_busy[src] = Some(dst);
                    self.last[dst] = src;
                    for w in &mut self.want {
                        *w &= !(1 << src);
                    }
                }
            }
            if let Some((src, left)) = self.busy[dst].filter(|_| room) {
                self.stats.flits += 1;
                self.out_flits[dst] += 1;
                sent |= 1 << src;
                if left == 1 {
                    let p = self.inputs[src].pop_front().expect("streaming packet");
                    let ready = self.now + 1 + self.latency;
                    self.out[dst].push_back((ready, p.flits, p.payload));
                    self.stats.packets += 1;
                    self.busy[dst] = None;
                    self.input_busy[src] = None;
                } else {
                    self.busy[dst] = Some((src, left - 1));
                }
            }
        }
        self.stats.stalls += (waiting & !sent).count_ones() as u64;
        self.now += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs until every pushed packet is delivered; returns (payload, delivery cycle) per output.
    fn drain(x: &mut Crossbar<u32>, expect: usize) -> Vec<Vec<(u32, u64)>> {
        let mut got = vec![vec![]; x.out.len()];
        let mut n = 0;
        while n < expect {
            x.cycle();
            assert!(x.now() < 100_000, "stuck");
            for (d, g) in got.iter_mut().enumerate() {
                while let Some(p) = x.pop(d) {
                    g.push((p, x.now()));
                    n += 1;
                }
            }
        }
        got
    }

    #[test]
    fn one_packet_takes_latency_plus_its_flits() {
        let mut x = Crossbar::new(2, 2, 8, 32, 4);
        assert!(x.push(0, 1, 128, 7)); // 4 flits
        let got = drain(&mut x, 1);
        assert_eq!(
            got[1],
            vec![(7, 4 + 8)],
            "4 flit cycles, then 8 cycles of latency"
        );
        assert_eq!(x.stats.flits, 4);
    }

    /// A full output takes no flit: the inputs wait, and once its consumer takes a packet the
    /// output's round robin, not the order of arrival, decides who goes next.
    #[test]
    fn a_full_output_holds_its_inputs_back() {
        let mut x = Crossbar::new(2, 1, 0, 32, 8).with_output_capacity(2);
        for i in 0..4 {
            assert!(x.push(0, 0, 32, i));
        }
        assert!(x.push(1, 0, 32, 100));
        for _ in 0..10 {
            x.cycle();
        }
        assert_eq!(x.payloads().count(), 5, "nothing lost");
        assert_eq!(x.stats.packets, 2, "two flits fill the output");
        assert_eq!((x.pop(0), x.pop(0), x.pop(0)), (Some(0), Some(100), None));
        x.cycle();
        x.cycle();
        assert_eq!((x.pop(0), x.pop(0)), (Some(1), Some(2)));
        // Unbounded (the default), everything crosses at once.
        let mut y = Crossbar::new(2, 1, 0, 32, 8);
        for i in 0..4 {
            assert!(y.push(0, 0, 32, i));
        }
        for _ in 0..10 {
            y.cycle();
        }
        assert_eq!(y.stats.packets, 4);
    }

    #[test]
    fn two_inputs_share_one_output_in_turn() {
        let mut x = Crossbar::new(2, 1, 0, 32, 8);
        for i in 0..4 {
            assert!(x.push(0, 0, 32, i));
            assert!(x.push(1, 0, 32, 100 + i));
        }
        let got = drain(&mut x, 8);
        let order: Vec<u32> = got[0].iter().map(|&(p, _)| p).collect();
        assert_eq!(
            order,
            vec![0, 100, 1, 101, 2, 102, 3, 103],
            "round robin between the inputs"
        );
        assert_eq!(
            got[0].last().unwrap().1,
            8,
            "one flit per cycle at the output"
        );
        assert_eq!(
            x.stats.stalls, 7,
            "the losing input waits one cycle per packet but the last"
        );
    }

    #[test]
    fn a_permutation_moves_one_flit_per_port_per_cycle() {
        let n = 4;
        let mut x = Crossbar::new(n, n, 2, 32, 16);
        for round in 0..10u32 {
            for s in 0..n {
                assert!(x.push(s, (s + 1) % n, 64, round * 10 + s as u32));
            }
        }
        let got = drain(&mut x, 40);
        // 10 packets of 2 flits per port: 20 cycles of flits, plus latency.
        let last = got.iter().map(|g| g.last().unwrap().1).max().unwrap();
        assert_eq!(last, 20 + 2);
        assert_eq!(x.stats.stalls, 0);
    }

    #[test]
    fn an_input_fifo_refuses_when_full_and_packets_keep_their_order() {
        let mut x = Crossbar::new(1, 2, 1, 32, 2);
        assert!(x.push(0, 0, 32, 1) && x.push(0, 1, 32, 2));
        assert!(!x.push(0, 0, 32, 3), "FIFO of 2");
        let got = drain(&mut x, 2);
        assert_eq!((got[0][0].0, got[1][0].0), (1, 2));
        assert!(
            got[0][0].1 < got[1][0].1,
            "one flit per input per cycle, in FIFO order"
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Random traffic: every packet arrives, packets of one input to one output keep their
        /// order, and no port beats one flit per cycle (the run is at least as long as the
        /// busiest port's flits).
        #[test]
        fn random_traffic_respects_port_bandwidth(
            pkts in proptest::collection::vec((0usize..4, 0usize..3, 1u32..200), 1..120)
        ) {
            let mut x: Crossbar<u32> = Crossbar::new(4, 3, 3, 32, 1000);
            let (mut in_flits, mut out_flits) = ([0u64; 4], [0u64; 3]);
            for (i, &(s, d, bytes)) in pkts.iter().enumerate() {
                proptest::prop_assert!(x.push(s, d, bytes, i as u32));
                let f = bytes.div_ceil(32) as u64;
                in_flits[s] += f;
                out_flits[d] += f;
            }
            let got = drain(&mut x, pkts.len());
            let busiest = in_flits.iter().chain(&out_flits).max().copied().unwrap();
            let last = got.iter().filter_map(|g| g.last()).map(|&(_, t)| t).max().unwrap();
            proptest::prop_assert!(last >= busiest + 3, "finished at {} with {} flits on one port", last, busiest);
            proptest::prop_assert_eq!(x.stats.flits, in_flits.iter().sum::<u64>());
            for (d, g) in got.iter().enumerate() {
                for s in 0..4 {
                    let ids: Vec<u32> = g.iter().map(|&(p, _)| p).filter(|&p| pkts[p as usize].0 == s).collect();
                    let mut sorted = ids.clone();
                    sorted.sort();
                    proptest::prop_assert_eq!(ids, sorted, "input {} to output {} out of order", s, d);
                }
            }
        }
    }
}
