//! Breadth-first search (Rodinia 3.1 `bfs`, the same in 2.0): `Kernel` and `Kernel2` on
//! `graph1MW_6.txt`.
//!
//! The host code runs one `Kernel` and one `Kernel2` per BFS level until no node is updated
//! (`bfs.cu`, the `do { .. } while(stop)` loop), on a 1-D grid of 512-thread blocks, one node
//! per thread (`tid = blockIdx.x * 512 + threadIdx.x`). The graph itself is not available
//! here; what is known of it sets the mirror:
//! * 1,000,000 nodes, source 0, and the nodes per BFS level ([`LEVELS`], decoded from the
//!   result file of Rodinia's own run kept with the Futhark benchmarks): 12 levels, so 12
//!   iterations, 24 launches (an Accel-Sim run of this input also lists 24 kernels);
//! * about 6,000,000 edges (the file's size at six edges per node).
//!
//! Which node sits at which level is a hash of the node (the same in every launch), so each
//! level holds its number of nodes, spread over the IDs uniformly. A node has 2 to 10 edges
//! (mean 6), its edge list at about `6 * tid` in the edge array, each edge to a node drawn
//! uniformly (the input also links `i` to `i + 1`, which this leaves out). An edge finds its
//! destination unvisited, and stores its cost and update flag, with the probability of a
//! random graph: the share of nodes not yet reached ([`unvisited_per_million`]).
//!
//! The loads are as the source has them, none hoisted (the stores through `int *` and `bool *`
//! may alias the node array): `Kernel` loads `g_graph_mask[tid]`, then `starting` and
//! `no_of_edges` for the loop's first test, then per edge `g_graph_edges[i]`,
//! `g_graph_visited[id]`, `g_cost[tid]` when it stores, and the loop test's `no_of_edges` and
//! `starting` again: 8 loads and the loop's backward branch, the 9 program points of the ELF
//! thesis's Table 3.2; `Kernel2` loads `g_updating_graph_mask[tid]` (1).

use super::*;
use crate::workload::synth::ir::Addr;

/// Nodes of `graph1MW_6.txt`.
pub(super) const NODES: i64 = 1_000_000;
/// Threads per block (`MAX_THREADS_PER_BLOCK`).
const THREADS: u32 = 512;
/// Nodes at each BFS level from node 0 (level 0 is the source).
pub(super) const LEVELS: [i64; 12] = [
    1, 3, 24, 134, 799, 4_571, 25_427, 131_261, 450_850, 369_628, 17_273, 29,
];
/// Edges per node: `MIN_DEGREE + hash % DEGREE_SPAN` (2..=10, mean 6).
const MIN_DEGREE: i64 = 2;
const DEGREE_SPAN: u32 = 9;
/// The edge list of node `tid` starts near `EDGES_PER_NODE * tid`.
const EDGES_PER_NODE: i64 = 6;

// The arrays, in bfs.cu's order.
const NODE_ARRAY: u64 = ARRAY[0]; // Node { int starting; int no_of_edges; }
const EDGE_ARRAY: u64 = ARRAY[1]; // int
const MASK: u64 = ARRAY[2]; // bool
const UPDATING: u64 = ARRAY[3]; // bool
const VISITED: u64 = ARRAY[4]; // bool
const COST: u64 = ARRAY[5]; // int
const OVER: u64 = ARRAY[6]; // bool

// Hash salts: the node's level and degree (per node), an edge's destination and whether it
// finds it unvisited (per node and edge).
const LEVEL_SALT: u32 = 31;
const DEGREE_SALT: u32 = 32;
const DEST_SALT: u32 = 33;
const WRITE_SALT: u32 = 34;

/// Nodes at levels before `level`.
fn reached_before(level: usize) -> i64 {
    LEVELS[..level].iter().sum()
}

/// Per million edges leaving level `level`, those whose destination is not yet visited: the
/// share of nodes beyond that level (a random graph's estimate).
pub(super) fn unvisited_per_million(level: usize) -> i64 {
    let beyond = NODES - reached_before(level + 1);
    beyond * 1_000_000 / NODES
}

fn byte(base: u64, index: Expr) -> Addr {
    Addr {
        base,
        index,
        elem: 1,
    }
}

