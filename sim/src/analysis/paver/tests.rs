use super::*;
use crate::workload::kernel::KernelSource;
use proptest::prelude::*;

/// Blocks on a `w` x `h` grid (x fastest) reading one private element each and the element of
/// every pair of blocks `linked` joins: the graph whose edges are exactly the linked pairs.
fn graph_of(n: u32, linked: impl Fn(u32, u32) -> bool) -> LocalityGraph {
    let mut sets: Vec<Vec<u64>> = (0..n).map(|i| vec![1 << 40 | i as u64]).collect();
    for a in 0..n {
        for b in a + 1..n {
            if linked(a, b) {
                let e = (a as u64) << 20 | b as u64;
                sets[a as usize].push(e);
                sets[b as usize].push(e);
            }
        }
    }
    LocalityGraph::from_sets(&sets)
}

/// The partitioners' parameters for `sms` SMs of `per_sm` blocks (RB's paper leaf rule, seed 1).
fn params(sms: u32, per_sm: u32) -> PartitionParams {
    PartitionParams {
        sms,
        per_sm,
        leaf: LeafRule::Below,
        seed: 1,
    }
}

fn nine_places(x: f64) -> f64 {
    (x * 1e9).round() / 1e9
}

/// P30: the graphs spec §1.2 reverse-engineered from Table 2 give its sparsity scores to nine
/// decimals.
#[test]
fn table2_sparsity_vectors_reproduce() {
    let grid = |w: u32| move |i: u32| (i % w, i / w);
    // MM: 13x13 rook graph, from the paper's own element sets (L168-L170, typos fixed).
    let (gx, bdx, bdy) = (13u64, 16u64, 16u64);
    let n = gx * bdx;
    let mm: Vec<Vec<u64>> = (0..169u64)
        .map(|k| {
            let (r, c) = (k / gx, k % gx);
            let mut s = vec![];
            for i in 0..n {
                for j in 0..bdy {
                    s.push(i + n * (r * bdy + j)); // A
                }
                for j in 0..bdx {
                    s.push(1 << 32 | (i * n + c * bdx + j)); // B
                }
            }
            s
        })
        .collect();
    let g = LocalityGraph::from_sets(&mm);
    assert_eq!(g.stats().nonzeros, 4056);
    assert_eq!(nine_places(g.stats().sparsity), 0.857988166);
    // Every MM edge is a same-row or same-column pair weighing N*16.
    for (a, b, w) in g.edge_list() {
        assert!(a / 13 == b / 13 || a % 13 == b % 13);
        assert_eq!(w as u64, n * 16);
    }
    let hs = grid(43);
    let king = graph_of(1849, |a, b| {
        let ((ax, ay), (bx, by)) = (hs(a), hs(b));
        ax.abs_diff(bx) <= 1 && ay.abs_diff(by) <= 1
    });
    assert_eq!(nine_places(king.stats().sparsity), 0.995823097);
    let path = |n| graph_of(n, |a, b| b - a == 1);
    assert_eq!(nine_places(path(463).stats().sparsity), 0.995689675);
    assert_eq!(nine_places(path(384).stats().sparsity), 0.99480523);
    let band = graph_of(51, |a, b| b - a <= 2);
    assert_eq!(nine_places(band.stats().sparsity), 0.923875433);
    // No sharing: SpScore 1, and Prim's order is the identity.
    let none = graph_of(40, |_, _| false);
    assert_eq!(none.stats().sparsity, 1.0);
    assert_eq!(none.stats().shared_tbs, 0);
    assert_eq!(
        prim_order(&none, &(0..40).collect::<Vec<_>>()),
        (0..40).collect::<Vec<_>>()
    );
}

