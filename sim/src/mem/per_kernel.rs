//! Counters kept per kernel beside their totals: a component that counts events (a cache, a
//! DRAM channel) also counts each under the kernel whose request caused it, by the kernel's
//! launch index in the run, so a kernel's figures are its own even while other kernels run.

/// Counters of type `T` per kernel launch index (0-based), grown as kernels appear.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PerKernel<T> {
    by_kernel: Vec<T>,
}

impl<T: Default + Clone> PerKernel<T> {
    /// The counters of kernel `k`, created (zero) on first use.
    #[inline]
    pub fn at(&mut self, k: u32) -> &mut T {
        let k = k as usize;
        if k >= self.by_kernel.len() {
            self.by_kernel.resize(k + 1, T::default());
        }
        &mut self.by_kernel[k]
    }

    /// The counters of kernel `k` (zero if it caused nothing here).
    pub fn get(&self, k: u32) -> T {
        self.by_kernel.get(k as usize).cloned().unwrap_or_default()
    }
}
