//! PAVER's three ways from a locality graph to thread-block groups (spec `paver.md` §1.4-§1.8):
//! MST-TS (Prim's maximum spanning tree order cut into groups), kway-TS (METIS k-way, one part
//! per SM, each in Prim order) and RB-TS (Algorithm 1: recursive METIS bisection until a part
//! is smaller than the blocks an SM holds, leaves in queue order, each in Prim order). The
//! result is the flat layout of §1.8 that the dispatcher reads: `order[]`, a permutation of the
//! blocks, and `gstart[]`, where each group starts.
//!
//! METIS runs with a fixed seed, so a partition is the same on every run. A graph (or a part)
//! with no edges is split in block-id order without METIS, and so is a part METIS leaves
//! whole, so every scheme ends on every input; [`Groups::notes`] says when that happened.

use super::graph::LocalityGraph;
use metis::Idx;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Mutex;

/// Held while METIS runs (see [`Subset::metis`]).
static METIS: Mutex<()> = Mutex::new(());

/// A partitioning scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Scheme {
    /// MST-TS (§4.1, L187-L197): the Prim order, the first N groups of x blocks, then one block
    /// each.
    Mst,
    /// kway-TS (§4.2, L199-L205): METIS k-way with k = the SMs, each part in Prim order.
    Kway,
    /// RB-TS (§4.3, Algorithm 1, L207-L238).
    Rb,
}

impl Scheme {
    /// Names (`mst`, `kway`, `rb`).
    pub const NAMES: &'static [&'static str] = &["mst", "kway", "rb"];

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "mst" => Some(Self::Mst),
            "kway" => Some(Self::Kway),
            "rb" => Some(Self::Rb),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// RB-TS's leaf rule (Algorithm 1 L222; spec A13, V-R9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum LeafRule {
    /// A part is a leaf when smaller than x (the paper's `<`): leaves of at most x - 1.
    #[default]
    Below,
    /// A part is a leaf when it holds at most x (the spec's option).
    AtMost,
}

/// What a scheme needs of the GPU and the kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionParams {
    /// SMs (`N`).
    pub sms: u32,
    /// Blocks of this kernel one SM holds at once (`x`, the kernel's occupancy; spec A11).
    pub per_sm: u32,
    /// RB-TS's leaf rule.
    pub leaf: LeafRule,
    /// METIS's random seed.
    pub seed: i32,
}

/// The groups in dispatch order (§1.8): group `g` is `order[gstart[g]..gstart[g + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Groups {
    /// Every block once, group by group.
    pub order: Vec<u32>,
    /// Where each group starts in `order`, then `order.len()`; strictly increasing.
    pub gstart: Vec<u32>,
    /// What the partitioner did that a reader of the schedule should know (a part split in
    /// id order, METIS's weights scaled).
    pub notes: Vec<String>,
}

impl Groups {
    /// Groups.
    pub fn len(&self) -> usize {
        self.gstart.len().saturating_sub(1)
    }

    /// Whether there are none (a kernel of no blocks).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The answer to a read of these tables through `paver_tb`'s read port
    /// ([`crate::blocks::paver_tb`]): with `group`, group `a`'s descriptor
    /// `gstart[a + 1] << 16 | gstart[a]`, else `order[a]`; 0 outside the tables.
    pub fn table_word(&self, group: bool, a: u16) -> u32 {
        let (a, at) = (a as usize, |t: &[u32], i: usize| {
            t.get(i).copied().unwrap_or(0)
        });
        if group {
            at(&self.gstart, a + 1) << 16 | at(&self.gstart, a)
        } else {
            at(&self.order, a)
        }
    }

    /// Group `g`'s blocks.
    pub fn group(&self, g: usize) -> &[u32] {
        &self.order[self.gstart[g] as usize..self.gstart[g + 1] as usize]
    }

    /// Sum of the weights of edges inside groups: the locality the grouping keeps (L355).
    pub fn intra_weight(&self, g: &LocalityGraph) -> u64 {
        let mut group_of = vec![0u32; g.vertices() as usize];
        for k in 0..self.len() {
            for &v in self.group(k) {
                group_of[v as usize] = k as u32;
            }
        }
        g.edge_list()
            .filter(|&(a, b, _)| group_of[a as usize] == group_of[b as usize])
            .map(|(_, _, w)| w as u64)
            .sum()
    }

