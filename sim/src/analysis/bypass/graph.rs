//! The traffic reduction graph (seed 001 §IV-C, Definition 1; spec §2.1.2, B-R2): one node per
//! global load, weighted by the L2 traffic caching it saves, and one edge per pair of loads,
//! weighted by the L2 traffic their shared (or conflicting) L1 use saves, all in bytes.

use super::efficiency::{Efficiency, L1_BLOCK_BYTES};
use serde::Serialize;

/// One static global load's profile, from the run that caches only this load (L172-L176).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LoadProfile {
    /// The load's program counter; loads are given in program order (increasing PC).
    pub pc: u32,
    /// access_i: L1 line accesses, one per distinct 128 B line per warp instruction (B-R2).
    pub access: u64,
    /// hit_i: accesses that sent no L2 request, tag hits and MSHR merges (B-R2).
    pub hit: u64,
    /// The load's E_on / E_off (Table II, or measured for unknown patterns: B-R1).
    pub eff: Efficiency,
}

/// Why profiles or weights do not make a traffic reduction graph.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GraphError {
    /// Load `index`'s PC is not above the previous load's: loads must be in program order.
    #[error(
        "load {index} (pc {pc:#x}) is not after pc {prev_pc:#x}: loads must be in program order"
    )]
    NotInProgramOrder {
        /// Position of the offending load.
        index: usize,
        /// Its PC.
        pc: u32,
        /// The previous load's PC.
        prev_pc: u32,
    },
    /// A load hit more often than it accessed L1.
    #[error("load pc {pc:#x}: {hit} hits exceed {access} accesses")]
    HitExceedsAccess {
        /// The load's PC.
        pc: u32,
        /// Its hits.
        hit: u64,
        /// Its accesses.
        access: u64,
    },
    /// An efficiency is not a finite positive number (E_off divides T_off).
    #[error("load pc {pc:#x}: efficiencies on {on}, off {off} must be finite and positive")]
    BadEfficiency {
        /// The load's PC.
        pc: u32,
        /// Its E_on.
        on: f64,
        /// Its E_off.
        off: f64,
    },
    /// The pair-hit matrix is not N x N for N loads.
    #[error("expected a {loads} x {loads} matrix, row {row} has {len} entries (of {rows} rows)")]
    Shape {
        /// The number of loads (nodes).
        loads: usize,
        /// The number of rows given.
        rows: usize,
        /// The first bad row (`rows` when the row count is wrong).
        row: usize,
        /// That row's length (0 when the row count is wrong).
        len: usize,
    },
    /// The edge vector does not have N x N entries.
    #[error("{loads} loads need {} edge weights, got {len}", loads * loads)]
    EdgeCount {
        /// The number of loads (nodes).
        loads: usize,
        /// The edge vector's length.
        len: usize,
    },
    /// The matrix differs across its diagonal (hit_{i,j} comes from one run, so it is symmetric).
    #[error("entry ({i}, {j}) differs from ({j}, {i}): the matrix must be symmetric")]
    Asymmetric {
        /// Row.
        i: usize,
        /// Column.
        j: usize,
    },
    /// A weight is NaN or infinite, or an edge weight sits on the diagonal.
    #[error("weight {what} must be finite (and a diagonal edge zero)")]
    BadWeight {
        /// Which weight, e.g. `node 3` or `edge (2, 2)`.
        what: String,
    },
}

/// The traffic reduction graph TG = (V, E): complete, undirected, weights in bytes of L2
/// traffic saved by caching (positive favours caching, negative bypassing).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TrafficGraph {
    /// W(v_i), bytes, in program order.
    node: Vec<f64>,
    /// W(e_ij), bytes, row-major N x N, symmetric, zero diagonal.
    edge: Vec<f64>,
}

/// T_on(ld_i) = (access_i - hit_i) x L1 block: L2 bytes of the load when cached (L184).
pub fn traffic_on(load: &LoadProfile) -> f64 {
    (load.access as f64 - load.hit as f64) * f64::from(L1_BLOCK_BYTES)
}

/// T_off(ld_i) = access_i x L1 block x E_on / E_off: L2 bytes of the load when bypassed (L188).
pub fn traffic_off(load: &LoadProfile) -> f64 {
    load.access as f64 * f64::from(L1_BLOCK_BYTES) * load.eff.on / load.eff.off
}

/// W(v_i) = T_off - T_on, bytes.
pub fn node_weight(load: &LoadProfile) -> f64 {
    traffic_off(load) - traffic_on(load)
}

/// gain_{i,j} = hit_{i,j} - (hit_i + hit_j), hits (L180).
pub fn gain(hit_pair: u64, hit_i: u64, hit_j: u64) -> f64 {
    hit_pair as f64 - (hit_i as f64 + hit_j as f64)
}

/// W(e_ij) = gain_{i,j} x L1 block, bytes.
pub fn edge_weight(gain: f64) -> f64 {
    gain * f64::from(L1_BLOCK_BYTES)
}

