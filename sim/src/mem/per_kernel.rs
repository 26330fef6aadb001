//! Counters kept per kernel beside their totals: a component that counts events (a cache, a
//! DRAM channel) also counts each under the kernel whose request caused it, by the kernel's
//! launch index in the run, so a kernel's figures are its own even while other kernels run.
//!
//! While every event belongs to kernel 0 (a run of one kernel, until a second one first causes
//! an event here) nothing is counted twice: kernel 0's counters are the totals. The first event
//! of another kernel copies the totals to kernel 0 and counts per kernel from then on.

/// Counters of type `T` per kernel launch index (0-based), beside the totals.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerKernel<T> {
    /// Per kernel, once a kernel other than 0 has caused an event (empty before).
    by_kernel: Vec<T>,
    /// The kernel whose events are counted now.
    owner: u32,
}

impl<T: Default + Clone> PerKernel<T> {
    /// Events from now on are kernel `k`'s; `totals` are the counters so far (kernel 0's if no
    /// other kernel has counted yet).
    #[inline]
    pub fn set_owner(&mut self, k: u32, totals: &T) {
        if self.owner == k {
            return;
        }
        self.owner = k;
        if k == 0 && self.by_kernel.is_empty() {
            return;
        }
        if self.by_kernel.is_empty() {
            self.by_kernel.push(totals.clone());
        }
        if k as usize >= self.by_kernel.len() {
            self.by_kernel.resize(k as usize + 1, T::default());
        }
    }

    /// The owner's counters, when they are kept apart from the totals (`None`: the totals are
    /// kernel 0's, the owner).
    #[inline]
    pub fn owner_mut(&mut self) -> Option<&mut T> {
        self.by_kernel.get_mut(self.owner as usize)
    }

    /// The counters of kernel `k` (zero if it caused nothing here), given the `totals`.
    pub fn get(&self, k: u32, totals: &T) -> T {
        match self.by_kernel.is_empty() {
            true if k == 0 => totals.clone(),
            true => T::default(),
            false => self.by_kernel.get(k as usize).cloned().unwrap_or_default(),
        }
    }
}
