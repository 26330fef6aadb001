//! PAVER's locality graph (spec `paver.md` §1.2, §6 V-R4): one vertex per thread block, the
//! weight of edge (i, j) the number of global elements both blocks read (read-after-read
//! sharing; a block that reads an element many times counts it once).
//!
//! # Building it by streaming
//! The kernel's loads are visited block by block ([`KernelSource::visit_memory`]); every
//! element's *readers* (the blocks that load it, in visit order) are kept as a node of a trie
//! of reader lists, so elements read by the same blocks share one node: a 13x13 matrix
//! multiply's A elements fall into 13 nodes, one per grid row. An element costs one map entry
//! (its node), never a list. At the end every node with two or more readers adds its element
//! count to each pair of its readers, row by row into a dense accumulator: the cost is the sum,
//! over distinct reader lists, of their length squared, and memory is the graph itself plus one
//! row. A near-complete graph (BTR's top tree levels, read by every block) has about T^2 edges
//! whatever the builder.

use super::index::SharingIndex;
use crate::workload::kernel::{KernelSource, MemAccess, WorkloadError};
use crate::workload::sass::OpClass;
use serde::Serialize;

/// Most thread blocks a graph holds: `nextTB` and the group tables hold 16-bit ids (paper L251,
/// spec A4).
pub const MAX_TBS: u64 = 65_535;

/// What one element of the sharing is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Granularity {
    /// A 4-byte word: the paper's element sets (L170); a 64- or 128-bit load reads two or four
    /// (V-R4: each component of a vector load counts).
    #[default]
    Word,
    /// A 128-byte cache line (the paper's "data blocks", L95; spec A16's option).
    Line,
}

impl Granularity {
    /// Names (`word`, `line`).
    pub const NAMES: &'static [&'static str] = &["word", "line"];

    /// Parses a name.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "word" => Some(Self::Word),
            "line" => Some(Self::Line),
            _ => None,
        }
    }

    /// Its name.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// log2 of its size in bytes.
    fn shift(self) -> u32 {
        match self {
            Self::Word => 2,
            Self::Line => 7,
        }
    }
}

/// An undirected weighted graph over thread blocks `0..n` in compressed sparse rows: both
/// directions of every edge, neighbours ascending, no self-loops, weights >= 1.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LocalityGraph {
    pub(super) xadj: Vec<u32>,
    pub(super) adj: Vec<u32>,
    pub(super) wgt: Vec<u32>,
}

/// The graph's statistics as the paper's Table 2 gives them (L172, L177).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GraphStats {
    /// Thread blocks.
    pub vertices: u64,
    /// Undirected edges (pairs of blocks that share at least one element).
    pub edges: u64,
    /// Non-zero elements of the symmetric adjacency matrix (2 x edges; the diagonal is not an
    /// edge).
    pub nonzeros: u64,
    /// `1 - nonzeros / vertices^2` (L172; 1 for an edgeless graph).
    pub sparsity: f64,
    /// Blocks that share at least one element with another ("Shared TB", L172).
    pub shared_tbs: u64,
    /// Sum of the edge weights (each undirected edge once), elements.
    pub total_weight: u64,
    /// Largest edge weight, elements.
    pub max_weight: u32,
}

impl LocalityGraph {
    /// An edgeless graph of `n` blocks.
    pub fn edgeless(n: u32) -> Self {
        Self {
            xadj: vec![0; n as usize + 1],
            adj: vec![],
            wgt: vec![],
        }
    }

    /// The graph of blocks whose element sets are `sets` (block `i` reads `sets[i]`; repeats
    /// count once): the definition, for tests and small inputs.
    pub fn from_sets(sets: &[Vec<u64>]) -> Self {
        let mut b = SharingIndex::default();
        for (tb, set) in sets.iter().enumerate() {
            for &e in set {
                b.observe(tb as u32, e);
            }
        }
        b.finish(sets.len() as u32)
    }

    /// Thread blocks.
    pub fn vertices(&self) -> u32 {
        (self.xadj.len() - 1) as u32
    }

    /// Undirected edges.
    pub fn edges(&self) -> u64 {
        self.adj.len() as u64 / 2
    }