    fn push(&mut self, group: &[u32]) {
        if group.is_empty() {
            return;
        }
        if self.gstart.is_empty() {
            self.gstart.push(0);
        }
        self.order.extend_from_slice(group);
        self.gstart.push(self.order.len() as u32);
    }

    fn note(&mut self, s: String) {
        if !self.notes.contains(&s) {
            self.notes.push(s);
        }
    }
}

/// `scheme`'s groups of `g` with `p`.
pub fn partition(g: &LocalityGraph, scheme: Scheme, p: &PartitionParams) -> Groups {
    match scheme {
        Scheme::Mst => mst_ts(g, p),
        Scheme::Kway => kway_ts(g, p),
        Scheme::Rb => rb_ts(g, p),
    }
}

/// Prim's maximum spanning tree over `vertices` (ascending ids; the subgraph they induce), in
/// the order it takes them (§1.4): start at the smallest id; next the vertex most strongly tied
/// to the tree, ties to the smallest id; a vertex tied to nothing taken starts a new tree at
/// the smallest id left. An edgeless set comes back in id order.
pub fn prim_order(g: &LocalityGraph, vertices: &[u32]) -> Vec<u32> {
    let mut pos = vec![u32::MAX; g.vertices() as usize];
    let order = Subset::new(g, vertices, &mut pos).prim();
    order
}

/// The vertices of a subset and their positions in it (in a scratch array of every vertex,
/// `u32::MAX` outside the subset, reset when the subset is dropped: one allocation serves every
/// part of a partition).
struct Subset<'g, 's> {
    g: &'g LocalityGraph,
    vertices: &'s [u32],
    pos: &'s mut [u32],
}

impl Drop for Subset<'_, '_> {
    fn drop(&mut self) {
        for &v in self.vertices {
            self.pos[v as usize] = u32::MAX;
        }
    }
}

impl<'g, 's> Subset<'g, 's> {
    fn new(g: &'g LocalityGraph, vertices: &'s [u32], pos: &'s mut [u32]) -> Self {
        for (i, &v) in vertices.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
        Self { g, vertices, pos }
    }

    /// Edges between `u` and the subset, `(position, weight)`.
    fn inner(&self, u: u32) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.g
            .neighbours(u)
            .filter(|&(v, _)| self.pos[v as usize] != u32::MAX)
            .map(|(v, w)| (self.pos[v as usize] as usize, w))
    }

    fn prim(&self) -> Vec<u32> {
        let n = self.vertices.len();
        let mut key = vec![0u32; n];
        let mut taken = vec![false; n];
        // (key, smallest id first) max-heap with stale entries skipped.
        let mut heap: BinaryHeap<(u32, Reverse<u32>)> = BinaryHeap::new();
        let mut out = Vec::with_capacity(n);
        let mut restart = 0usize;
        while out.len() < n {
            let u = loop {
                match heap.pop() {
                    Some((k, Reverse(v))) => {
                        let i = self.pos[v as usize] as usize;
                        if !taken[i] && key[i] == k {
                            break i;
                        }
                    }
                    None => {
                        while taken[restart] {
                            restart += 1;
                        }
                        break restart;
                    }
                }
            };
            taken[u] = true;
            out.push(self.vertices[u]);
            let edges: Vec<(usize, u32)> = self.inner(self.vertices[u]).collect();
            for (i, w) in edges {
                if !taken[i] && w > key[i] {
                    key[i] = w;
                    heap.push((w, Reverse(self.vertices[i])));
                }
            }
        }
        out
    }

    /// The subset's graph in METIS's CSR form with its weights (scaled into `Idx` when their
    /// sum would not fit; the factor is returned).
    fn csr(&self) -> (Vec<Idx>, Vec<Idx>, Vec<Idx>, u64) {
        let (mut xadj, mut adjncy, mut w64) = (vec![0 as Idx], vec![], vec![]);
        for &u in self.vertices {
            for (i, w) in self.inner(u) {
                adjncy.push(i as Idx);
                w64.push(w as u64);
            }
            xadj.push(adjncy.len() as Idx);
        }
        let total: u64 = w64.iter().sum();
        let limit = (Idx::MAX / 4) as u64;
        let scale = total.div_ceil(limit).max(1);
        let adjwgt = w64.iter().map(|&w| (w / scale).max(1) as Idx).collect();
        (xadj, adjncy, adjwgt, scale)
    }

    /// METIS's partition of the subset into `parts` (k-way, or recursive bisection), as a part
    /// per position; `None` when the subset has no edges or METIS fails (the note says why).
    fn metis(&self, parts: u32, kway: bool, seed: i32, notes: &mut Groups) -> Option<Vec<Idx>> {
        let (xadj, adjncy, adjwgt, scale) = self.csr();
        if adjncy.is_empty() {
            return None;
        }
        if scale > 1 {
            notes.note(format!(
                "edge weights divided by {scale} for METIS (their sum exceeds its 32-bit index)"
            ));
        }
        let mut part = vec![0 as Idx; self.vertices.len()];
        // METIS's random generator is one global state: one call at a time, or a concurrent
        // call (another run's kernel) changes this partition.
        let _one_at_a_time = METIS.lock().unwrap_or_else(|e| e.into_inner());
        let result = metis::Graph::new(1, parts as Idx, &xadj, &adjncy)
            .map_err(|e| e.to_string())
            .and_then(|graph| {
                let graph = graph
                    .set_adjwgt(&adjwgt)
                    .set_option(metis::option::Seed(seed));
                if kway {
                    graph.part_kway(&mut part)
                } else {
                    graph.part_recursive(&mut part)
                }
                .map_err(|e| e.to_string())
            });
        match result {
            Ok(_) => Some(part),
            Err(e) => {
                notes.note(format!(
                    "METIS failed on a part of {} blocks ({e}); that part is split in block-id \
                     order",
                    self.vertices.len()
                ));
                None
            }
        }
    }
}

