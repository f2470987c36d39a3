//! Sleeping to the microsecond. Linux rounds a thread's sleeps up by its
//! "timer slack" (50 µs by default), which would show as schedule lag and as
//! service time on the demo server; the threads that pace or serve lower it
//! to 1 ns. Elsewhere sleeps keep the system's precision.

use std::time::{Duration, Instant};

pub fn precise_sleeps() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK only changes this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

/// Sleeps until `deadline` or until `stop()` says so, looking at most every
/// `CHECK` (a slow schedule must still stop promptly on Ctrl-C).
pub fn sleep_until(deadline: Instant, stop: impl Fn() -> bool) -> bool {
    const CHECK: Duration = Duration::from_millis(50);
    loop {
        if stop() {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return true;
        }
        std::thread::sleep((deadline - now).min(CHECK));
    }
}
