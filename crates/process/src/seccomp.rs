//! The second half of the sandbox: a seccomp filter, built in the parent and installed in the
//! child between fork and exec, after the Landlock ruleset, so that a server and everything it
//! starts has **no network of any kind** and no way into other processes that Landlock leaves
//! open (`docs/sandbox.md`, "The sandbox").
//!
//! Landlock (ABI 7) restricts TCP `bind` and `connect` only: MPTCP sockets, TCP Fast Open
//! (`sendto` with `MSG_FASTOPEN`), UDP (DNS included), raw and packet sockets, and Unix sockets
//! bound to a path are outside it. A rule per channel would be a list of the cases someone
//! thought of; the filter states the invariant instead: **a server creates no socket**.
//!
//! - `socket(2)` fails with `EACCES`, whatever the family, type or protocol.
//! - `socketpair(2)` is allowed for `AF_UNIX` stream and sequenced-packet pairs only (libuv's
//!   child stdio and IPC channels, Python's `subprocess`, cargo's): such a pair is connected to
//!   itself from birth and can never reach an address (a sequenced-packet `sendto` ignores the
//!   address it is given). A datagram pair could (`sendto` with a path), so it is refused.
//! - io_uring is refused (`ENOSYS`, so libuv falls back to its thread pool): its `SOCKET` and
//!   `CONNECT` operations never pass through the system calls above.
//! - `ptrace`, `process_vm_readv`/`writev`, `pidfd_getfd`, and the kernel keyring (`keyctl`,
//!   `add_key`, `request_key`, where a session's secrets can live) fail with `EPERM`; so do
//!   `bpf` and `perf_event_open`, which no server needs.
//! - A system call of another ABI (32-bit `int 0x80` on x86_64, where `socketcall` exists, or
//!   x32) kills the process: the filter checks numbers of the native ABI only, so every other
//!   ABI is closed whole.
//!
//! No socket descriptor is inherited: every server starts with stdio pipes only (the spawner
//! opens everything else close-on-exec).

use std::sync::OnceLock;

/// The audit architecture of the native system-call ABI the filter checks numbers for.
#[cfg(target_arch = "x86_64")]
const ARCH: u32 = 0xC000_003E; // AUDIT_ARCH_X86_64
#[cfg(target_arch = "aarch64")]
const ARCH: u32 = 0xC000_00B7; // AUDIT_ARCH_AARCH64
#[cfg(target_arch = "riscv64")]
const ARCH: u32 = 0xC000_00F3; // AUDIT_ARCH_RISCV64

/// x32 system calls carry this bit in their number on x86_64 (same audit architecture).
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

// Offsets in `struct seccomp_data`: nr, arch, instruction pointer, then six 64-bit arguments
// (their low 32 bits first on the little-endian machines this builds for).
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn off_arg_low(i: u32) -> u32 {
    16 + 8 * i
}

const fn stmt(code: u32, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    }
}

const fn jump(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

const LD_W_ABS: u32 = libc::BPF_LD | libc::BPF_W | libc::BPF_ABS;
const JEQ_K: u32 = libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K;
#[cfg(target_arch = "x86_64")]
const JGE_K: u32 = libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K;
const AND_K: u32 = libc::BPF_ALU | libc::BPF_AND | libc::BPF_K;
const RET_K: u32 = libc::BPF_RET | libc::BPF_K;

fn errno(e: i32) -> u32 {
    libc::SECCOMP_RET_ERRNO | (e as u32 & libc::SECCOMP_RET_DATA)
}

/// The system calls refused outright, each with its errno.
fn refused() -> Vec<(libc::c_long, i32)> {
    vec![
        (libc::SYS_socket, libc::EACCES),
        (libc::SYS_io_uring_setup, libc::ENOSYS),
        (libc::SYS_io_uring_enter, libc::ENOSYS),
        (libc::SYS_io_uring_register, libc::ENOSYS),
        (libc::SYS_ptrace, libc::EPERM),
        (libc::SYS_process_vm_readv, libc::EPERM),
        (libc::SYS_process_vm_writev, libc::EPERM),
        (libc::SYS_pidfd_getfd, libc::EPERM),
        (libc::SYS_keyctl, libc::EPERM),
        (libc::SYS_add_key, libc::EPERM),
        (libc::SYS_request_key, libc::EPERM),
        (libc::SYS_bpf, libc::EPERM),
        (libc::SYS_perf_event_open, libc::EPERM),
    ]
}

/// The filter program (see the module docs).
pub(crate) fn program() -> Vec<libc::sock_filter> {
    let deny_socket = errno(libc::EACCES);
    let mut p = vec![
        stmt(LD_W_ABS, OFF_ARCH),
        jump(JEQ_K, ARCH, 1, 0),
        stmt(RET_K, libc::SECCOMP_RET_KILL_PROCESS),
        stmt(LD_W_ABS, OFF_NR),
    ];
    #[cfg(target_arch = "x86_64")]
    p.extend([
        jump(JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, libc::SECCOMP_RET_KILL_PROCESS),
    ]);
    for (nr, e) in refused() {
        p.push(jump(JEQ_K, nr as u32, 0, 1));
        p.push(stmt(RET_K, errno(e)));
    }
    let stream_flags = (libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC) as u32;
    p.extend([
        jump(JEQ_K, libc::SYS_socketpair as u32, 1, 0),
        stmt(RET_K, libc::SECCOMP_RET_ALLOW),
        stmt(LD_W_ABS, off_arg_low(0)),
        jump(JEQ_K, libc::AF_UNIX as u32, 1, 0),
        stmt(RET_K, deny_socket),
        stmt(LD_W_ABS, off_arg_low(1)),
        stmt(AND_K, !stream_flags),
        jump(JEQ_K, libc::SOCK_STREAM as u32, 2, 0),
        jump(JEQ_K, libc::SOCK_SEQPACKET as u32, 1, 0),
        stmt(RET_K, deny_socket),
        stmt(RET_K, libc::SECCOMP_RET_ALLOW),
    ]);
    p
}

/// Whether this kernel takes seccomp filters that return an errno, probed once per process
/// (`SECCOMP_GET_ACTION_AVAIL`; no filter is installed).
pub fn available() -> bool {
    static PROBED: OnceLock<bool> = OnceLock::new();
    *PROBED.get_or_init(|| {
        const SECCOMP_GET_ACTION_AVAIL: libc::c_uint = 2;
        let action: u32 = libc::SECCOMP_RET_ERRNO;
        // SAFETY: the kernel reads one u32 through the pointer, which outlives the call.
        #[allow(unsafe_code)]
        let r = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                SECCOMP_GET_ACTION_AVAIL,
                0 as libc::c_uint,
                &raw const action,
            )
        };
        r == 0
    })
}