/// MST-TS (§1.5): the Prim order, its first `sms` groups of `per_sm` blocks, then one block a
/// group.
pub fn mst_ts(g: &LocalityGraph, p: &PartitionParams) -> Groups {
    let all: Vec<u32> = (0..g.vertices()).collect();
    let order = prim_order(g, &all);
    let x = p.per_sm.max(1) as usize;
    let mut out = Groups::default();
    let head = (p.sms as usize * x).min(order.len());
    for chunk in order[..head].chunks(x) {
        out.push(chunk);
    }
    for v in &order[head..] {
        out.push(std::slice::from_ref(v));
    }
    out
}

/// kway-TS (§1.6): METIS k-way into `sms` parts (part p for SM p), each in Prim order; empty
/// parts dropped. Fewer blocks than SMs: a block a part. No part is left above METIS's own
/// k-way load imbalance ([`KWAY_IMBALANCE`]; spec P28): where METIS leaves one larger (on
/// graphs with few edges it can), [`rebalance`] moves blocks out of it and the notes say so.
pub fn kway_ts(g: &LocalityGraph, p: &PartitionParams) -> Groups {
    let n = g.vertices();
    let mut out = Groups::default();
    let all: Vec<u32> = (0..n).collect();
    let k = p.sms.max(1);
    if n <= k {
        for v in &all {
            out.push(std::slice::from_ref(v));
        }
        return out;
    }
    let mut pos = vec![u32::MAX; n as usize];
    let parts = Subset::new(g, &all, &mut pos).metis(k, true, p.seed, &mut out);
    let mut parts = parts.unwrap_or_else(|| {
        out.note(split_note("k-way", n));
        in_id_order(n, k)
    });
    let cap = kway_cap(n, k);
    let moved = rebalance(g, &mut parts, k, cap);
    if moved > 0 {
        out.note(format!(
            "k-way: METIS left parts above {cap} blocks (its load imbalance of {KWAY_IMBALANCE} \
             over {n} blocks in {k} parts); {moved} block(s) moved to the smallest parts"
        ));
    }
    let mut members: Vec<Vec<u32>> = vec![vec![]; k as usize];
    for (v, &q) in parts.iter().enumerate() {
        members[q as usize].push(v as u32);
    }
    for m in &members {
        let o = Subset::new(g, m, &mut pos).prim();
        out.push(&o);
    }
    out
}

