//! A station's state during a run: its queue, its servers (service/) and its
//! statistics (the jobs waiting upstream to get in are the deferred work's,
//! deferred.rs). Counts change only through the methods here, which keep
//! the time averages.

use crate::model::{Discipline, Preempt, Station};
use crate::plan::Occupancy;
use crate::rota::{Rota, Shift};
use crate::service::{Departure, Moved, Preempted, Preemption, Service, Started, TypedServers, UNBOUNDED};
use crate::class_at_station::{ClassAtStation, ClassAtStationStats};
use crate::stats::{StationStats, TimeAverage};
use crate::wait_queue::{Ticket, WaitQueue};

#[derive(Debug)]
pub struct StationState {
    capacity: u32,
    pub discipline: Discipline,
    /// At a station with `preempt`: how, and the jobs in service.
    preemption: Option<Preemption>,
    /// At a station with a rota: its servers per interval (rota.rs).
    rota: Option<Box<Rota>>,
    /// Untyped servers, no preemption and no rota: the common case, which
    /// the hot paths tell apart with this one flag.
    pub plain: bool,
    queue: WaitQueue,
    service: Service,
    /// Jobs at the station: waiting, in service and blocked.
    present: u32,
    busy_average: TimeAverage,
    present_average: TimeAverage,
    waiting_average: TimeAverage,
    departures: u64,
    response_sum: f64,
    /// The same figures per class, indexed by class, in a model of several
    /// classes (with one, its figures are the station's: none kept twice).
    by_class: Vec<ClassAtStation>,
}

impl StationState {
    pub fn new(station: &Station, classes: usize) -> Self {
        let rota = Rota::new(station).map(Box::new);
        let mut service = Service::new(station, classes);
        if let (Some(rota), Service::Pool(pool)) = (&rota, &mut service) {
            if let Shift::Pool(on) = rota.shift(0) {
                pool.set_servers(on);
            }
        }
        StationState {
            capacity: station.capacity.unwrap_or(UNBOUNDED),
            discipline: station.discipline,
            preemption: Preemption::new(station.preempt),
            plain: station.server_types.is_empty() && station.preempt == Preempt::None && rota.is_none(),
            rota,
            queue: WaitQueue::new(station.discipline),
            service,
            present: 0,
            busy_average: TimeAverage::default(),
            present_average: TimeAverage::default(),
            waiting_average: TimeAverage::default(),
            departures: 0,
            response_sum: 0.0,
            by_class: if classes > 1 { vec![ClassAtStation::default(); classes] } else { Vec::new() },
        }
    }

    /// Whether a job may arrive; `already_here` when it moves within the station.
    #[inline]
    pub fn has_room(&self, already_here: bool) -> bool {
        self.capacity == UNBOUNDED || self.present - u32::from(already_here) < self.capacity
    }

    #[inline]
    pub fn has_free_server(&self) -> bool {
        self.service.has_free_server()
    }

    /// Whether a job arriving now would find a free server that none of the
    /// jobs waiting here takes first: what a `shared` dispatch waits for. In
    /// a model with resources a job may wait beside a free server, for its
    /// tokens or until the event is settled, and that server is as good as
    /// taken; without them this is whether a server is free. `may_serve(job,
    /// t)`: whether a server of type `t` may serve `job`.
    pub fn has_unclaimed_server(&self, may_serve: impl Fn(u32, u32) -> bool) -> bool {
        match &self.service {
            Service::Pool(pool) => pool.free_servers() as usize > self.queue.len(),
            Service::Sharing(_) => true,
            Service::Typed(typed) => typed.unclaimed(self.queue.iter(), may_serve) > 0,
        }
    }

    #[inline]
    pub fn head(&self) -> Option<u32> {
        self.queue.head()
    }

    /// Where a job waits in the queue: by its class's `priority_key` under
    /// priority, by its service time `work` under sjf, else by its arrival
    /// `seq` alone.
    #[inline]
    fn ticket(&self, priority_key: f64, work: f64, seq: u64) -> Ticket {
        let key = match self.discipline {
            Discipline::Priority => priority_key,
            Discipline::Sjf => work,
            _ => 0.0,
        };
        Ticket { key, seq }
    }

