//! Running a tool as a child process with a deadline: the wait is on the process's exit event
//! (a pidfd polled for readability), so a fast tool is reaped at once and a hung one is killed
//! when its time is up, with no sleeping loop in between.

use std::io;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, pidfd_open};

/// Wait for `child` to exit, at most `timeout`. `Ok(None)`: still running at the deadline.
pub fn wait_timeout(child: &mut Child, timeout: Duration) -> io::Result<Option<ExitStatus>> {
    if let Some(status) = child.try_wait()? {
        return Ok(Some(status));
    }
    // The child is not reaped yet, so its pid still names it (a zombie at worst).
    let fd = pidfd_open(Pid::from_child(child), PidfdFlags::empty())?;
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let ts = Timespec {
            tv_sec: left.as_secs() as _,
            tv_nsec: left.subsec_nanos() as _,
        };
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, Some(&ts)) {
            // Timed out; the child may have exited in the very last instant.
            Ok(0) => return child.try_wait(),
            Ok(_) => return child.wait().map(Some),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// What a finished (or killed) run produced.
#[derive(Debug)]
pub struct Run {
    /// `None` when the run was killed at the deadline.
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub elapsed: Duration,
}

/// The most stdout a benchmarked tool's run keeps (its JSON report).
const STDOUT_MAX_BYTES: usize = 64 << 20;

/// Run `cmd` with stdin closed, stdout captured and stderr discarded, through lspedit's one
/// bounded-run helper: in its own process group, killed whole if still running after
/// `timeout`.
pub fn run(cmd: &mut Command, timeout: Duration) -> io::Result<Run> {
    let r = lspedit_process::run_bounded(
        cmd,
        timeout,
        lspedit_process::Capture::StdoutOnly,
        STDOUT_MAX_BYTES,
    )?;
    Ok(Run {
        status: r.status,
        stdout: r.stdout,
        elapsed: r.elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fast_child_is_reaped_and_a_slow_one_killed_at_the_deadline() {
        let r = run(
            Command::new("sh").args(["-c", "echo hi"]),
            Duration::from_secs(10),
        )
        .unwrap();
        assert!(r.status.unwrap().success());
        assert_eq!(r.stdout, b"hi\n");
        assert!(r.elapsed < Duration::from_secs(5));

        let r = run(
            Command::new("sh").args(["-c", "exec sleep 30"]),
            Duration::from_millis(200),
        )
        .unwrap();
        assert!(r.status.is_none(), "the sleeper must be killed");
        assert!(r.elapsed < Duration::from_secs(10));
    }
}
