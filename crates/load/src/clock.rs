//! Waiting to the microsecond. Linux rounds a thread's sleeps up by its
//! "timer slack" (50 µs by default), which would show as service time on the
//! demo server; its workers lower it to 1 ns. The generator waits inside its
//! event loop instead, where tokio's timers tick in whole milliseconds: an
//! [`Alarm`] is a timerfd (nanoseconds, no slack) the loop waits on like any
//! socket. Elsewhere than Linux the alarm is tokio's timer.

use std::io;
use std::time::Instant;

pub fn precise_sleeps() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK only changes this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Wakes the event loop at an instant. Armed once per deadline: waiting again
/// for the same deadline (after the loop was woken by something else) costs
/// no system call.
pub struct Alarm {
    #[cfg(target_os = "linux")]
    fd: tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>,
    #[cfg(target_os = "linux")]
    armed: Option<Instant>,
}

#[cfg(target_os = "linux")]
impl Alarm {
    /// Needs the tokio runtime it will be waited on.
    pub fn new() -> io::Result<Alarm> {
        use std::os::fd::FromRawFd;
        // SAFETY: timerfd_create takes no pointers; a non-negative result is a
        // new descriptor that the OwnedFd alone owns from here.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: see above.
        let fd = unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) };
        // SAFETY: the OwnedFd keeps its one open descriptor until the AsyncFd drops it.
        let fd = unsafe { tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)? };
        Ok(Alarm { fd, armed: None })
    }

    /// Returns at `deadline` (at once if it has passed).
    pub async fn until(&mut self, deadline: Instant) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Ok(());
            }
            if self.armed != Some(deadline) {
                // Instant is CLOCK_MONOTONIC on Linux, so a relative time is exact
                // up to the few ns between reading the clock and arming.
                let left = deadline - now;
                let when = libc::itimerspec {
                    it_interval: libc::timespec { tv_sec: 0, tv_nsec: 0 },
                    it_value: libc::timespec { tv_sec: left.as_secs() as libc::time_t,
                                               tv_nsec: left.subsec_nanos() as libc::c_long },
                };
                // SAFETY: the descriptor is ours and open; `when` lives across the call.
                if unsafe { libc::timerfd_settime(self.fd.as_raw_fd(), 0, &when, std::ptr::null_mut()) } < 0 {
                    return Err(io::Error::last_os_error());
                }
                self.armed = Some(deadline);
            }
            // The expiry is not read: arming anew resets the timer's count, and
            // the loop above tells a stale wake by the clock.
            self.fd.readable().await?.clear_ready();
        }
    }
}

#[cfg(not(target_os = "linux"))]
impl Alarm {
    pub fn new() -> io::Result<Alarm> {
        Ok(Alarm {})
    }

    pub async fn until(&mut self, deadline: Instant) -> io::Result<()> {
        tokio::time::sleep_until(deadline.into()).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn the_alarm_never_rings_before_its_deadline() {
        runtime().block_on(async {
            let mut alarm = Alarm::new().unwrap();
            // Later, sooner (armed anew over a later deadline), the same again, and past.
            for micros in [2_000u64, 10, 300, 300, 0] {
                let deadline = Instant::now() + Duration::from_micros(micros);
                alarm.until(deadline).await.unwrap();
                assert!(Instant::now() >= deadline, "{micros} µs: rang early");
            }
        });
    }

    #[test]
    fn an_expiry_nobody_waited_for_does_not_end_the_next_wait() {
        runtime().block_on(async {
            let mut alarm = Alarm::new().unwrap();
            let first = Instant::now() + Duration::from_micros(100);
            alarm.until(first).await.unwrap();
            // Armed (polled once) for a deadline that then passes unwatched, as
            // when the loop is woken by an answer and then busy.
            let missed = Instant::now() + Duration::from_millis(1);
            tokio::select! {
                biased;
                _ = alarm.until(missed) => {}
                _ = std::future::ready(()) => {}
            }
            std::thread::sleep(Duration::from_millis(3));
            let next = Instant::now() + Duration::from_millis(3);
            alarm.until(next).await.unwrap();
            assert!(Instant::now() >= next, "woken by the stale expiry");
        });
    }
}
