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
}
