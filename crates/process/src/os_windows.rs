//! Process groups on Windows: one Job Object per group, the Windows counterpart of a Unix
//! process group.
//!
//! A child is created suspended, put into a new job and only then resumed, so everything it
//! starts is in the job from its first instruction (processes started by a job member join
//! its job). The job is created with `JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`: lspedit holds its
//! only handle (not inheritable), so when lspedit dies, by any means, Windows closes the handle
//! and kills every process of the job. That is what `PR_SET_PDEATHSIG` and the watchdog do on
//! Unix. Killing a group is `TerminateJobObject`; its members are the job's process list (no
//! `/proc`), its memory the members' working sets, its CPU time the job's accounting.
//!
//! A group is named, as on Unix, by the pid of the process spawned first; the jobs are kept in
//! a table by that pid. A killed job stays in the table until its last member is gone (so
//! [`wait_group_gone`] can still see them go), and is dropped on the next table access after
//! that.
//!
//! Checked to compile (`scripts/windows-check`), not run: no Windows machine runs the tests.

// The Win32 calls are foreign functions; each block says why its arguments are valid.
#![allow(unsafe_code)]

use std::collections::HashMap;
use std::io;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{ERROR_INVALID_PARAMETER, ERROR_MORE_DATA, HANDLE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, TH32CS_SNAPTHREAD, THREADENTRY32, Thread32First, Thread32Next,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    JOBOBJECT_BASIC_ACCOUNTING_INFORMATION, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JobObjectBasicAccountingInformation, JobObjectBasicProcessIdList,
    JobObjectExtendedLimitInformation, QueryInformationJobObject, SetInformationJobObject,
    TerminateJobObject,
};
use windows_sys::Win32::System::ProcessStatus::{K32GetProcessMemoryInfo, PROCESS_MEMORY_COUNTERS};
use windows_sys::Win32::System::Threading::{
    CREATE_SUSPENDED, OpenProcess, OpenThread, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, ResumeThread, THREAD_SUSPEND_RESUME, WaitForSingleObject,
};

/// The creation flag a spawner sets so that [`adopt`] finds the child not yet running.
pub(crate) const CREATE_FLAGS: u32 = CREATE_SUSPENDED;

/// Most members listed per query; a group with more is read as its first this many.
const MAX_MEMBERS: usize = 1024;

/// One group's job.
struct Job {
    handle: OwnedHandle,
    /// `TerminateJobObject` was called: the job leaves the table once it is empty.
    terminated: bool,
}

fn table() -> MutexGuard<'static, HashMap<u32, Job>> {
    static JOBS: OnceLock<Mutex<HashMap<u32, Job>>> = OnceLock::new();
    let mut jobs = JOBS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    jobs.retain(|_, j| !j.terminated || active_processes(&j.handle) != Some(0));
    jobs
}