    /// A job of `class` arrives and waits, at its place by `ticket`.
    #[inline]
    pub fn arrive(&mut self, job: u32, class: u32, priority_key: f64, work: f64, seq: u64, now: f64) {
        self.present += 1;
        self.present_average.change(1.0, now);
        let Ticket { key, seq } = self.ticket(priority_key, work, seq);
        self.queue.push(job, key, seq);
        self.waiting_average.change(1.0, now);
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.present(1, now);
            mine.waiting(1, now);
        }
    }

    /// Jobs waiting in the queue (not in service, not blocked).
    #[inline]
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// A waiting job of `class` (its place by `ticket`) leaves the queue and
    /// the station without being served (its patience ran out); false if it no
    /// longer waits.
    pub fn withdraw(&mut self, class: u32, priority_key: f64, work: f64, seq: u64, now: f64) -> bool {
        if self.queue.remove(self.ticket(priority_key, work, seq)).is_none() {
            return false;
        }
        self.present -= 1;
        self.present_average.change(-1.0, now);
        self.waiting_average.change(-1.0, now);
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.present(-1, now);
            mine.waiting(-1, now);
        }
        true
    }

    /// The head of the queue leaves it to start service (`serve`, which
    /// counts it out of its class's waiting jobs).
    #[inline]
    pub fn take_head(&mut self, now: f64) -> u32 {
        let job = self.queue.pop().expect("take_head only when a job waits");
        self.waiting_average.change(-1.0, now);
        job
    }

    /// `job` of `class`, just taken from the queue (`take_head`, `take`),
    /// starts a service of `work` (at typed servers on one of `server_type`).
    #[inline]
    pub fn serve(&mut self, job: u32, class: u32, server_type: u32, work: f64, now: f64) -> Started {
        let before = self.busy_servers();
        let started = self.service.start(job, server_type, work, now);
        match started {
            Started::OnServer { .. } => {
                // A pool job always occupies one more server.
                self.busy_average.change(1.0, now);
                if let Some(mine) = self.by_class.get_mut(class as usize) {
                    mine.waiting(-1, now);
                    mine.serving(1, now);
                }
            }
            Started::Shared(_) => {
                self.busy_average.change(self.busy_servers() - before, now);
                if let Some(mine) = self.by_class.get_mut(class as usize) {
                    mine.waiting(-1, now);
                    mine.sharing(1);
                }
                self.reshare(now);
            }
        }
        started
    }

    /// Under processor sharing, after the sharers changed: each class's share of the busy servers.
    #[inline]
    fn reshare(&mut self, now: f64) {
        if !self.by_class.is_empty() {
            self.share_busy(now);
        }
    }

    #[cold]
    #[inline(never)]
    fn share_busy(&mut self, now: f64) {
        let (busy, sharers) = (self.busy_servers(), self.service.serving());
        self.by_class.iter_mut().for_each(|mine| mine.share(busy, sharers, now));
    }

    /// A service of `class` in server `slot` ends; its job holds the server
    /// until it can leave.
    #[inline]
    pub fn service_end(&mut self, job: u32, slot: u32, class: u32, now: f64, measuring: bool) {
        if !self.plain {
            if let Some(preemption) = &mut self.preemption {
                preemption.ended(job);
            }
            if let Some(stints) = self.rota.as_mut().and_then(|r| r.stints.as_mut()) {
                stints.ended(job);
            }
        }
        match &mut self.service {
            Service::Pool(pool) => pool.end(),
            Service::Typed(typed) => typed.end(slot, class, now, measuring),
            Service::Sharing(_) => unreachable!("sharing stations end services by SharingEnd"),
        }
        self.busy_average.change(-1.0, now);
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.serving(-1, now);
        }
    }

    /// Whether the station preempts.
    #[inline]
    pub fn preempts(&self) -> bool {
        self.preemption.is_some()
    }

    /// At a preempting station: `job` of priority `key` started a stint ending at `ends_at`.
    #[inline]
    pub fn began(&mut self, job: u32, key: f64, ends_at: f64) {
        if let Some(preemption) = &mut self.preemption {
            preemption.began(job, key, ends_at);
        }
        if let Some(stints) = self.rota.as_mut().and_then(|r| r.stints.as_mut()) {
            stints.began(job, key, ends_at);
        }
    }

    /// The rota's servers for interval `i` come on (or go off) at `now`.
    pub fn shift(&mut self, i: usize, now: f64) {
        let Some(rota) = &self.rota else { return };
        match (rota.shift(i), &mut self.service) {
            (Shift::Pool(on), Service::Pool(pool)) => pool.set_servers(on),
            (Shift::Typed(types), Service::Typed(typed)) => types.for_each(|(t, on)| typed.set_servers(t, on, now)),
            _ => unreachable!("a rota is for the station's pool or for its types"),
        }
    }

    /// After a rota took servers off that hand their jobs back (off_shift:
    /// resume or restart): the next job handed back, taken off its server
    /// (in `slot_of(job)`; its class `class_of(job)`), and the job moved into
    /// that slot, if one did.
    pub fn hand_back(&mut self, slot_of: impl Fn(u32) -> u32, class_of: impl Fn(u32) -> u32, now: f64) -> Option<(Preempted, Option<Moved>)> {
        let Service::Pool(pool) = &mut self.service else { return None };
        let stints = self.rota.as_mut()?.stints.as_mut()?;
        if !pool.over_staffed() {
            return None;
        }
        let victim = stints.hand_back(now)?;
        let moved = pool.evict(slot_of(victim.job));
        self.busy_average.change(-1.0, now);
        if let Some(mine) = self.by_class.get_mut(class_of(victim.job) as usize) {
            mine.serving(-1, now);
        }
        Some((victim, moved))
    }

    /// The areas under the busy servers, jobs present and jobs waiting since
    /// the figures started, and the departures: what an interval's figures
    /// are told apart by (intervals.rs). Exact at any moment: a rota may have
    /// more jobs in service than servers on, finishing their jobs.
    pub fn running_totals(&self, now: f64) -> [f64; 4] {
        [
            self.busy_average.area(self.busy_now(), now),
            self.present_average.area(self.present as f64, now),
            self.waiting_average.area(self.queue.len() as f64, now),
            self.departures as f64,
        ]
    }

    /// At a preempting station with no free server: the job in service that
    /// a waiting job of priority `key` displaces, taken off its server (in
    /// `slot_of(job)`; its class `class_of(job)`), if any; the job moved into
    /// that slot, if one did.
    pub fn displace(&mut self, key: f64, slot_of: impl Fn(u32) -> u32, class_of: impl Fn(u32) -> u32, now: f64) -> Option<(Preempted, Option<Moved>)> {
        let preemption = self.preemption.as_mut()?;
        if self.service.has_free_server() {
            return None;
        }
        let victim = preemption.displace(key, now)?;
        let Service::Pool(pool) = &mut self.service else {
            unreachable!("preemption is simulated at server pools");
        };
        let moved = pool.evict(slot_of(victim.job));
        self.busy_average.change(-1.0, now);
        if let Some(mine) = self.by_class.get_mut(class_of(victim.job) as usize) {
            mine.serving(-1, now);
        }
        Some((victim, moved))
    }

    /// A displaced job of `class` waits again, at its place by `key` and `seq`
    /// (its arrival at the station).
    pub fn requeue(&mut self, job: u32, class: u32, key: f64, seq: u64, now: f64) {
        self.queue.push(job, key, seq);
        self.waiting_average.change(1.0, now);
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.waiting(1, now);
        }
    }

    /// A job of `class` handed back by a server going off shift waits again,
    /// at its place by its ticket (by its arrival under first come first
    /// served: ahead of those who came after it).
    pub fn requeue_in_line(&mut self, job: u32, class: u32, priority_key: f64, work: f64, seq: u64, now: f64) {
        let Ticket { key, seq } = self.ticket(priority_key, work, seq);
        self.queue.push_in_line(job, key, seq);
        self.waiting_average.change(1.0, now);
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.waiting(1, now);
        }
    }

    /// The typed servers, if the station's servers are typed.
    #[inline]
    pub fn typed(&self) -> Option<&TypedServers> {
        match &self.service {
            Service::Typed(typed) => Some(typed),
            _ => None,
        }
    }

    /// The waiting jobs in the order they would be served.
    #[inline]
    pub fn queue(&self) -> impl Iterator<Item = u32> + '_ {
        self.queue.iter()
    }

    /// The waiting job chosen to start (its place by `ticket`) leaves the
    /// queue to start service (`serve`): at typed servers from where it
    /// waits (first fit need not take the head), elsewhere the head.
    pub fn take(&mut self, priority_key: f64, work: f64, seq: u64, now: f64) -> u32 {
        if self.typed().is_none() {
            return self.take_head(now);
        }
        let job = self.queue.remove(self.ticket(priority_key, work, seq)).expect("take only a waiting job");
        self.waiting_average.change(-1.0, now);
        job
    }

    /// Whether a sharing departure scheduled with `version` is still due.
    #[inline]
    pub fn departure_is_current(&self, version: u32) -> bool {
        matches!(&self.service, Service::Sharing(sharing) if sharing.is_current(version))
    }

    /// The due sharing departure: returns the job whose service ended (its
    /// class `class_of(job)`) and the station's next departure, if any.
    pub fn sharing_end(&mut self, class_of: impl Fn(u32) -> u32, now: f64) -> (u32, Option<Departure>) {
        let before = self.busy_servers();
        let Service::Sharing(sharing) = &mut self.service else {
            unreachable!("sharing departures are scheduled only at sharing stations");
        };
        let ended = sharing.finish_next(now);
        self.busy_average.change(self.busy_servers() - before, now);
        if let Some(mine) = self.by_class.get_mut(class_of(ended.0) as usize) {
            mine.sharing(-1);
        }
        self.reshare(now);
        ended
    }

    /// A job of `class` whose service ended leaves the station, and its server (`slot`).
    #[inline]
    pub fn leave(&mut self, slot: u32, class: u32, sojourn: f64, now: f64, measuring: bool) -> Option<Moved> {
        self.present -= 1;
        self.present_average.change(-1.0, now);
        if measuring {
            self.departures += 1;
            self.response_sum += sojourn;
        }
        if let Some(mine) = self.by_class.get_mut(class as usize) {
            mine.left(sojourn, now, measuring);
        }
        self.service.leave(slot, now)
    }

    /// Servers in use for the utilization: sharing jobs beyond the server count
    /// slow each other down rather than occupy more servers.
    #[inline]
    fn busy_servers(&self) -> f64 {
        self.service.serving().min(self.service.servers()) as f64
    }

    /// The servers busy now: `busy_servers`, but at a pool or typed servers
    /// every job in service, also beyond the servers a rota has on (those
    /// finish their jobs); without a rota the same number.
    fn busy_now(&self) -> f64 {
        match &self.service {
            Service::Sharing(_) => self.busy_servers(),
            _ => self.service.serving() as f64,
        }
    }

    pub fn restart_stats(&mut self, now: f64) {
        self.busy_average.restart(self.busy_servers(), now);
        self.present_average.restart(self.present as f64, now);
        self.waiting_average.restart(self.queue.len() as f64, now);
        self.departures = 0;
        self.response_sum = 0.0;
        if let Service::Typed(typed) = &mut self.service {
            typed.restart_stats(now);
        }
        self.by_class.iter_mut().for_each(|mine| mine.restart_stats(now));
    }

    // Once a replication, out of line: inlined, its per-class list made the
    // event loop around it slower (cachegrind on bench/engine-speed).
    #[inline(never)]
    pub fn stats(&self, now: f64) -> StationStats {
        let (departures, response_sum) = (self.departures, self.response_sum);
        let busy_area = self.busy_average.area(self.busy_now(), now);
        let present_area = self.present_average.area(self.present as f64, now);
        let waiting_area = self.waiting_average.area(self.queue.len() as f64, now);
        let classes = if self.by_class.is_empty() {
            // The one class of the model: the station's figures are its own.
            vec![ClassAtStationStats { departures, response_sum, busy_area, present_area, waiting_area }]
        } else {
            self.by_class.iter().map(|mine| mine.stats(now)).collect()
        };
        StationStats {
            departures,
            response_sum,
            busy_area,
            present_area,
            waiting_area,
            server_types: self.typed().map(|typed| typed.stats(now)).unwrap_or_default(),
            classes,
        }
    }
}