    /// Block `v`'s neighbours and the weights of its edges, neighbours ascending.
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = self.xadj[v as usize] as usize..self.xadj[v as usize + 1] as usize;
        self.adj[r.clone()]
            .iter()
            .copied()
            .zip(self.wgt[r].iter().copied())
    }

    /// Weight of edge (a, b), 0 when they share nothing.
    pub fn weight(&self, a: u32, b: u32) -> u32 {
        let r = self.xadj[a as usize] as usize..self.xadj[a as usize + 1] as usize;
        match self.adj[r.clone()].binary_search(&b) {
            Ok(i) => self.wgt[r.start + i],
            Err(_) => 0,
        }
    }

    /// Every undirected edge once, `(a, b, weight)` with `a < b`, ascending.
    pub fn edge_list(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        (0..self.vertices()).flat_map(move |a| {
            self.neighbours(a)
                .filter(move |&(b, _)| b > a)
                .map(move |(b, w)| (a, b, w))
        })
    }

    /// Its statistics.
    pub fn stats(&self) -> GraphStats {
        let n = self.vertices() as u64;
        let nonzeros = self.adj.len() as u64;
        GraphStats {
            vertices: n,
            edges: nonzeros / 2,
            nonzeros,
            sparsity: if n == 0 {
                1.0
            } else {
                1.0 - nonzeros as f64 / (n * n) as f64
            },
            shared_tbs: (0..self.vertices())
                .filter(|&v| self.xadj[v as usize + 1] > self.xadj[v as usize])
                .count() as u64,
            total_weight: self.wgt.iter().map(|&w| w as u64).sum::<u64>() / 2,
            max_weight: self.wgt.iter().copied().max().unwrap_or(0),
        }
    }
}

/// What a build read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BuildSummary {
    /// Distinct elements the blocks load.
    pub elements: u64,
    /// Global load instructions visited (warp instructions).
    pub loads: u64,
    /// The element size.
    pub granularity: Granularity,
}

/// The locality graph of `kernel`'s global loads (every `LoadGlobal` instruction; stores,
/// atomics, shared, local and constant accesses do not count). `None` when the kernel cannot
/// be visited for its addresses. A trace is read twice (once for its opcode classes, once for
/// the addresses of its loads), a synthetic kernel once.
pub fn build(
    kernel: &dyn KernelSource,
    granularity: Granularity,
) -> Result<Option<(LocalityGraph, BuildSummary)>, GraphError> {
    let info = kernel.info();
    let n = info.blocks();
    if n > u32::MAX as u64 {
        return Err(GraphError::TooManyBlocks {
            kernel: info.name.clone(),
            blocks: n,
            most: u32::MAX as u64,
            why: "the graph's 32-bit vertex ids",
        });
    }
    let classes = match kernel.memory_classes() {
        Some(c) => c,
        None => match kernel.visit_memory(&mut |_| {})? {
            Some(c) => c,
            None => return Ok(None),
        },
    };
    let is_load = |key: u16| classes.get(key as usize) == Some(&OpClass::LoadGlobal);
    let shift = granularity.shift();
    let mut index = SharingIndex::default();
    let mut loads = 0u64;
    kernel.visit_memory(&mut |m: &MemAccess| {
        if !is_load(m.key) {
            return;
        }
        loads += 1;
        // At most 32 bytes a lane (a malformed trace's width does not make a lane read more).
        let width = m.width.clamp(1, 32) as u64;
        for &a in m.addrs {
            for e in (a >> shift)..=(a.saturating_add(width - 1) >> shift) {
                index.observe(m.block as u32, e);
            }
        }
    })?;
    let summary = BuildSummary {
        elements: index.elements(),
        loads,
        granularity,
    };
    Ok(Some((index.finish(n as u32), summary)))
}

/// Why a graph could not be built.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    /// More blocks than the ids hold.
    #[error("kernel `{kernel}` has {blocks} thread blocks; {why} hold at most {most}")]
    TooManyBlocks {
        /// The kernel.
        kernel: String,
        /// Its blocks.
        blocks: u64,
        /// The most there may be.
        most: u64,
        /// What limits them.
        why: &'static str,
    },
    /// Reading the kernel failed.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
}