impl TrafficGraph {
    /// The graph of `loads` (program order) and `hit_pair[i][j]`, the hits of loads i and j
    /// measured with only those two cached (symmetric; the diagonal is ignored).
    pub fn build(loads: &[LoadProfile], hit_pair: &[Vec<u64>]) -> Result<Self, GraphError> {
        check_loads(loads)?;
        let n = loads.len();
        check_square(n, hit_pair.len(), |i| hit_pair[i].len())?;
        let mut edge = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i == j {
                    continue;
                }
                if hit_pair[i][j] != hit_pair[j][i] {
                    return Err(GraphError::Asymmetric { i, j });
                }
                edge[i * n + j] = edge_weight(gain(hit_pair[i][j], loads[i].hit, loads[j].hit));
            }
        }
        let node = loads.iter().map(node_weight).collect();
        Self::from_weights(node, edge)
    }

    /// A graph from its weights: `node[i]` = W(v_i) and `edge[i*N + j]` = W(e_ij), bytes;
    /// finite, `edge` symmetric with a zero diagonal.
    pub fn from_weights(node: Vec<f64>, edge: Vec<f64>) -> Result<Self, GraphError> {
        let n = node.len();
        if edge.len() != n * n {
            return Err(GraphError::EdgeCount {
                loads: n,
                len: edge.len(),
            });
        }
        let bad = |what: String| Err(GraphError::BadWeight { what });
        if let Some(i) = node.iter().position(|w| !w.is_finite()) {
            return bad(format!("node {i}"));
        }
        if let Some(k) = edge.iter().position(|w| !w.is_finite()) {
            return bad(format!("edge ({}, {})", k / n, k % n));
        }
        if let Some(i) = (0..n).find(|&i| edge[i * n + i] != 0.0) {
            return bad(format!("edge ({i}, {i})"));
        }
        for i in 0..n {
            if let Some(j) = (i + 1..n).find(|&j| edge[i * n + j] != edge[j * n + i]) {
                return Err(GraphError::Asymmetric { i, j });
            }
        }
        Ok(Self { node, edge })
    }

    /// The number of loads N.
    pub fn len(&self) -> usize {
        self.node.len()
    }

    /// Whether the graph has no loads.
    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// W(v_i), bytes. Panics when `i >= N`.
    pub fn node(&self, i: usize) -> f64 {
        self.node[i]
    }

    /// W(e_ij), bytes (0 when i == j). Panics when `i` or `j` is >= N.
    pub fn edge(&self, i: usize, j: usize) -> f64 {
        assert!(
            j < self.len(),
            "edge ({i}, {j}) outside {} loads",
            self.len()
        );
        self.edge[i * self.len() + j]
    }

    /// All node weights W(v), bytes, in program order.
    pub fn nodes(&self) -> &[f64] {
        &self.node
    }

    /// W(e_ij) for every j, bytes: row `i` of the N x N matrix. Panics when `i >= N`.
    pub fn edge_row(&self, i: usize) -> &[f64] {
        let n = self.len();
        &self.edge[i * n..(i + 1) * n]
    }

    /// T(G'), bytes: the sum of W over the cached loads plus W of every edge with both ends
    /// cached (Problem 1). `cached[i]` says whether load i is cached; panics unless it has
    /// N entries.
    pub fn objective(&self, cached: &[bool]) -> f64 {
        assert_eq!(cached.len(), self.len(), "one cache flag per load");
        let mut total = 0.0;
        for i in (0..self.len()).filter(|&i| cached[i]) {
            total += self.node[i];
            let row = self.edge_row(i);
            total += (i + 1..self.len())
                .filter(|&j| cached[j])
                .map(|j| row[j])
                .sum::<f64>();
        }
        total
    }

    /// The sum of |W| over nodes and edges (each edge once), bytes: the scale for tolerances.
    pub fn magnitude(&self) -> f64 {
        let edges: f64 = self.edge.iter().map(|w| w.abs()).sum();
        self.node.iter().map(|w| w.abs()).sum::<f64>() + edges / 2.0
    }
}

/// Loads in program order, hits within accesses, usable efficiencies.
fn check_loads(loads: &[LoadProfile]) -> Result<(), GraphError> {
    for (index, load) in loads.iter().enumerate() {
        if let Some(prev) = index.checked_sub(1).map(|p| loads[p].pc) {
            if load.pc <= prev {
                return Err(GraphError::NotInProgramOrder {
                    index,
                    pc: load.pc,
                    prev_pc: prev,
                });
            }
        }
        if load.hit > load.access {
            return Err(GraphError::HitExceedsAccess {
                pc: load.pc,
                hit: load.hit,
                access: load.access,
            });
        }
        let usable = |e: f64| e.is_finite() && e > 0.0;
        if !usable(load.eff.on) || !usable(load.eff.off) {
            return Err(GraphError::BadEfficiency {
                pc: load.pc,
                on: load.eff.on,
                off: load.eff.off,
            });
        }
    }
    Ok(())
}

/// `rows` rows of lengths `row_len(i)`, all equal to `n`.
fn check_square(n: usize, rows: usize, row_len: impl Fn(usize) -> usize) -> Result<(), GraphError> {
    let shape = |row, len| GraphError::Shape {
        loads: n,
        rows,
        row,
        len,
    };
    if rows != n {
        return Err(shape(rows, 0));
    }
    match (0..n).find(|&i| row_len(i) != n) {
        Some(row) => Err(shape(row, row_len(row))),
        None => Ok(()),
    }
}