/// RB-TS (§1.7, Algorithm 1): bisect the whole graph; a half smaller than `per_sm` (or at most
/// it, [`LeafRule::AtMost`]) or of one block is a leaf, the others are bisected in turn, first
/// in first out; leaves in the order they are found, each in Prim order.
pub fn rb_ts(g: &LocalityGraph, p: &PartitionParams) -> Groups {
    let n = g.vertices();
    let mut out = Groups::default();
    let x = p.per_sm.max(1) as usize;
    let is_leaf = |len: usize| {
        len <= 1
            || match p.leaf {
                LeafRule::Below => len < x,
                LeafRule::AtMost => len <= x,
            }
    };
    let mut queue: VecDeque<Vec<u32>> = VecDeque::new();
    match n {
        0 => {}
        1 => out.push(&[0]),
        _ => queue.push_back((0..n).collect()),
    }
    let mut split_in_order = false;
    let mut pos = vec![u32::MAX; n as usize];
    while let Some(part) = queue.pop_front() {
        let set = Subset::new(g, &part, &mut pos);
        let halves = bisect(set, p.seed, &mut out, &mut split_in_order);
        for half in halves {
            if half.is_empty() {
                continue;
            }
            if is_leaf(half.len()) {
                let o = Subset::new(g, &half, &mut pos).prim();
                out.push(&o);
            } else {
                queue.push_back(half);
            }
        }
    }
    if split_in_order {
        out.note(split_note("bisection", n));
    }
    out
}

/// METIS's bisection of `part` (ascending ids) into two halves (ascending ids); a part without
/// inner edges, or one METIS leaves whole, is cut in the middle in id order.
fn bisect(set: Subset, seed: i32, notes: &mut Groups, split_in_order: &mut bool) -> [Vec<u32>; 2] {
    let part = set.vertices;
    if let Some(sides) = set.metis(2, false, seed, notes) {
        let mut halves = [vec![], vec![]];
        for (i, &s) in sides.iter().enumerate() {
            halves[s as usize].push(part[i]);
        }
        if !halves[0].is_empty() && !halves[1].is_empty() {
            return halves;
        }
    }
    *split_in_order = true;
    let mid = part.len().div_ceil(2);
    [part[..mid].to_vec(), part[mid..].to_vec()]
}

/// `n` blocks into `k` parts in id order, sizes differing by at most one (a part per block).
/// METIS's default k-way load imbalance (`ufactor` 30): a part holds at most 1.03 times the
/// mean.
pub const KWAY_IMBALANCE: f64 = 1.03;

/// The most blocks a k-way part may hold: `ceil(1.03 n / k)`, at least one.
pub fn kway_cap(n: u32, k: u32) -> usize {
    ((n as f64 * KWAY_IMBALANCE / k.max(1) as f64).ceil() as usize).max(1)
}

/// Moves blocks out of parts above `cap` until none is: each time, from the largest part
/// (lowest number on ties), the block with the least edge weight to the rest of its part
/// (highest id on ties) to the smallest part (lowest number on ties). The number moved.
fn rebalance(g: &LocalityGraph, parts: &mut [Idx], k: u32, cap: usize) -> usize {
    let mut size = vec![0usize; k as usize];
    parts.iter().for_each(|&q| size[q as usize] += 1);
    let mut moved = 0;
    loop {
        let big = (0..size.len())
            .max_by_key(|&q| (size[q], std::cmp::Reverse(q)))
            .unwrap();
        if size[big] <= cap {
            return moved;
        }
        let small = (0..size.len()).min_by_key(|&q| (size[q], q)).unwrap();
        let inside = |v: u32| -> u64 {
            g.neighbours(v)
                .filter(|&(u, _)| parts[u as usize] == big as Idx)
                .map(|(_, w)| w as u64)
                .sum()
        };
        let v = (0..parts.len() as u32)
            .filter(|&v| parts[v as usize] == big as Idx)
            .min_by_key(|&v| (inside(v), std::cmp::Reverse(v)))
            .unwrap();
        parts[v as usize] = small as Idx;
        size[big] -= 1;
        size[small] += 1;
        moved += 1;
    }
}

fn in_id_order(n: u32, k: u32) -> Vec<Idx> {
    (0..n as u64)
        .map(|v| (v * k as u64 / n as u64) as Idx)
        .collect()
}

fn split_note(what: &str, n: u32) -> String {
    format!(
        "{what}: a part without shared data (or one METIS would not split) was split in \
         block-id order ({n} blocks in the graph)"
    )
}
