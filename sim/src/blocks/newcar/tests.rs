use super::*;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn req(warp: u8, store: bool, accept: bool) -> NewcarIn {
    NewcarIn {
        lsu_valid: true,
        lsu_warp: warp,
        lsu_store: store,
        lsu_accept: accept,
        q_accept: 0,
    }
}

#[test]
fn worked_example_7_4() {
    let mut q = Golden::new(Params::preset(Preset::Proto));
    // (0,LD a) rejected -> queued.
    let o = q.step(&req(0, false, false));
    assert!(o.enq_valid && o.enq_slot == 0);
    // (0,ST b): warp 0 has an entry and b is a store -> queued although the cache would take it.
    let o = q.step(&req(0, true, true));
    assert!(o.enq_valid && o.enq_slot == 1 && !o.lsu_to_cache);
    // (1,LD c): other warp -> cache.
    assert!(q.step(&req(1, false, true)).lsu_to_cache);
    // (0,LD d): a store of warp 0 is queued -> queued.
    let o = q.step(&req(0, false, true));
    assert!(o.enq_valid && o.enq_slot == 2);
    // (1,ST e): warp 1 has nothing queued -> cache.
    assert!(q.step(&req(1, true, true)).lsu_to_cache);
    // LSU idle: only `a` is eligible, whatever the cache would take.
    let idle = |acc: u64| NewcarIn {
        q_accept: acc,
        ..Default::default()
    };
    let o = q.step(&idle(0b110));
    assert!(
        o.try_valid && o.try_slot == 0 && !o.deq_valid,
        "b and d are not eligible"
    );
    let o = q.step(&idle(0b111));
    assert!(o.deq_valid && o.deq_slot == 0, "a");
    let o = q.step(&idle(0b111));
    assert!(o.deq_valid && o.deq_slot == 1, "then b");
    let o = q.step(&idle(0b111));
    assert!(o.deq_valid && o.deq_slot == 2, "then d");
    assert_eq!(q.count(), 0);
}

#[test]
fn a_load_may_pass_an_older_queued_load_of_its_warp() {
    let mut q = Golden::new(Params::preset(Preset::Proto));
    q.step(&req(0, false, false)); // a rejected
    let o = q.step(&req(0, false, true)); // d goes straight to the cache
    assert!(o.lsu_to_cache);
    // A rejected store of warp 1 makes warp 1's later load queue; warp 0 is unaffected.
    q.step(&req(1, true, false));
    assert!(q.step(&req(1, false, true)).enq_valid);
    assert!(q.step(&req(0, false, true)).lsu_to_cache);
}

/// Random LSU streams against a random cache; checks NC-1..NC-9 on every cycle and after the
/// drain.
fn random_run(seed: u64, p_accept: f64, entries: usize) -> (usize, usize) {
    let warps = 8usize;
    let params = Params { entries, warps };
    let mut q = Golden::new(params);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    // Program-order requests per warp: true = store.
    let prog: Vec<Vec<bool>> = (0..warps)
        .map(|_| (0..40).map(|_| rng.gen_ratio(1, 4)).collect())
        .collect();
    let mut next = vec![0usize; warps];
    // Mirror of the queue: slot -> (warp, index in program order, store).
    let mut mirror: Vec<Option<(usize, usize, bool)>> = vec![None; entries];
    let mut accepted: Vec<Vec<bool>> = prog.iter().map(|p| vec![false; p.len()]).collect();
    let mut max_same_warp = 0;
    let mut queued_any = 0;
    let total: usize = prog.iter().map(Vec::len).sum();
    let mut done = 0;
    let mut cycles = 0;
    let accept_ok =
        |acc: &Vec<Vec<bool>>, w: usize, i: usize, store: bool, prog: &Vec<Vec<bool>>| {
            (0..i).all(|k| acc[w][k] || !(store || prog[w][k]))
        };
    while done < total {
        cycles += 1;
        assert!(cycles < 1_000_000, "NC-8: the queue drains");
        let count = mirror.iter().flatten().count();
        let mut inp = NewcarIn::default();
        let candidates: Vec<usize> = (0..warps).filter(|&w| next[w] < prog[w].len()).collect();
        let present = count < entries && !candidates.is_empty() && rng.gen_bool(0.7);
        let mut who = None;
        if present {
            let w = candidates[rng.gen_range(0..candidates.len())];
            who = Some((w, next[w]));
            inp.lsu_valid = true;
            inp.lsu_warp = w as u8;
            inp.lsu_store = prog[w][next[w]];
            inp.lsu_accept = rng.gen_bool(p_accept);
        }
        for (s, m) in mirror.iter().enumerate() {
            if m.is_some() && rng.gen_bool(p_accept) {
                inp.q_accept |= 1 << s;
            }
        }
        let o = q.step(&inp);
        assert_eq!(o.count as usize, count, "NC-1");
        assert_eq!(o.lsu_ready, count < entries, "NC-1");
        if let Some((w, i)) = who {
            let store = prog[w][i];
            let must = mirror
                .iter()
                .flatten()
                .any(|&(mw, _, ms)| mw == w && (ms || store));
            assert!(!o.try_valid, "NC-5: the LSU has priority");
            assert_eq!(o.enq_valid, must || !inp.lsu_accept, "NC-4");
            assert_eq!(o.lsu_to_cache, !o.enq_valid);
            if o.lsu_to_cache {
                assert!(accept_ok(&accepted, w, i, store, &prog), "NC-2 (direct)");
                accepted[w][i] = true;
                done += 1;
            } else {
                let s = o.enq_slot as usize;
                assert!(mirror[s].is_none(), "a free slot");
                mirror[s] = Some((w, i, store));
                queued_any += 1;
            }
            next[w] += 1;
        } else if o.deq_valid {
            let s = o.deq_slot as usize;
            let (w, i, store) = mirror[s].take().expect("a queued request");
            assert!(inp.q_accept >> s & 1 == 1);
            assert!(accept_ok(&accepted, w, i, store, &prog), "NC-2 (queue)");
            accepted[w][i] = true;
            done += 1;
        }
        for w in 0..warps {
            let n = mirror.iter().flatten().filter(|m| m.0 == w).count();
            max_same_warp = max_same_warp.max(n);
        }
    }
    assert!(
        accepted.iter().flatten().all(|&a| a),
        "NC-7: everything accepted once"
    );
    assert_eq!(q.count(), 0);
    (queued_any, max_same_warp)
}

#[test]
fn random_streams_keep_per_warp_order_and_drain() {
    let mut multi = false;
    for seed in 0..200 {
        let (queued, max_same) = random_run(seed, 0.5, 8);
        assert!(queued > 0);
        multi |= max_same > 1;
        random_run(seed, 0.1, 32);
    }
    assert!(multi, "NC-9: several entries of one warp at once");
}

#[test]
fn a_cache_that_always_accepts_leaves_the_queue_empty() {
    for seed in 0..50 {
        assert_eq!(random_run(seed, 1.0, 8).0, 0, "NC-11");
    }
}
