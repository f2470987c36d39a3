//! A station's rota: how many servers are on in each interval of the day
//! (for the station, or per server type), and what a server going off shift
//! does with the job in hand.
//!
//! Off shift by `finish` (the default) the server finishes the job first: the
//! pool or type simply has fewer servers, and no job starts until fewer hold
//! one (service/pool.rs, service/typed.rs). By `resume` or `restart` the job
//! goes back to the queue at its place by arrival (the head, under first come
//! first served) with its remaining work or a new draw, and waits with a new
//! patience if its step has one: the jobs in service are kept as preemption's
//! stints, and the one handed back is the one preemption would displace (the
//! most recently started).

use crate::model::{OffShift, Preempt, Station};
use crate::service::Preemption;

#[derive(Debug)]
pub struct Rota {
    /// Servers on per interval at an untyped station.
    counts: Option<Vec<u32>>,
    /// Per server type, its servers on per interval (`None`: always its count).
    typed: Vec<Option<Vec<u32>>>,
    /// The jobs in service, when going off shift hands them back.
    pub stints: Option<Preemption>,
}

/// What a rota change asks of a station's servers.
pub enum Shift<'a> {
    Pool(u32),
    /// `(type, servers on)` for each type with a rota.
    Typed(Box<dyn Iterator<Item = (u32, u32)> + 'a>),
}

impl Rota {
    /// The station's rota, `None` if it has none.
    pub fn new(station: &Station) -> Option<Self> {
        let typed: Vec<_> = station.server_types.iter().map(|t| t.rota.clone()).collect();
        if station.rota.is_none() && typed.iter().all(Option::is_none) {
            return None;
        }
        let how = match station.off_shift {
            OffShift::Finish => Preempt::None,
            OffShift::Resume => Preempt::Resume,
            OffShift::Restart => Preempt::Restart,
        };
        Some(Rota { counts: station.rota.clone(), typed, stints: Preemption::new(how) })
    }

    /// The servers on in interval `i` (the last interval's after the day).
    pub fn shift(&self, i: usize) -> Shift<'_> {
        let at = move |counts: &Vec<u32>| counts[i.min(counts.len() - 1)];
        match &self.counts {
            Some(counts) => Shift::Pool(at(counts)),
            None => Shift::Typed(Box::new(
                self.typed.iter().enumerate().filter_map(move |(t, counts)| counts.as_ref().map(|c| (t as u32, at(c)))),
            )),
        }
    }

}
