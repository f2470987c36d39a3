//! A first-come-first-served counting lock: `n` identical machines that
//! waiting threads get in the order they asked. The models serve a station's
//! queue in FIFO order; std's Mutex lets a thread that just released the lock
//! take it straight back (barging), which leaves throughput alone but starves
//! the other waiters and so bends the latency percentiles away from FIFO.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, Thread};

pub struct FifoLock {
    state: Mutex<State>,
}

struct State {
    free: usize,
    waiting: VecDeque<Arc<Waiter>>,
}

struct Waiter {
    granted: AtomicBool,
    thread: Thread,
}

/// One machine taken from a [`FifoLock`]: handed to the next waiter on drop.
pub struct Held<'a>(&'a FifoLock);

impl FifoLock {
    pub fn new(machines: usize) -> FifoLock {
        FifoLock { state: Mutex::new(State { free: machines, waiting: VecDeque::new() }) }
    }

    pub fn acquire(&self) -> Held<'_> {
        let waiter = {
            let mut state = self.state.lock().unwrap();
            if state.free > 0 && state.waiting.is_empty() {
                state.free -= 1;
                return Held(self);
            }
            let waiter = Arc::new(Waiter { granted: AtomicBool::new(false), thread: thread::current() });
            state.waiting.push_back(Arc::clone(&waiter));
            waiter
        };
        // park may wake spuriously: only the grant counts.
        while !waiter.granted.load(Ordering::Acquire) {
            thread::park();
        }
        Held(self)
    }

    fn release(&self) {
        let mut state = self.state.lock().unwrap();
        match state.waiting.pop_front() {
            Some(next) => {
                next.granted.store(true, Ordering::Release);
                next.thread.unpark();
            }
            None => state.free += 1,
        }
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.0.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    #[test]
    fn never_more_holders_than_machines() {
        for machines in [1, 2, 3] {
            let lock = FifoLock::new(machines);
            let inside = AtomicUsize::new(0);
            let most = AtomicUsize::new(0);
            thread::scope(|s| {
                for _ in 0..8 {
                    s.spawn(|| {
                        for _ in 0..200 {
                            let _held = lock.acquire();
                            let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            thread::yield_now();
                            inside.fetch_sub(1, Ordering::SeqCst);
                        }
                    });
                }
            });
            assert_eq!(most.load(Ordering::SeqCst), machines);
        }
    }

    #[test]
    fn waiters_are_served_in_the_order_they_came() {
        let lock = FifoLock::new(1);
        let order = Mutex::new(Vec::new());
        thread::scope(|s| {
            let held = lock.acquire();
            for i in 0..5 {
                let (lock, order) = (&lock, &order);
                s.spawn(move || {
                    let _held = lock.acquire();
                    order.lock().unwrap().push(i);
                });
                // Each waiter queues before the next one starts.
                while lock.state.lock().unwrap().waiting.len() < i + 1 {
                    thread::sleep(Duration::from_micros(100));
                }
            }
            drop(held);
        });
        assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4]);
    }
}