/// The threads whose node is at `level` (two `if`s: close them with [`close`]).
fn at_level(p: &mut Program, level: usize) -> usize {
    let h = v(Var::ThreadHash {
        salt: LEVEL_SALT,
        range: NODES as u32,
    });
    let lo = reached_before(level);
    let hi = lo + LEVELS.get(level).copied().unwrap_or(0);
    within(p, h, lo, hi)
}

/// `tid < no_of_nodes`.
fn live(p: &mut Program) {
    p.begin_if(lt(v(Var::Gx), c(NODES)));
}

/// `Kernel` in the iteration that expands `level`.
pub(super) fn expand(level: usize) -> SynthDef {
    let tid = || v(Var::Gx);
    let node = |field: u64| Addr {
        base: NODE_ARRAY + field,
        index: tid(),
        elem: 8,
    };
    let dest = || {
        v(Var::Hash {
            salt: DEST_SALT,
            range: NODES as u32,
        })
    };
    let mut p = Program::new();
    prologue(&mut p);
    live(&mut p);
    p.load(Space::Global, 10, 3, byte(MASK, tid()));
    p.alu(IntAlu, &[20], &[10]);
    let ifs = at_level(&mut p, level);
    p.store(Space::Global, 0, 3, byte(MASK, tid()));
    p.load(Space::Global, 11, 3, node(0));
    p.load(Space::Global, 12, 3, node(4));
    p.alu(IntAlu, &[13], &[11, 12]);
    p.begin_loop(0);
    let i = Expr::v(EDGES_PER_NODE, Var::Gx).plus(1, Var::Loop(0));
    p.alu(IntAlu, &[14], &[11]);
    p.load(Space::Global, 15, 14, global(EDGE_ARRAY, i));
    p.alu(IntAlu, &[16], &[15]);
    p.load(Space::Global, 17, 16, byte(VISITED, dest()));
    p.alu(IntAlu, &[20], &[17]);
    let write = v(Var::Hash {
        salt: WRITE_SALT,
        range: 1_000_000,
    });
    p.begin_if(lt(write, c(unvisited_per_million(level))));
    p.load(Space::Global, 18, 3, global(COST, tid()));
    p.alu(IntAlu, &[19], &[18]);
    p.store(Space::Global, 19, 16, global(COST, dest()));
    p.store(Space::Global, 0, 16, byte(UPDATING, dest()));
    p.end_if();
    p.load(Space::Global, 12, 3, node(4));
    p.load(Space::Global, 11, 3, node(0));
    p.alu(IntAlu, &[13], &[11, 12]);
    let degree = v(Var::ThreadHash {
        salt: DEGREE_SALT,
        range: DEGREE_SPAN,
    });
    p.end_loop(degree.offset(MIN_DEGREE));
    close(&mut p, ifs);
    p.end_if();
    p.exit();
    elf_kernel("bfs_kernel", grid(), dim(THREADS, 1), 16, p)
}

/// `Kernel2` in the iteration that expands `level`: the nodes of the next level.
pub(super) fn settle(level: usize) -> SynthDef {
    let tid = || v(Var::Gx);
    let mut p = Program::new();
    prologue(&mut p);
    live(&mut p);
    p.load(Space::Global, 10, 3, byte(UPDATING, tid()));
    p.alu(IntAlu, &[20], &[10]);
    let ifs = at_level(&mut p, level + 1);
    p.store(Space::Global, 0, 3, byte(MASK, tid()));
    p.store(Space::Global, 0, 3, byte(VISITED, tid()));
    p.store(Space::Global, 0, 3, byte(OVER, c(0)));
    p.store(Space::Global, 0, 3, byte(UPDATING, tid()));
    close(&mut p, ifs);
    p.end_if();
    p.exit();
    elf_kernel("bfs_kernel2", grid(), dim(THREADS, 1), 16, p)
}

fn grid() -> Dim3 {
    dim((NODES as u32).div_ceil(THREADS), 1)
}

/// Every launch: `Kernel` and `Kernel2` per level.
pub(super) fn bfs_elf() -> Vec<SynthDef> {
    (0..LEVELS.len())
        .flat_map(|l| [expand(l), settle(l)])
        .collect()
}