impl Occupancy for [StationState] {
    #[inline]
    fn present(&self, station: u32) -> u32 {
        self[station as usize].present
    }

    #[inline]
    fn waiting(&self, station: u32) -> u32 {
        self[station as usize].queue.len() as u32
    }

    #[inline]
    fn busy_fraction(&self, station: u32) -> f64 {
        let s = &self[station as usize];
        s.busy_servers() / s.service.servers() as f64
    }

    #[inline(always)]
    fn has_room(&self, station: u32, already_here: bool) -> bool {
        self[station as usize].has_room(already_here)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_waiting_beside_a_free_server_has_claimed_it() {
        let two = Station { name: "a".into(), servers: Some(2), ..Default::default() };
        let mut station = StationState::new(&two, 1);
        let anyone = |_, _| true;
        assert!(station.has_unclaimed_server(anyone));
        // Two jobs wait (for their tokens) beside the two free servers.
        station.arrive(7, 0, 0.0, 1.0, 1, 0.0);
        assert!(station.has_unclaimed_server(anyone));
        station.arrive(8, 0, 0.0, 1.0, 2, 0.0);
        assert!(!station.has_unclaimed_server(anyone));
        station.take_head(0.0);
        station.serve(7, 0, 0, 1.0, 0.0);
        assert!(!station.has_unclaimed_server(anyone), "one serving, one waiting");
        station.service_end(7, 0, 0, 1.0, false);
        station.leave(0, 0, 1.0, 1.0, false);
        assert!(station.has_unclaimed_server(anyone));
        let sharing = Station { name: "ps".into(), servers: Some(1), discipline: Discipline::Ps, ..Default::default() };
        let mut ps = StationState::new(&sharing, 1);
        ps.arrive(7, 0, 0.0, 1.0, 1, 0.0);
        assert!(ps.has_unclaimed_server(anyone), "processor sharing always admits one more");
    }
}
