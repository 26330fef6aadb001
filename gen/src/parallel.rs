//! Work on every core: the generator's and its tests' independent jobs (rust-hdl's Verilog of
//! each module, Yosys on each changed module, the FPGA wrappers' Verilator builds, the
//! documentation's reruns).

use std::sync::Mutex;

/// `f` of every item, on as many threads as the machine has cores, each thread taking the next
/// item when it is free (so put the longest jobs first); the results in the items' order.
pub fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let count = items.len();
    let queue = Mutex::new(items.into_iter().enumerate());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut done: Vec<(usize, R)> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.min(count))
            .map(|_| {
                s.spawn(|| {
                    let mut done = vec![];
                    loop {
                        // The lock is released before the job runs.
                        let next = queue.lock().unwrap().next();
                        let Some((i, item)) = next else { break done };
                        done.push((i, f(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_the_items_order_whatever_thread_ran_them() {
        let items: Vec<u64> = (0..50).rev().collect();
        let out = super::map(items.clone(), |n| {
            std::thread::sleep(std::time::Duration::from_micros(n * 20));
            n * n
        });
        assert_eq!(out, items.iter().map(|n| n * n).collect::<Vec<_>>());
        assert!(super::map(Vec::<u8>::new(), |n| n).is_empty());
    }
}