/// Puts the child `pid`, created suspended ([`CREATE_FLAGS`]) and whose process handle is
/// `process`, into a new kill-on-close job, then resumes it. On `Err` the child was not
/// resumed: the job is terminated if it was made, and the caller kills the child too (it may
/// not be in a job).
pub(crate) fn adopt(pid: u32, process: RawHandle) -> io::Result<()> {
    // SAFETY: no security attributes (the handle is not inherited) and no name; the returned
    // handle is owned below or null.
    let raw = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if raw.is_null() {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a job handle just created and owned by nobody else.
    let job = unsafe { OwnedHandle::from_raw_handle(raw) };
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
    // SAFETY: `limits` is the structure this information class expects, of the size given,
    // alive for the call.
    let set = unsafe {
        SetInformationJobObject(
            job.as_raw_handle(),
            JobObjectExtendedLimitInformation,
            std::ptr::from_ref(&limits).cast(),
            size_of_u32::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>(),
        )
    };
    if set == 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are live handles: the job owned here, the process borrowed from its `Child`
    // for the call.
    if unsafe { AssignProcessToJobObject(job.as_raw_handle(), process) } == 0 {
        return Err(io::Error::last_os_error());
    }
    table().insert(
        pid,
        Job {
            handle: job,
            terminated: false,
        },
    );
    resume_threads(pid).inspect_err(|_| kill_group(pid))
}

/// Resumes every thread of process `pid` (a process created suspended has one).
fn resume_threads(pid: u32) -> io::Result<()> {
    // SAFETY: a thread snapshot of the system; the handle is owned below or invalid.
    let raw = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    let raw = checked(raw)?;
    // SAFETY: `raw` is the snapshot just created and owned by nobody else.
    let snapshot = unsafe { OwnedHandle::from_raw_handle(raw) };
    let mut entry = THREADENTRY32 {
        dwSize: size_of_u32::<THREADENTRY32>(),
        ..THREADENTRY32::default()
    };
    let mut resumed = 0usize;
    // SAFETY: `entry` is a THREADENTRY32 with its `dwSize` set, alive for the calls.
    let mut more = unsafe { Thread32First(snapshot.as_raw_handle(), &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: opens a thread by id; the handle is owned below or null.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if thread.is_null() {
                return Err(io::Error::last_os_error());
            }
            // SAFETY: `thread` was just opened and is owned by nobody else.
            let thread = unsafe { OwnedHandle::from_raw_handle(thread) };
            // SAFETY: a live thread handle with THREAD_SUSPEND_RESUME access.
            if unsafe { ResumeThread(thread.as_raw_handle()) } == u32::MAX {
                return Err(io::Error::last_os_error());
            }
            resumed += 1;
        }
        // SAFETY: as for Thread32First.
        more = unsafe { Thread32Next(snapshot.as_raw_handle(), &mut entry) } != 0;
    }
    if resumed == 0 {
        return Err(io::Error::other(format!(
            "process {pid} has no thread to resume"
        )));
    }
    Ok(())
}

/// Terminates every process of the group's job. Errors (already gone, no such group) are
/// ignored, as `killpg` on Unix.
pub fn kill_group(pgid: u32) {
    let mut jobs = table();
    if let Some(job) = jobs.get_mut(&pgid) {
        // SAFETY: a live job handle owned by the table.
        let _ = unsafe { TerminateJobObject(job.handle.as_raw_handle(), 1) };
        job.terminated = true;
    }
}

/// Pids of the live processes of the group's job. Empty for a group lspedit did not start
/// or whose job is gone.
pub fn live_group_members(pgid: u32) -> Vec<u32> {
    let jobs = table();
    jobs.get(&pgid)
        .map(|j| members(&j.handle))
        .unwrap_or_default()
}

/// `JOBOBJECT_BASIC_PROCESS_ID_LIST` with room for [`MAX_MEMBERS`] ids.
#[repr(C)]
struct IdList {
    assigned: u32,
    listed: u32,
    ids: [usize; MAX_MEMBERS],
}

fn members(job: &OwnedHandle) -> Vec<u32> {
    let mut list = Box::new(IdList {
        assigned: 0,
        listed: 0,
        ids: [0; MAX_MEMBERS],
    });
    // SAFETY: `list` has the layout of JOBOBJECT_BASIC_PROCESS_ID_LIST with a longer array,
    // of the size given, alive for the call.
    let ok = unsafe {
        QueryInformationJobObject(
            job.as_raw_handle(),
            JobObjectBasicProcessIdList,
            std::ptr::from_mut(&mut *list).cast(),
            size_of_u32::<IdList>(),
            std::ptr::null_mut(),
        )
    };
    // More members than room: the list holds the first ones.
    if ok == 0 && io::Error::last_os_error().raw_os_error() != Some(ERROR_MORE_DATA as i32) {
        return Vec::new();
    }
    let listed = usize::try_from(list.listed).map_or(0, |n| n.min(MAX_MEMBERS));
    list.ids[..listed]
        .iter()
        .filter_map(|&id| u32::try_from(id).ok())
        .collect()
}

fn accounting(job: &OwnedHandle) -> Option<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION> {
    let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
    // SAFETY: `info` is the structure this information class expects, of the size given,
    // alive for the call.
    let ok = unsafe {
        QueryInformationJobObject(
            job.as_raw_handle(),
            JobObjectBasicAccountingInformation,
            std::ptr::from_mut(&mut info).cast(),
            size_of_u32::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>(),
            std::ptr::null_mut(),
        )
    };
    (ok != 0).then_some(info)
}

fn active_processes(job: &OwnedHandle) -> Option<u32> {
    accounting(job).map(|a| a.ActiveProcesses)
}

/// Waits until no live process is left in the group, or `timeout` passes; true when gone.
/// Event-driven: it waits on the process handle of a remaining member (signalled when it
/// exits), as the Unix side waits on a pidfd.
pub fn wait_group_gone(pgid: u32, timeout: Duration) -> bool {
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
        // SAFETY: opens a process by id for waiting; the handle is owned below or null.
        let raw = unsafe { OpenProcess(PROCESS_SYNCHRONIZE, 0, first) };
        if raw.is_null() {
            // Gone between the listing and the open.
            if io::Error::last_os_error().raw_os_error() == Some(ERROR_INVALID_PARAMETER as i32) {
                continue;
            }
            return false;
        }
        // SAFETY: `raw` was just opened and is owned by nobody else.
        let process = unsafe { OwnedHandle::from_raw_handle(raw) };
        let left = u32::try_from((deadline - now).as_millis()).unwrap_or(u32::MAX - 1);
        // SAFETY: a live process handle with SYNCHRONIZE access.
        let _ = unsafe { WaitForSingleObject(process.as_raw_handle(), left) };
    }
}

