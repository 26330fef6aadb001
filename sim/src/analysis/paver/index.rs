//! The element-to-readers index PAVER's locality graph is built from (see [`super::graph`]):
//! every element's readers as a node of a trie of reader lists, elements found through a paged
//! map.

use super::graph::LocalityGraph;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hash for the builder's integer keys (addresses and trie edges): SipHash's
/// resistance to chosen keys buys nothing here and costs most of the build.
#[derive(Default)]
struct MulHash(u64);

impl Hasher for MulHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(v as u64);
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(29) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MulHash>>;

/// Elements a page of [`PagedNodes`] holds: 64 (256 bytes of node ids). A kernel's arrays are
/// runs of consecutive elements, so a warp's 32 lanes fall into one or two pages; an element
/// far from every other costs a whole page (a scattered trace: 256 B an element instead of a
/// hash map's about 24).
const PAGE: u64 = 64;

/// Element -> node id (0: no reader yet), in pages of [`PAGE`] consecutive elements. The page
/// of the last lookup is kept, so a run of elements costs one hash lookup.
#[derive(Default)]
struct PagedNodes {
    /// Page number (element / PAGE) -> its index in `pages`.
    index: FastMap<u64, u32>,
    pages: Vec<[u32; PAGE as usize]>,
    /// The last page looked up: (page number, index in `pages`).
    last: Option<(u64, u32)>,
}

impl PagedNodes {
    /// The node of `element`, 0 when it has no reader yet.
    fn slot(&mut self, element: u64) -> &mut u32 {
        let page = element / PAGE;
        let at = match self.last {
            Some((p, at)) if p == page => at,
            _ => {
                let next = self.pages.len() as u32;
                let at = *self.index.entry(page).or_insert(next);
                if at == next {
                    self.pages.push([0; PAGE as usize]);
                }
                self.last = Some((page, at));
                at
            }
        };
        &mut self.pages[at as usize][(element % PAGE) as usize]
    }

    /// Every element's node, 0 for the elements of a page nobody read.
    fn nodes(&self) -> impl Iterator<Item = u32> + '_ {
        self.pages.iter().flatten().copied()
    }
}

/// The element-to-readers index a graph is built from (see the module's documentation).
pub(crate) struct SharingIndex {
    /// Trie nodes of reader lists: `(parent, last reader)`; node 0 is the empty list.
    nodes: Vec<(u32, u32)>,
    /// `(node, reader) -> child`.
    children: FastMap<(u32, u32), u32>,
    /// Element -> the node of its reader list.
    element: PagedNodes,
    /// Elements read.
    elements: u64,
}

impl Default for SharingIndex {
    /// An empty index: the trie's root, the empty reader list, is node 0.
    fn default() -> Self {
        Self {
            nodes: vec![(u32::MAX, u32::MAX)],
            children: FastMap::default(),
            element: PagedNodes::default(),
            elements: 0,
        }
    }
}

impl SharingIndex {
    /// Block `tb` reads `element`. A block's reads must come together (every visit is block
    /// by block).
    pub(crate) fn observe(&mut self, tb: u32, element: u64) {
        let node = self.element.slot(element);
        if *node != 0 && self.nodes[*node as usize].1 == tb {
            return;
        }
        if *node == 0 {
            self.elements += 1;
        }
        let next = self.nodes.len() as u32;
        let child = *self.children.entry((*node, tb)).or_insert(next);
        if child == next {
            self.nodes.push((*node, tb));
        }
        *node = child;
    }

    /// Distinct elements seen.
    pub(crate) fn elements(&self) -> u64 {
        self.elements
    }

    /// The graph over blocks `0..n`.
    pub(crate) fn finish(self, n: u32) -> LocalityGraph {
        let SharingIndex { nodes, element, .. } = self;
        // Elements per reader list.
        let mut count = vec![0u32; nodes.len()];
        for node in element.nodes().filter(|&n| n != 0) {
            count[node as usize] += 1;
        }
        // The lists of two or more readers, flattened, and per block the lists it is on.
        let (mut start, mut flat, mut weight) = (vec![0usize], vec![], vec![]);
        let mut on: Vec<Vec<u32>> = vec![vec![]; n as usize];
        for (id, &c) in count.iter().enumerate() {
            let (parent, _) = nodes[id];
            if c == 0 || parent == 0 {
                continue; // no element, or a single reader
            }
            let list = flat.len();
            let mut at = id as u32;
            while at != 0 {
                let tb = nodes[at as usize].1;
                on[tb as usize].push(start.len() as u32 - 1);
                flat.push(tb);
                at = nodes[at as usize].0;
            }
            start.push(flat.len());
            weight.push(c);
            debug_assert!(flat.len() - list >= 2);
        }
        drop((nodes, count));
        // Row by row into a dense accumulator.
        let mut g = LocalityGraph {
            xadj: Vec::with_capacity(n as usize + 1),
            adj: vec![],
            wgt: vec![],
        };
        g.xadj.push(0);
        let mut row = vec![0u32; n as usize];
        let mut touched: Vec<u32> = vec![];
        for (tb, lists) in on.iter().enumerate() {
            for &l in lists {
                let w = weight[l as usize];
                for &other in &flat[start[l as usize]..start[l as usize + 1]] {
                    if other as usize != tb {
                        if row[other as usize] == 0 {
                            touched.push(other);
                        }
                        row[other as usize] = row[other as usize].saturating_add(w);
                    }
                }
            }
            touched.sort_unstable();
            for &o in &touched {
                g.adj.push(o);
                g.wgt.push(std::mem::take(&mut row[o as usize]));
            }
            touched.clear();
            g.xadj.push(g.adj.len() as u32);
        }
        g
    }
}