/// Installs `filter` on the calling thread. Runs in the child between fork and exec: no
/// allocation (the program was built in the parent), only `prctl` and `seccomp`.
pub(crate) fn install(filter: &[libc::sock_filter]) -> std::io::Result<()> {
    let prog = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| std::io::ErrorKind::InvalidInput)?,
        filter: filter.as_ptr().cast_mut(),
    };
    const SECCOMP_SET_MODE_FILTER: libc::c_uint = 1;
    // SAFETY: `prog` points at `filter`, which outlives the calls; both only read it.
    #[allow(unsafe_code)]
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::syscall(
            libc::SYS_seccomp,
            SECCOMP_SET_MODE_FILTER,
            0 as libc::c_uint,
            &raw const prog,
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// When the child runs as root, drops every capability before exec: the bounding set (so
/// exec grants none back to uid 0), the inheritable and ambient sets, then the effective and
/// permitted ones. A server running as root keeps uid 0's file ownership, but not
/// `CAP_SYS_PTRACE` (other processes' `/proc/<pid>/environ` and memory when they are not
/// dumpable), `CAP_KILL`, `CAP_DAC_OVERRIDE` or `CAP_SYS_ADMIN`. Between fork and exec: only
/// `prctl` and `capset`.
pub(crate) fn drop_capabilities_if_root() -> std::io::Result<()> {
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    #[derive(Clone, Copy)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;
    // SAFETY: plain system calls on values on this stack frame.
    #[allow(unsafe_code)]
    unsafe {
        if libc::geteuid() != 0 {
            return Ok(());
        }
        // 0..=63 covers every capability a kernel defines; numbers past the last give EINVAL.
        for cap in 0..64 {
            if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0
                && *libc::__errno_location() != libc::EINVAL
            {
                return Err(std::io::Error::last_os_error());
            }
        }
        if libc::prctl(
            libc::PR_CAP_AMBIENT,
            libc::PR_CAP_AMBIENT_CLEAR_ALL,
            0,
            0,
            0,
        ) != 0
            && *libc::__errno_location() != libc::EINVAL
        {
            return Err(std::io::Error::last_os_error());
        }
        let header = Header {
            version: LINUX_CAPABILITY_VERSION_3,
            pid: 0,
        };
        let none = [Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        }; 2];
        if libc::syscall(libc::SYS_capset, &raw const header, none.as_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `body` in a forked child with the filter installed; its exit status is the
    /// child's verdict (0 = every expectation held).
    fn in_filtered_child(body: impl FnOnce() -> i32) -> i32 {
        let filter = program();
        // SAFETY: the test process forks; the child only makes system calls and exits with
        // `_exit`, never returning into the test harness.
        #[allow(unsafe_code)]
        unsafe {
            let pid = libc::fork();
            assert!(pid >= 0, "fork");
            if pid == 0 {
                let code = if install(&filter).is_ok() {
                    body()
                } else {
                    100
                };
                libc::_exit(code);
            }
            let mut status = 0;
            libc::waitpid(pid, &raw mut status, 0);
            if libc::WIFEXITED(status) {
                libc::WEXITSTATUS(status)
            } else {
                -libc::WTERMSIG(status)
            }
        }
    }

    fn errno_of(r: libc::c_long) -> i32 {
        if r >= 0 {
            0
        } else {
            std::io::Error::last_os_error().raw_os_error().unwrap_or(-1)
        }
    }

    /// Every socket family and type fails with EACCES; a stream or sequenced-packet socket pair
    /// works and a datagram pair does not; io_uring is ENOSYS; the same calls work without the filter (the
    /// positive control, in the same code).
    #[test]
    fn a_filtered_process_creates_no_socket_but_a_stream_pair() {
        let attempts = || -> Vec<(&'static str, i32)> {
            let mut got = Vec::new();
            // SAFETY: plain system calls; descriptors are closed again.
            #[allow(unsafe_code)]
            unsafe {
                let sock = |name, domain, ty, proto| {
                    let fd = libc::socket(domain, ty, proto);
                    let e = errno_of(fd.into());
                    if fd >= 0 {
                        libc::close(fd);
                    }
                    (name, e)
                };
                got.push(sock("tcp", libc::AF_INET, libc::SOCK_STREAM, 0));
                got.push(sock("mptcp", libc::AF_INET, libc::SOCK_STREAM, 262));
                got.push(sock("udp", libc::AF_INET, libc::SOCK_DGRAM, 0));
                got.push(sock("udp6", libc::AF_INET6, libc::SOCK_DGRAM, 0));
                got.push(sock("unix", libc::AF_UNIX, libc::SOCK_STREAM, 0));
                got.push(sock("unix-dgram", libc::AF_UNIX, libc::SOCK_DGRAM, 0));
                got.push(sock("netlink", libc::AF_NETLINK, libc::SOCK_RAW, 0));
                let mut fds = [0; 2];
                let pair = |ty| {
                    let mut fds = [0; 2];
                    let r = libc::socketpair(libc::AF_UNIX, ty, 0, fds.as_mut_ptr());
                    let e = errno_of(r.into());
                    if r == 0 {
                        libc::close(fds[0]);
                        libc::close(fds[1]);
                    }
                    e
                };
                got.push(("pair-stream", pair(libc::SOCK_STREAM | libc::SOCK_CLOEXEC)));
                got.push(("pair-seqpacket", pair(libc::SOCK_SEQPACKET)));
                got.push(("pair-dgram", pair(libc::SOCK_DGRAM)));
                let r = libc::socketpair(libc::AF_INET, libc::SOCK_STREAM, 0, fds.as_mut_ptr());
                got.push(("pair-inet", errno_of(r.into())));
                let mut params = [0u8; 120];
                let r = libc::syscall(libc::SYS_io_uring_setup, 4, params.as_mut_ptr());
                let e = errno_of(r);
                if r >= 0 {
                    libc::close(r as i32);
                }
                got.push(("io_uring", e));
                let r = libc::syscall(libc::SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0);
                got.push(("keyctl", errno_of(r)));
            }
            got
        };
        let expected = [
            ("tcp", libc::EACCES),
            ("mptcp", libc::EACCES),
            ("udp", libc::EACCES),
            ("udp6", libc::EACCES),
            ("unix", libc::EACCES),
            ("unix-dgram", libc::EACCES),
            ("netlink", libc::EACCES),
            ("pair-stream", 0),
            ("pair-seqpacket", 0),
            ("pair-dgram", libc::EACCES),
            ("pair-inet", libc::EACCES),
            ("io_uring", libc::ENOSYS),
            ("keyctl", libc::EPERM),
        ];
        if !available() {
            eprintln!("SKIPPED: this kernel takes no seccomp filter");
            return;
        }
        // Control: unfiltered, the sockets are created (MPTCP and io_uring may be off in a
        // kernel; they are then not a control).
        let control = attempts();
        for name in [
            "tcp",
            "udp",
            "unix",
            "unix-dgram",
            "pair-stream",
            "pair-dgram",
        ] {
            let e = control.iter().find(|(n, _)| *n == name).map(|(_, e)| *e);
            assert_eq!(e, Some(0), "{name} without the filter: {control:?}");
        }
        let code = in_filtered_child(move || {
            let got = attempts();
            i32::from(got != expected)
        });
        assert_eq!(code, 0, "expected {expected:?} under the filter");
    }

    /// A system call of another ABI (x86_64's 32-bit `int 0x80`) kills the process instead of
    /// passing unchecked: `socketcall` exists only there.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_system_call_of_another_abi_kills_the_process() {
        if !available() {
            eprintln!("SKIPPED: this kernel takes no seccomp filter");
            return;
        }
        let code = in_filtered_child(|| {
            // getpid through the 32-bit entry point: number 20 there.
            // SAFETY: `int 0x80` with eax = 20 is getpid on the compat ABI; no memory is
            // touched. Where the kernel has no compat ABI the call returns -ENOSYS.
            #[allow(unsafe_code)]
            let r: i64 = unsafe {
                let mut eax: i64 = 20;
                std::arch::asm!("int 0x80", inout("rax") eax, options(nostack));
                eax
            };
            if r == -i64::from(libc::ENOSYS) { 7 } else { 0 }
        });
        assert!(
            code == -libc::SIGSYS || code == 7,
            "a compat system call must kill the process (or not exist): status {code}"
        );
    }
}
