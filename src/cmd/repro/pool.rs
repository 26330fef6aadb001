//! A small worker pool for experiments that run their points directly (not through the sweep
//! engine): each point on one of `jobs` threads, a progress bar, the first error returned.

use anyhow::Result;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// `f` of every item of `items` on `jobs` threads (at least one), in `items`' order; the first
/// error any point gave (the others still run).
pub fn map<I: Sync, T: Send>(
    jobs: usize,
    items: &[I],
    f: &(dyn Fn(&I) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    let out: Mutex<Vec<Option<T>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let failed: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    let next = AtomicUsize::new(0);
    let bar = indicatif::ProgressBar::new(items.len() as u64);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                match f(item) {
                    Ok(v) => out.lock().expect("no panic")[i] = Some(v),
                    Err(e) => {
                        failed.lock().expect("no panic").get_or_insert(e);
                    }
                }
                bar.inc(1);
            });
        }
    });
    bar.finish_and_clear();
    if let Some(e) = failed.into_inner().expect("no panic") {
        return Err(e);
    }
    let out = out.into_inner().expect("no panic");
    Ok(out
        .into_iter()
        .map(|v| v.expect("every point ran"))
        .collect())
}