/// CPU time the group's job has used so far, user and kernel, of its members living and
/// exited, in ticks of 10 ms (the `USER_HZ` of Linux's `/proc`); `None` when the group has no
/// live member.
pub fn group_cpu_ticks(pgid: u32) -> Option<u64> {
    let jobs = table();
    let info = accounting(&jobs.get(&pgid)?.handle)?;
    if info.ActiveProcesses == 0 {
        return None;
    }
    // Job times are in 100 ns units: 100,000 of them make a 10 ms tick.
    let total = info.TotalUserTime.saturating_add(info.TotalKernelTime);
    Some(u64::try_from(total).unwrap_or(0) / 100_000)
}

/// Memory of the group's live members, in KiB: the sum of their working sets (the resident
/// memory Windows reports per process).
pub fn group_rss_kib(pgid: u32) -> Option<u64> {
    let members = live_group_members(pgid);
    if members.is_empty() {
        return None;
    }
    Some(members.into_iter().filter_map(working_set_kib).sum())
}

fn working_set_kib(pid: u32) -> Option<u64> {
    // SAFETY: opens a process by id for querying; the handle is owned below or null.
    let raw = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if raw.is_null() {
        return None;
    }
    // SAFETY: `raw` was just opened and is owned by nobody else.
    let process = unsafe { OwnedHandle::from_raw_handle(raw) };
    let mut counters = PROCESS_MEMORY_COUNTERS {
        cb: size_of_u32::<PROCESS_MEMORY_COUNTERS>(),
        ..PROCESS_MEMORY_COUNTERS::default()
    };
    // SAFETY: `counters` has its `cb` set to its size and is alive for the call.
    let ok =
        unsafe { K32GetProcessMemoryInfo(process.as_raw_handle(), &mut counters, counters.cb) };
    (ok != 0).then(|| u64::try_from(counters.WorkingSetSize / 1024).unwrap_or(u64::MAX))
}

/// `INVALID_HANDLE_VALUE` (what the snapshot call returns on failure) as an error.
fn checked(raw: HANDLE) -> io::Result<HANDLE> {
    if raw.is_null() || raw == windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE {
        Err(io::Error::last_os_error())
    } else {
        Ok(raw)
    }
}

fn size_of_u32<T>() -> u32 {
    u32::try_from(std::mem::size_of::<T>()).unwrap_or(u32::MAX)
}
