//! The fetch stage of the SM: one warp whose i-buffer is empty reads the L1I per cycle (round
//! robin after the last fetched, or the choice of a warp-issue unit that orders fetch), with
//! next-line I-prefetch. A
//! returned L1I line serves the warps that missed on it first, one per cycle in the order
//! they missed, as GPGPU-Sim's `shader_core_ctx::fetch` takes `m_L1I->next_access()` before
//! any new access (without moving the round robin).

use super::*;

impl Sm<'_> {
    /// The fetch stage at `now`; sets [`Sm::reclaim`], the warps its round robin passed.
    /// `decoded_now`: a later round of this cycle decodes what it fetches (see
    /// [`Sm::fill_ibuffer`]).
    pub(super) fn fetch(&mut self, now: u64, decoded_now: bool) -> Result<(), SimError> {
        let unit_choice = match self.orders_fetch {
            true => self.fetch_choice.take(),
            false => None,
        };
        let n = self.warps.len();
        self.reclaim = None;
        if let Some(w) = self.ifill.pop_front() {
            return self.fill_ibuffer(w, now, decoded_now);
        }
        let start = (self.fetch_last + 1) % n;
        let all = Some((start, (start + n - 1) % n));
        if self.fetchable == 0 {
            self.reclaim = all;
            return Ok(());
        }
        let w = match unit_choice {
            Some(choice) => {
                self.reclaim = all;
                match choice {
                    Some(w) if self.fetchable >> w & 1 == 1 => w,
                    _ => return Ok(()),
                }
            }
            None => {
                // Round robin: the first fetchable warp after the last one fetched.
                let after = self.fetchable & !low_bits(start);
                let w = if after != 0 { after } else { self.fetchable }.trailing_zeros() as usize;
                self.reclaim = Some((start, w));
                w
            }
        };
        let warp = &self.warps[w];
        let pc = self.tbs[warp.tb].insts.inst(warp.index, warp.next_fetch).pc;
        let addr = warp.code_base + pc as u64;
        self.l1i.set_owner(warp.kernel);
        let outcome = if self.perfect_l1i {
            Outcome::Hit
        } else {
            self.l1i.access(addr, false, w as u16)
        };
        if self.iprefetch > 0 && !self.perfect_l1i && !matches!(outcome, Outcome::Fail(_)) {
            let occupied = self.l1i.mshrs_occupied() + self.l1d.mshrs_occupied();
            if occupied < self.iprefetch as usize {
                let next = self.l1i.line(addr) + self.l1i.line_bytes() as u64;
                self.l1i.prefetch(next, PREFETCH);
            }
        }
        match outcome {
            Outcome::Hit => self.fill_ibuffer(w, now, decoded_now)?,
            // A refused access (no MSHR, or the line's MSHR merges no more) still moves the
            // round robin on, as GPGPU-Sim's `RESERVATION_FAIL`.
            Outcome::Fail(_) => {}
            _ => {
                self.warps[w].imiss = true;
                self.update_fetchable(w);
            }
        }
        self.fetch_last = w;
        Ok(())
    }

    /// Fills warp `w`'s i-buffer from the L1I at `now` (a hit, or its missed line returned):
    /// `fetch_width` instructions, issuable `l1i.latency + decode_cycles` cycles later, or
    /// `l1i.latency` when `decoded_now` (with `pipeline.fetch_throughput` above 1, GPGPU-Sim's
    /// `decode` of the next round of this cycle's decode + fetch loop takes the fetch).
    fn fill_ibuffer(&mut self, w: usize, now: u64, decoded_now: bool) -> Result<(), SimError> {
        let warp = &mut self.warps[w];
        warp.imiss = false;
        warp.next_fetch = (warp.next_fetch + self.timing.fetch).min(warp.len);
        let decode = if decoded_now { 0 } else { self.timing.decode };
        warp.ibuf_ready_at = now + self.timing.l1i_hit + decode;
        // The next fetch reads the PC of `next_fetch`.
        let (tb, index, end) = (warp.tb, warp.index, warp.next_fetch + 1);
        let insts = &mut self.tbs[tb].insts;
        insts.ensure(index, end)?;
        // The warp's next fetch reads that instruction's PC, some cycles from now.
        insts.prefetch(index, end - 1);
        self.refresh_head(w, false);
        Ok(())
    }
}
