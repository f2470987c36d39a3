//! What the lab asks of the operating system: which CPUs it may run on, pinning
//! a thread (and so every thread it starts) to K of them, and CPU time.

use std::time::Duration;

use crate::error::LabError;

/// The CPUs this thread may run on now, in ascending order.
pub fn allowed_cpus() -> Result<Vec<usize>, LabError> {
    // SAFETY: cpu_set_t is plain bytes; sched_getaffinity fills it for this thread.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(LabError::Os(format!("sched_getaffinity failed: {}", std::io::Error::last_os_error())));
    }
    Ok((0..libc::CPU_SETSIZE as usize).filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) }).collect())
}

/// Restricts the calling thread to `cpus`. Threads it starts afterwards inherit
/// the restriction, which is how a whole run is confined to K CPUs while the
/// caller's own thread keeps its CPUs.
pub fn pin_current_thread(cpus: &[usize]) -> Result<(), LabError> {
    // SAFETY: as above; the set only names CPUs that sched_getaffinity reported.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    let rc = unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(LabError::Os(format!("sched_setaffinity failed: {}", std::io::Error::last_os_error())));
    }
    Ok(())
}

/// Sets the calling thread's nice value (-20 highest priority .. 19 lowest);
/// threads it starts afterwards inherit it. Lowering it below 0 needs
/// privilege (root or CAP_SYS_NICE): the lab then competes with other busy
/// processes at a larger share, which keeps their bursts out of its figures.
pub fn set_nice(nice: i32) -> Result<(), LabError> {
    // SAFETY: plain syscalls on the calling thread's own id.
    let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::id_t;
    if unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, nice) } != 0 {
        return Err(LabError::Os(format!("nice {nice}: {}", std::io::Error::last_os_error())));
    }
    Ok(())
}

/// The first `asked` of the CPUs this thread may use, and a warning when it may
/// use fewer than asked (the run then uses all it has).
pub fn choose_cpus(asked: usize) -> Result<(Vec<usize>, Option<String>), LabError> {
    if asked == 0 {
        return Err(LabError::Input("cpus: expected at least 1".into()));
    }
    let allowed = allowed_cpus()?;
    if asked <= allowed.len() {
        return Ok((allowed[..asked].to_vec(), None));
    }
    let warning = format!(
        "cpus {asked}: this machine lets brewput use {} CPU{}; measured on {} instead",
        allowed.len(),
        if allowed.len() == 1 { "" } else { "s" },
        allowed.len()
    );
    Ok((allowed, Some(warning)))
}

/// CPU time (user + system) used so far by the whole process: every thread.
pub fn process_cpu_time() -> Duration {
    // SAFETY: getrusage fills a plain struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    timeval(usage.ru_utime) + timeval(usage.ru_stime)
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// CPU time spent so far on `cpus` by every process, idle and I/O wait not
/// counted (/proc/stat, in clock ticks of 10 ms); None where it cannot be read.
/// Less the lab's own CPU time, it says how much other work took from the run.
pub fn busy_time_on(cpus: &[usize]) -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    // SAFETY: sysconf has no side effects.
    let ticks_per_s = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let mut ticks = 0u64;
    for line in stat.lines() {
        let mut fields = line.split_whitespace();
        let Some(cpu) = fields.next().and_then(|name| name.strip_prefix("cpu")?.parse::<usize>().ok()) else {
            continue;
        };
        if cpus.contains(&cpu) {
            let values: Vec<u64> = fields.filter_map(|v| v.parse().ok()).collect();
            // user nice system idle iowait irq softirq steal (guest time is inside user)
            ticks += values.iter().take(8).enumerate().filter(|(i, _)| *i != 3 && *i != 4).map(|(_, v)| v).sum::<u64>();
        }
    }
    Some(Duration::from_micros(ticks * 1_000_000 / ticks_per_s))
}

/// CPU time used so far by the calling thread alone: unlike the wall clock, it
/// does not count the time the thread waited for a CPU.
pub fn thread_cpu_time() -> Duration {
    // SAFETY: clock_gettime fills a plain struct.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_for_more_cpus_than_allowed_caps_with_a_warning() {
        let allowed = allowed_cpus().unwrap();
        let (cpus, warning) = choose_cpus(allowed.len() + 4).unwrap();
        assert_eq!(cpus, allowed);
        assert!(warning.unwrap().contains(&format!("use {} CPU", allowed.len())));
        let (one, none) = choose_cpus(1).unwrap();
        assert_eq!((one, none), (vec![allowed[0]], None));
        assert!(choose_cpus(0).is_err());
    }

    #[test]
    fn a_pinned_thread_and_its_children_see_only_their_cpus() {
        let first = allowed_cpus().unwrap()[0];
        std::thread::spawn(move || {
            pin_current_thread(&[first]).unwrap();
            assert_eq!(allowed_cpus().unwrap(), vec![first]);
            let child = std::thread::spawn(|| allowed_cpus().unwrap()).join().unwrap();
            assert_eq!(child, vec![first]);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn threads_inherit_a_nice_value() {
        std::thread::spawn(|| {
            set_nice(5).unwrap(); // raising it needs no privilege
            let child = std::thread::spawn(|| {
                let tid = unsafe { libc::syscall(libc::SYS_gettid) } as libc::id_t;
                unsafe { libc::getpriority(libc::PRIO_PROCESS, tid) }
            });
            assert_eq!(child.join().unwrap(), 5);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn busy_time_counts_a_burn_on_a_pinned_cpu() {
        let cpu = allowed_cpus().unwrap()[0];
        std::thread::spawn(move || {
            pin_current_thread(&[cpu]).unwrap();
            let before = busy_time_on(&[cpu]).unwrap();
            let start = thread_cpu_time();
            while thread_cpu_time() - start < Duration::from_millis(200) {}
            let busy = busy_time_on(&[cpu]).unwrap() - before;
            // The CPU was busy at least while this thread burnt (ticks of 10 ms).
            assert!(busy >= Duration::from_millis(180), "{busy:?}");
        })
        .join()
        .unwrap();
    }
}