/// §1.5's example: 8 blocks whose Prim path is 0,4,1,5,2,3,7,6; N = 2 SMs of x = 2 give the
/// groups (0,4), (1,5), (2), (3), (7), (6) (L193).
#[test]
fn mst_ts_reproduces_the_papers_example() {
    let chain = [
        (0, 4, 10),
        (4, 1, 9),
        (1, 5, 8),
        (5, 2, 7),
        (2, 3, 6),
        (3, 7, 5),
        (7, 6, 4),
    ];
    let mut sets: Vec<Vec<u64>> = vec![vec![]; 8];
    for (k, &(a, b, w)) in chain.iter().enumerate() {
        for e in 0..w {
            sets[a].push((k as u64) << 8 | e);
            sets[b].push((k as u64) << 8 | e);
        }
    }
    let g = LocalityGraph::from_sets(&sets);
    let p = params(2, 2);
    let groups = partition(&g, Scheme::Mst, &p);
    assert_eq!(groups.order, vec![0, 4, 1, 5, 2, 3, 7, 6]);
    assert_eq!(groups.gstart, vec![0, 2, 4, 5, 6, 7, 8]);
}

/// A random graph of `n` blocks: each element read by a few blocks near each other or anywhere.
fn random_sets() -> impl Strategy<Value = Vec<Vec<u64>>> {
    (
        1usize..90,
        prop::collection::vec((0usize..90, 0usize..6, 0u64..5), 0..200),
    )
        .prop_map(|(n, elems)| {
            let mut sets = vec![vec![]; n];
            for (e, (first, span, copies)) in elems.into_iter().enumerate() {
                for t in 0..=span {
                    let tb = (first + t * (1 + e % 7)) % n;
                    for c in 0..=copies {
                        sets[tb].push((e as u64) << 8 | c);
                    }
                }
            }
            sets
        })
}

fn check_groups(g: &LocalityGraph, groups: &Groups) {
    // P26: a permutation, no empty group, gstart strictly increasing.
    let mut seen = groups.order.clone();
    seen.sort_unstable();
    assert_eq!(seen, (0..g.vertices()).collect::<Vec<_>>());
    assert_eq!(groups.gstart.first().copied().unwrap_or(0), 0);
    assert!(groups.gstart.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        groups.gstart.last().copied().unwrap_or(0) as usize,
        groups.order.len()
    );
}

