//! Process groups on Unix: `killpg`, and what `/proc` and pidfds tell about a group (Linux;
//! elsewhere `/proc` is absent and a group reads as empty).

use std::time::{Duration, Instant};

/// Sends SIGKILL to every process in the group, and to every group of the session it leads: a
/// server is started as a session of its own (`setsid`), so a child it put in a process group
/// of its own (rust-analyzer's `cargo check`) goes too. Errors (already gone) are ignored.
pub fn kill_group(pgid: u32) {
    // The session's other groups are read first: once the leader's group is gone they are
    // orphans, but still of the session.
    let mut others: Vec<u32> = members(pgid)
        .into_iter()
        .map(|(_, pgrp)| pgrp)
        .filter(|&g| g != pgid)
        .collect();
    others.sort_unstable();
    others.dedup();
    for g in std::iter::once(pgid).chain(others) {
        let Ok(raw) = i32::try_from(g) else { continue };
        if let Some(pid) = rustix::process::Pid::from_raw(raw) {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

/// Pids of the live (not zombie) processes of the group `pgid` and of the session it leads,
/// from `/proc`. Used to verify that nothing is left behind; empty on systems without `/proc`.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    members(pgid).into_iter().map(|(pid, _)| pid).collect()
}

/// Waits until no live process is left in the group, or `timeout` passes; true when gone.
/// Event-driven: it waits on a pidfd of a remaining member (readable when it exits).
pub fn wait_group_gone(pgid: u32, timeout: Duration) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use rustix::process::{Pid, PidfdFlags, pidfd_open};
    let deadline = Instant::now() + timeout;
    loop {
        let members = live_group_members(pgid);
        let Some(&first) = members.first() else {
            return true;
        };
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let Some(pid) = i32::try_from(first).ok().and_then(Pid::from_raw) else {
            return false;
        };
        match pidfd_open(pid, PidfdFlags::empty()) {
            Ok(fd) => {
                let left = deadline - now;
                let ts = Timespec {
                    tv_sec: i64::try_from(left.as_secs()).unwrap_or(i64::MAX),
                    tv_nsec: i64::from(left.subsec_nanos()),
                };
                let mut fds = [PollFd::new(&fd, PollFlags::IN)];
                let _ = poll(&mut fds, Some(&ts));
            }
            // Gone between the scan and the open.
            Err(rustix::io::Errno::SRCH) => {}
            Err(_) => return false,
        }
    }
}

/// CPU time used so far by the live processes of the group, in clock ticks (`utime + stime`
/// of each, from `/proc`); `None` when no member is found.
pub fn group_cpu_ticks(pgid: u32) -> Option<u64> {
    let mut total = 0u64;
    let mut found = false;
    for pid in live_group_members(pgid) {
        let Some(rest) = stat_after_name(pid) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let tick = |i: usize| {
            fields
                .get(i)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        // `rest` starts at field 3 (state): utime is field 14, index 11 here.
        total += tick(11) + tick(12);
        found = true;
    }
    found.then_some(total)
}

/// Resident memory of all live processes of the group and of the session it leads (see
/// [`live_group_members`]), in KiB (sum of `VmRSS`).
pub fn group_rss_kib(pgid: u32) -> Option<u64> {
    let members = members(pgid);
    if members.is_empty() {
        return None;
    }
    let rss = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("VmRSS:"))
                    .and_then(|l| l.split_whitespace().nth(1))
                    .and_then(|v| v.parse::<u64>().ok())
            })
            .unwrap_or(0)
    };
    Some(members.iter().map(|&(pid, _)| rss(pid)).sum())
}

/// The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and
/// parentheses): state(3) ppid pgrp session … utime(14) stime(15) …; `None` once the process
/// is gone.
fn stat_after_name(pid: u32) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let name_end = stat.rfind(')')?;
    Some(stat[name_end + 1..].to_owned())
}

/// `(pid, process group)` of each live (not zombie) process whose group is `pgid` or whose
/// session is `pgid`, from `/proc`.
fn members(pgid: u32) -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Some(rest) = stat_after_name(pid) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("");
        let _ppid = fields.next();
        let mut id = || fields.next().and_then(|s| s.parse::<u32>().ok());
        let (Some(pgrp), Some(session)) = (id(), id()) else {
            continue;
        };
        if (pgrp == pgid || session == pgid) && state != "Z" && state != "X" {
            out.push((pid, pgrp));
        }
    }
    out
}