/// Whether `order` is a Prim order of the subgraph its vertices induce (P27): each vertex is
/// the most strongly tied to those before it, ties to the smallest id, and one tied to none
/// is the smallest left.
fn is_prim_order(g: &LocalityGraph, order: &[u32]) -> bool {
    let inside: std::collections::HashSet<u32> = order.iter().copied().collect();
    let mut key: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    for (k, &v) in order.iter().enumerate() {
        let rest = &order[k..];
        let best = rest
            .iter()
            .map(|u| key.get(u).copied().unwrap_or(0))
            .max()
            .unwrap();
        let want = if best == 0 {
            *rest.iter().min().unwrap()
        } else {
            *rest
                .iter()
                .filter(|u| key.get(u).copied().unwrap_or(0) == best)
                .min()
                .unwrap()
        };
        if v != want {
            return false;
        }
        key.remove(&v);
        for (u, w) in g.neighbours(v) {
            if inside.contains(&u) && order[k..].contains(&u) {
                let e = key.entry(u).or_insert(0);
                *e = (*e).max(w);
            }
        }
    }
    true
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// P30 on random inputs: symmetric, no self-loops, each weight the size of the two sets'
    /// intersection.
    #[test]
    fn the_graph_is_the_pairwise_intersections(sets in random_sets()) {
        let g = LocalityGraph::from_sets(&sets);
        let uniq: Vec<std::collections::HashSet<u64>> =
            sets.iter().map(|s| s.iter().copied().collect()).collect();
        for a in 0..sets.len() as u32 {
            prop_assert_eq!(g.weight(a, a), 0);
            for b in 0..sets.len() as u32 {
                let want = if a == b { 0 } else {
                    uniq[a as usize].intersection(&uniq[b as usize]).count() as u32
                };
                prop_assert_eq!(g.weight(a, b), want);
            }
        }
    }

    /// P26-P29 for every scheme.
    #[test]
    fn every_scheme_gives_valid_groups(
        sets in random_sets(), sms in 1u32..20, per_sm in 1u32..10, at_most: bool
    ) {
        let g = LocalityGraph::from_sets(&sets);
        let p = PartitionParams {
            sms,
            per_sm,
            leaf: if at_most { LeafRule::AtMost } else { LeafRule::Below },
            seed: 7,
        };
        let n = g.vertices() as usize;
        // MST: the first groups hold x, the rest one; the whole order is a Prim order.
        let mst = partition(&g, Scheme::Mst, &p);
        check_groups(&g, &mst);
        prop_assert!(is_prim_order(&g, &mst.order));
        let full = (sms as usize).min(n.div_ceil(per_sm as usize));
        for k in 0..mst.len() {
            let len = mst.group(k).len();
            if k + 1 < full {
                prop_assert_eq!(len, per_sm as usize);
            } else if k >= full {
                prop_assert_eq!(len, 1);
            }
        }
        // kway: at most N parts, each a Prim order; P28: none above METIS's k-way load
        // imbalance (its default ufactor 30: 1.03 times the mean part).
        let kway = partition(&g, Scheme::Kway, &p);
        check_groups(&g, &kway);
        prop_assert!(kway.len() <= sms as usize);
        let cap = partition::kway_cap(n as u32, sms);
        for k in 0..kway.len() {
            prop_assert!(is_prim_order(&g, kway.group(k)));
            prop_assert!(kway.group(k).len() <= cap, "part {} of {} blocks, cap {}", k, kway.group(k).len(), cap);
        }
        // RB: leaves of 1 to x - 1 blocks (x with at_most; 1 when x = 1), each a Prim order.
        let rb = partition(&g, Scheme::Rb, &p);
        check_groups(&g, &rb);
        let cap = if at_most { per_sm.max(1) } else { per_sm.saturating_sub(1).max(1) };
        for k in 0..rb.len() {
            prop_assert!((1..=cap as usize).contains(&rb.group(k).len()));
            prop_assert!(is_prim_order(&g, rb.group(k)));
        }
        // Deterministic: the same groups again.
        prop_assert_eq!(partition(&g, Scheme::Rb, &p), rb);
        prop_assert_eq!(partition(&g, Scheme::Kway, &p), kway);
    }
}

/// kway-TS keeps at least as much of MM's locality inside groups as id order cut into the same
/// number of groups, and RB-TS's first leaves share a parent (a sanity check that METIS sees
/// the weights).
#[test]
fn metis_groups_keep_mms_sharing() {
    let g = graph_of(169, |a, b| a / 13 == b / 13 || a % 13 == b % 13);
    let p = params(13, 8);
    let kway = partition(&g, Scheme::Kway, &p);
    assert_eq!(kway.len(), 13);
    assert!(kway.notes.is_empty(), "{:?}", kway.notes);
    let id_order = Groups {
        order: (0..169).collect(),
        gstart: (0..=13).map(|k| k * 13).collect(),
        notes: vec![],
    };
    // Id order of 13 is exactly the grid rows: the best cut there is. kway must come close.
    let (ours, rows) = (kway.intra_weight(&g), id_order.intra_weight(&g));
    assert!(ours * 10 >= rows * 8, "kway keeps {ours}, grid rows {rows}");
    let rb = partition(&g, Scheme::Rb, &p);
    assert!(rb.intra_weight(&g) > 0);
}

fn suite(name: &str, size: usize) -> crate::workload::synth::SynthKernel {
    let e = crate::workload::synth::suite::find(name).expect("in the suite");
    crate::workload::synth::SynthKernel::new((e.build)(size))
}

/// The suite's MM joins blocks of one grid row (A's row tiles) or one grid column (B's column
/// tiles) and nothing else; PF joins near neighbours (in a ring: its chain wraps); both are read from the kernels' loads.
#[test]
fn suite_kernels_give_their_sharing_patterns() {
    let k = suite("mm", 0);
    let gx = k.info().grid.x;
    let (g, summary) = build(&k, Granularity::Word).unwrap().unwrap();
    assert_eq!(g.vertices() as u64, k.info().blocks());
    assert!(summary.loads > 0 && summary.elements > 0);
    let mut rows_and_cols = 0;
    for (a, b, _) in g.edge_list() {
        assert!(a / gx == b / gx || a % gx == b % gx, "{a}-{b}");
        rows_and_cols += 1;
    }
    let n = k.info().blocks() as u32;
    assert_eq!(rows_and_cols, n * (2 * gx - 2) / 2, "the full rook graph");
    let k = suite("pf", 0);
    let (g, _) = build(&k, Granularity::Word).unwrap().unwrap();
    // Block i reads chunks i-1, i, i+1 of a ring: it shares two chunks with i+-1, one with
    // i+-2.
    let n = k.info().blocks() as u32;
    assert_eq!(g.edges(), 2 * n as u64);
    for (a, b, w) in g.edge_list() {
        let d = (b - a).min(n - (b - a));
        assert!(d == 1 || d == 2, "pf links {a} and {b}");
        assert_eq!(w, g.weight(0, 1) / d, "{a}-{b}");
    }
}

/// A kernel with more blocks than 16-bit ids hold is refused by name when it is to be scheduled
/// (its graph can still be built and written).
#[test]
fn too_many_blocks_is_an_error() {
    let e = crate::workload::synth::suite::find("pf").expect("in the suite");
    let mut def = (e.build)(0);
    def.grid = crate::workload::Dim3 {
        x: 70_000,
        y: 1,
        z: 1,
    };
    let k = crate::workload::synth::SynthKernel::new(def);
    let p = params(15, 8);
    let err = schedule(&k, Scheme::Rb, Granularity::Word, &p)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("70000 thread blocks") && err.contains("at most 65535"),
        "{err}"
    );
}

/// No blocks, one block, fewer blocks than SMs: every scheme ends with valid groups.
#[test]
fn degenerate_graphs_get_valid_groups() {
    let p = params(15, 8);
    for n in [0usize, 1, 2, 14] {
        let g = LocalityGraph::from_sets(&vec![vec![7u64]; n]);
        for scheme in [Scheme::Mst, Scheme::Kway, Scheme::Rb] {
            let groups = partition(&g, scheme, &p);
            check_groups(&g, &groups);
            assert_eq!(groups.is_empty(), n == 0);
        }
        // More parts than blocks: kway gives a block a part.
        assert_eq!(partition(&g, Scheme::Kway, &p).len(), n);
    }
}

/// A kernel whose blocks load nothing in common gets an empty graph (SpScore 1, the paper's
/// no-sharing benchmarks) and id-order groups, and the schedule says so.
#[test]
fn a_kernel_without_sharing_is_scheduled_in_id_order_and_noted() {
    let k = suite("chimera_bs", 0);
    let p = params(15, 4);
    for scheme in [Scheme::Mst, Scheme::Kway, Scheme::Rb] {
        let s = schedule(&k, scheme, Granularity::Word, &p).unwrap();
        let stats = s.stats.as_ref().unwrap();
        assert_eq!((stats.edges, stats.sparsity), (0, 1.0));
        assert!(
            s.notes.iter().any(|n| n.contains("SpScore 1")),
            "{:?}",
            s.notes
        );
        let mut sorted = s.groups.order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..k.info().blocks() as u32).collect::<Vec<_>>());
        if scheme == Scheme::Mst {
            assert_eq!(s.groups.order, sorted, "Prim's order of an edgeless graph");
        }
    }
}
